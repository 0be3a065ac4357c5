// /api-keys: the organization's API keys of the side shown (till_live_… or till_test_…), a page at a time (the
// server's /api-key/page cuts the side's keys in the database); making one with its scopes and lifetime (its
// secret shown once, with a Copy button) and revoking one after asking once more. Keys belong to the live
// organization (better-auth's /api/auth/api-key routes, with the session cookie), as `till keys` does; the owner's
// and admins' roles may manage them.
import { useState, type FormEvent } from "react";
import { auth } from "../../api.js";
import { BILLING_RESOURCES, type BillingAction } from "../../../../shared/scopes.js";
import { Field, SelectField, Status } from "../../ui.js";
import type { ListPage } from "../api.js";
import { useSeller } from "../context.js";
import { useLoad } from "../hooks.js";
import { Confirm } from "../kit/Confirm.js";
import { DataTable, type DataColumn } from "../kit/DataTable.js";
import { Empty } from "../kit/Empty.js";
import { RowActions } from "../kit/RowActions.js";
import { Secret } from "../kit/Secret.js";
import { Layout } from "../Layout.js";
import { day, Loading, Pager, ReadOnly } from "../parts.js";
import { useToast } from "../Toasts.js";
import { pageParam } from "../url.js";

interface ApiKey {
  id: string;
  name: string | null;
  start: string | null;
  enabled: boolean;
  expiresAt: string | null;
  createdAt: string;
  permissions?: Record<string, string[]> | null;
  key?: string;
}

const SANDBOX_PREFIX = "till_test_";
const DAY_S = 86_400;
const LIFETIMES = [
  { value: String(7 * DAY_S), label: "7 days" },
  { value: String(30 * DAY_S), label: "30 days" },
  { value: String(90 * DAY_S), label: "90 days" },
  { value: String(365 * DAY_S), label: "1 year" },
];
const LEVELS: Record<string, BillingAction[]> = { none: [], read: ["read"], write: ["read", "write"] };
const nameOf = (k: ApiKey) => k.name ?? k.id;

/** What a key may do, in a few words: everything, read only, or how many of the resources. */
function scopesOf(p: ApiKey["permissions"]): string {
  if (!p) return "all";
  const billing = BILLING_RESOURCES.map((r) => p[r] ?? []);
  if (billing.every((a) => a.includes("write"))) return "all";
  if (billing.every((a) => a.includes("read") && !a.includes("write"))) return "read only";
  const n = billing.filter((a) => a.length > 0).length;
  return `${n} of ${BILLING_RESOURCES.length} resources`;
}

function NewKey({ organizationId, sandbox, onMade }: { organizationId: string; sandbox: boolean; onMade: (k: ApiKey) => void }) {
  const [access, setAccess] = useState("all");
  const [error, setError] = useState<string | undefined>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const lifetime = Number(f.get("expires") || 0);
    const levelOf = (r: string): BillingAction[] => (access === "read" ? ["read"] : (LEVELS[String(f.get(`scope-${r}`) || "none")] ?? []));
    const permissions = access === "all" ? undefined : Object.fromEntries(BILLING_RESOURCES.map((r) => [r, levelOf(r)] as const).filter(([, a]) => a.length > 0));
    const r = await auth.post<ApiKey>("/api-key/create", {
      organizationId,
      name: String(f.get("name") ?? "").trim(),
      ...(sandbox ? { prefix: SANDBOX_PREFIX } : {}),
      ...(lifetime > 0 ? { expiresIn: lifetime } : {}),
      ...(permissions ? { permissions } : {}),
    });
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    form.reset();
    setAccess("all");
    onMade(r.data);
  }
  return (
    <section className="form-section" aria-labelledby="new-key-h">
      <h2 id="new-key-h">New {sandbox ? "sandbox" : "live"} key</h2>
      <form onSubmit={(e) => void onSubmit(e)} aria-label="New API key" className="stack">
        <Field label="Name" name="name" required maxLength={64} hint="What uses it (ci, production app): you will know which to revoke." />
        <SelectField
          label="Access" name="access" value={access} onChange={(e) => setAccess(e.target.value || "all")} placeholder="Everything (read and write)"
          options={[{ value: "read", label: "Read only" }, { value: "custom", label: "Chosen per resource" }]}
        />
        {access === "custom" && (
          <fieldset className="scope-grid">
            <legend>Scopes</legend>
            {BILLING_RESOURCES.map((r) => (
              <SelectField
                key={r} label={r.replace(/_/g, " ")} name={`scope-${r}`} defaultValue="" placeholder="No access"
                options={[{ value: "read", label: "Read" }, { value: "write", label: "Read and write" }]}
              />
            ))}
          </fieldset>
        )}
        <SelectField label="Expires after" name="expires" defaultValue="" placeholder="Never" options={LIFETIMES} />
        <button type="submit" className="primary">
          Create the key
        </button>
      </form>
      <Status tone="error">{error}</Status>
    </section>
  );
}

