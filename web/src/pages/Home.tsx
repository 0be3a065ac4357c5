// /: signed out, the way in; signed in, the seller's organizations — each with a few products, its recent
// orders and subscriptions and its API keys — and a form to create one. Read-mostly: the CLI is the main tool,
// so each empty list names the command that fills it.
import { useCallback, useEffect, useState, type FormEvent, type ReactNode } from "react";
import { getSession, signOut, type Session } from "../api.js";
import { formatMoney } from "../checkout-api.js";
import { createOrganization, getHome, slugify, type Home, type HomeOrganization, type Listed } from "../home-api.js";
import { Field, Page, Status, type Tone } from "../ui.js";

const day = (iso: string) => iso.slice(0, 10);
const every = (interval: string | null) => (interval ? ` / ${interval}` : "");

function priceOf(p: HomeOrganization["products"] extends Listed<infer T> ? T : never): string {
  const price = p.prices[0];
  if (!price) return "no price";
  // a free price comes as a fixed price of 0
  if (price.amount_type === "free" || (price.amount_type === "fixed" && price.amount === 0)) return "free";
  if (price.amount_type === "fixed" && price.amount !== null) return `${formatMoney(price.amount, price.currency)}${every(p.recurring_interval)}`;
  if (price.amount_type === "custom") return "pay what you want";
  return price.amount_type.replace("_", " ");
}

/** One list of an organization: its rows, or why there are none (and the command that makes some). */
function Section<T>({ title, list, empty, more, row }: { title: string; list: Listed<T>; empty: ReactNode; more: string; row: (item: T) => ReactNode }) {
  return (
    <section className="home-list" aria-label={title}>
      <h3>{title}</h3>
      {!list.visible ? (
        <p className="hint">Your role in this organization does not show these.</p>
      ) : list.items.length === 0 ? (
        <p className="hint">{empty}</p>
      ) : (
        <>
          <ul>{list.items.map(row)}</ul>
          {list.total > list.items.length && (
            <p className="hint">
              {list.total - list.items.length} more: <code>{more}</code>
            </p>
          )}
        </>
      )}
    </section>
  );
}

function OrganizationCard({ org }: { org: HomeOrganization }) {
  return (
    <article className="org" aria-labelledby={`org-${org.id}`}>
      <h2 id={`org-${org.id}`}>
        {org.name} <span className="slug">{org.slug}</span>
      </h2>
      <div className="home-grid">
        <Section
          title="Products"
          list={org.products}
          more="till products list"
          empty={<>No products yet: <code>till products create "E-book" --price 1999</code></>}
          row={(p) => (
            <li key={p.id}>
              {p.name} <span className="amount">{priceOf(p)}</span>
            </li>
          )}
        />
        <Section
          title="Recent orders"
          list={org.orders}
          more="till orders list"
          empty={<>No orders yet: send a checkout link (<code>till checkouts create --product &lt;id&gt;</code>)</>}
          row={(o) => (
            <li key={o.id}>
              {o.product_name ?? "Order"} · {o.customer_email ?? "no email"} <span className="amount">{formatMoney(o.total_amount, o.currency)}</span>{" "}
              <span className="hint">
                {o.status}, {day(o.created_at)}
              </span>
            </li>
          )}
        />
        <Section
          title="Subscriptions"
          list={org.subscriptions}
          more="till subscriptions list"
          empty="No subscriptions yet: they come with purchases of recurring products."
          row={(s) => (
            <li key={s.id}>
              {s.product_name ?? "Subscription"} · {s.customer_email ?? "no email"}{" "}
              <span className="amount">
                {formatMoney(s.amount, s.currency)}
                {every(s.recurring_interval)}
              </span>{" "}
              <span className="hint">{s.status}</span>
            </li>
          )}
        />
        <Section
          title="API keys"
          list={org.api_keys}
          more="till keys list"
          empty={<>No API keys: <code>till keys create ci --scope products:read</code></>}
          row={(k) => (
            <li key={k.id}>
              {k.name ?? "unnamed"} <code>{k.start ? `${k.start}…` : k.id}</code>{" "}
              <span className="hint">{!k.enabled ? "disabled" : k.expires_at ? `expires ${day(k.expires_at)}` : "never expires"}</span>
            </li>
          )}
        />
      </div>
    </article>
  );
}

function CreateOrganization({ onCreated }: { onCreated: () => void }) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ tone: Tone; text: string } | undefined>(undefined);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const name = String(new FormData(form).get("name") ?? "").trim();
    const slug = slugify(name);
    if (!slug) return setStatus({ tone: "error", text: "Give the organization a name with letters or digits." });
    setBusy(true);
    setStatus({ tone: "info", text: "Creating the organization…" });
    const r = await createOrganization(name, slug);
    setBusy(false);
    if (!r.ok) return setStatus({ tone: "error", text: r.error.message });
    form.reset();
    setStatus({ tone: "success", text: `Created ${name} (${r.data.slug}).` });
    onCreated();
  }

  return (
    <section aria-labelledby="create-org" className="create-org">
      <h2 id="create-org">Create an organization</h2>
      <form onSubmit={(e) => void onSubmit(e)} aria-label="Create an organization">
        <Field label="Organization name" name="name" required maxLength={100} hint="Its slug is made from the name." />
        <button type="submit" className="primary" disabled={busy}>
          Create organization
        </button>
      </form>
      <Status tone={status?.tone}>{status?.text}</Status>
    </section>
  );
}

function SignedIn({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const [home, setHome] = useState<Home | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const load = useCallback(() => {
    void getHome().then((r) => (r.ok ? setHome(r.data) : setError(r.error.message)));
  }, []);
  useEffect(load, [load]);

  return (
    <>
      <p>
        Signed in as <strong>{session.user.name || session.user.email}</strong> ({session.user.email}).{" "}
        <button type="button" className="link" onClick={onSignOut}>
          Sign out
        </button>
      </p>
      {!home && !error && <Status>Loading your organizations…</Status>}
      {error && <Status tone="error">{error}</Status>}
      {home && home.organizations.length === 0 && (
        <p className="lead">You have no organization yet. Create one below, or with <code>till orgs create "Acme Inc"</code>.</p>
      )}
      {home?.organizations.map((org) => <OrganizationCard key={org.id} org={org} />)}
      <CreateOrganization onCreated={load} />
      <ul className="links">
        <li>
          <a href="/device">Connect a device (till CLI)</a>
        </li>
        <li>
          <a href="/api/reference">API reference</a>
        </li>
      </ul>
    </>
  );
}

export function HomePage() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    void getSession().then((r) => (r.ok ? setSession(r.data) : setError(r.error.message)));
  }, []);

  async function onSignOut() {
    const r = await signOut();
    if (r.ok) setSession(null);
    else setError(r.error.message);
  }

  return (
    <Page title={session ? "Your organizations" : "till"} className={session ? "home" : undefined}>
      {session === undefined && !error && <Status>Loading…</Status>}
      {session === null && (
        <>
          <p className="lead">Sell digital products from your own server.</p>
          <div className="actions">
            <a className="button primary" href="/sign-in">
              Sign in
            </a>
            <a className="button" href="/sign-in?mode=sign-up">
              Create an account
            </a>
          </div>
        </>
      )}
      {session && <SignedIn session={session} onSignOut={() => void onSignOut()} />}
      {error && <Status tone="error">{error}</Status>}
    </Page>
  );
}
