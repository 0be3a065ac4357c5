// /admin: the platform admins' review queue (GET /v1/admin/organizations/?status=…), each organization's
// submitted details and owners, approved or denied with a reason (POST …/approve, …/deny), as `till admin orgs`.
// The server refuses anyone but a platform admin (403), and the page says so; AdminLink shows the way here to
// platform admins only.
import { useState, type FormEvent } from "react";
import { Field, SelectField, Status, type Tone } from "../../ui.js";
import { v1, type ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Layout } from "../Layout.js";
import { Loading } from "../parts.js";
import { href } from "../url.js";

interface Reviewed {
  id: string;
  name: string;
  slug: string;
  status: string;
  details_submitted_at: string | null;
  details: { about?: string; product_description?: string; intended_use?: string } | null;
  review: { status: string | null; reason: string | null };
  owners: string[];
}

const STATUSES = ["under_review", "denied", "onboarding_started", "created", "active"];

type Said = { tone: Tone; text: string } | undefined;

/** Approve and deny; what was decided is said by the page (the organization may leave the list it shows). */
function Decide({ org, onDone, setSaid }: { org: Reviewed; onDone: () => void; setSaid: (s: Said) => void }) {
  const { scope } = useSeller();
  async function decide(path: string, body?: Record<string, unknown>) {
    const r = await v1<Reviewed>(scope, "POST", `/admin/organizations/${org.id}/${path}`, body ? { body } : {});
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    setSaid({ tone: "success", text: `${r.data.slug} is ${r.data.status}.` });
    onDone();
  }
  function onDeny(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    void decide("deny", { reason: String(new FormData(e.currentTarget).get("reason") ?? "").trim() });
  }
  return (
    <div className="stack">
      <button type="button" className="primary" onClick={() => void decide("approve")}>
        Approve {org.slug}
      </button>
      <form onSubmit={onDeny} aria-label={`Deny ${org.slug}`} className="stack">
        <Field label="Reason (shown to the seller)" name="reason" required />
        <button type="submit" className="danger">
          Deny {org.slug}
        </button>
      </form>
    </div>
  );
}

export function AdminOrganizations() {
  const { scope } = useSeller();
  const [status, setStatus] = useState("under_review");
  const [said, setSaid] = useState<Said>(undefined);
  const loaded = useLoad(() => v1<ListPage<Reviewed>>(scope, "GET", "/admin/organizations/", { query: { status, limit: 100 } }), `admin-${status}`);
  return (
    <Layout title="Review organizations">
      <SelectField label="Status" name="status" value={status} onChange={(e) => setStatus(e.target.value)} options={STATUSES.map((s) => ({ value: s, label: s }))} />
      <Status tone={said?.tone}>{said?.text}</Status>
      <Loading loading={loaded.loading} error={loaded.error} />
      {loaded.data?.items.length === 0 && <p>No organization is {status}.</p>}
      {loaded.data?.items.map((o) => (
        <section key={o.id} aria-labelledby={`org-${o.id}`}>
          <h2 id={`org-${o.id}`}>
            {o.name} ({o.slug}) — {o.status}
          </h2>
          <dl>
            <dt>Owners</dt>
            <dd>{o.owners.join(", ") || "—"}</dd>
            <dt>About</dt>
            <dd>{o.details?.about ?? "—"}</dd>
            <dt>What they sell</dt>
            <dd>{o.details?.product_description ?? "—"}</dd>
            <dt>Intended use</dt>
            <dd>{o.details?.intended_use ?? "—"}</dd>
            {o.review.reason && (
              <>
                <dt>Denied because</dt>
                <dd>{o.review.reason}</dd>
              </>
            )}
          </dl>
          {(o.status === "under_review" || o.status === "denied") && <Decide org={o} onDone={loaded.reload} setSaid={setSaid} />}
        </section>
      ))}
    </Layout>
  );
}

/** A link to the queue, shown to platform admins only (the server answers the list to them alone). */
export function AdminLink() {
  const { scope } = useSeller();
  const probe = useLoad(() => v1<ListPage<Reviewed>>(scope, "GET", "/admin/organizations/", { query: { status: "under_review", limit: 1 } }), "admin-probe");
  if (!probe.data) return null;
  return (
    <p>
      <a href={href("/admin")}>Review organizations</a> (platform admins): {probe.data.pagination.total_count} under review.
    </p>
  );
}