export function ApiKeys() {
  const { organization, mode, who } = useSeller();
  const toast = useToast();
  const sandbox = mode === "sandbox";
  const mayManage = Boolean(who && (who.roles.includes("owner") || who.roles.includes("admin")));
  const page = pageParam();
  const query = new URLSearchParams({ organizationId: organization.id, side: sandbox ? "sandbox" : "live", page: String(page), limit: "20" });
  const list = useLoad(() => auth.get<ListPage<ApiKey>>(`/api-key/page?${query.toString()}`), query.toString());
  const [made, setMade] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  async function revoke(k: ApiKey) {
    const r = await auth.post<unknown>("/api-key/delete", { keyId: k.id });
    if (!r.ok) return setError(r.error.message);
    setError(undefined);
    toast(`Revoked ${nameOf(k)}: calls with it are refused from now on.`);
    list.reload();
  }
  const columns: Array<DataColumn<ApiKey>> = [
    { id: "name", label: "Name", cell: (k) => k.name ?? "unnamed" },
    { id: "start", label: "Starts with", cell: (k) => <code>{k.start ? `${k.start}…` : k.id}</code> },
    { id: "scopes", label: "Scopes", cell: (k) => scopesOf(k.permissions) },
    { id: "expires", label: "Expires", cell: (k) => (!k.enabled ? "disabled" : k.expiresAt ? day(k.expiresAt) : "never") },
    { id: "created", label: "Created", cell: (k) => day(k.createdAt) },
  ];
  const side = sandbox ? "sandbox" : "live";
  return (
    <Layout title="API keys">
      <p className="hint">{sandbox ? "Sandbox keys (till_test_…) act on the sandbox only." : "Live keys (till_live_…) act on live data."}</p>
      {!mayManage && <ReadOnly what="make or revoke API keys" />}
      <Loading loading={list.loading} error={list.error} />
      <Status tone="error">{error}</Status>
      {made?.key && (
        <Secret label={`New key ${nameOf(made)}`} value={made.key} note="Copy it now: it is not shown again." />
      )}
      {list.data && list.data.items.length === 0 && (
        <Empty title={`No ${side} API keys yet.`} command={`till keys create ci${sandbox ? " --sandbox" : ""} --scope products:read --expires 90d`}>
          A key lets your code and scripts call the API as this organization. Make one per use, with only the scopes it needs.
        </Empty>
      )}
      {list.data && list.data.items.length > 0 && (
        <>
          <DataTable
            caption="API keys"
            rows={list.data.items}
            columns={columns}
            actions={mayManage ? (k) => <RowActions name={nameOf(k)} items={[{ label: "Revoke…", danger: true, onSelect: () => setRevoking(k) }]} /> : undefined}
          />
          <Pager page={page} maxPage={list.data.pagination.max_page} total={list.data.pagination.total_count} />
        </>
      )}
      {mayManage && (
        <NewKey
          organizationId={organization.id}
          sandbox={sandbox}
          onMade={(k) => {
            setMade(k);
            toast(`Created ${nameOf(k)}: copy it now, it is not shown again.`);
            list.reload();
          }}
        />
      )}
      {revoking && (
        <Confirm
          trigger={null}
          open
          onOpenChange={(o) => !o && setRevoking(null)}
          title={`Revoke ${nameOf(revoking)}?`}
          body="Every call made with it is refused from now on. This cannot be undone: make a new key if you need one."
          confirm="Yes, revoke it"
          cancel="Keep it"
          onConfirm={() => revoke(revoking)}
        />
      )}
    </Layout>
  );
}
