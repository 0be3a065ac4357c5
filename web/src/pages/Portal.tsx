// /portal: the customer portal. A seller's customer session link (?customer_session_token=till_cst_…, from
// POST /v1/customer-sessions/ or the checkout's success view) opens it; the token is kept in sessionStorage
// and taken out of the address bar at once. One page: the customer's subscriptions (cancel with a reason,
// keep), orders, benefits (license keys whole, with a Copy button and their activations; a custom benefit's
// note) and billing details (name, address, tax id; a 422's messages next to their fields). Without a token,
// or once the session expired (any 401), it says so and leads back to the seller when the session named a
// return URL. ?organization={slug} (the link of the sign-in code email) asks for the customer's email, has a
// one-time code mailed and trades it for a session.
import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent, type ReactNode, type Ref } from "react";
import { formatMoney } from "../checkout-api.js";
import {
  CANCELLATION_REASONS,
  forgetSessionToken,
  keepSessionToken,
  portalApi,
  rememberReturnUrl,
  rememberSeller,
  storedReturnUrl,
  storedSeller,
  takeSessionToken,
  type Address,
  type CancellationReason,
  type Downloadable,
  type LicenseKey,
  type OrderInvoice,
  type PortalCustomer,
  type PortalError,
  type PortalGrant,
  type PortalOrder,
  type PortalSubscription,
} from "../portal-api.js";
import { countryOptions } from "../regions.js";
import { Markdown } from "../markdown.js";
import { PortalSeats } from "./PortalSeats.js";
import { Accounts, GrantDelivery } from "./PortalAccounts.js";
import { PayNow, PaymentMethods } from "./PortalPayments.js";
import { Field, Page, Status, useFocusHeading, type Tone } from "../ui.js";
import "./portal.css";

interface Data {
  me: PortalCustomer;
  subscriptions: PortalSubscription[];
  orders: PortalOrder[];
  /** Invoices (with their credit notes) by order id: the orders whose invoice was generated. */
  invoices: Map<string, OrderInvoice>;
  grants: PortalGrant[];
  keys: Map<string, LicenseKey>;
  /** Downloadable files by benefit id. */
  files: Map<string, Downloadable[]>;
  expiresAt: string;
  returnUrl: string | null;
}

type State =
  | { kind: "loading" }
  | { kind: "expired"; returnUrl: string | null }
  | { kind: "sign-in"; slug: string }
  | { kind: "failed"; message: string }
  | { kind: "ready"; data: Data };

interface Message {
  tone: Tone;
  text: string;
}

/** Something failed: a 401 ends the page's session, anything else is said where it happened. */
type OnError = (error: PortalError) => string;

// ---- formatting -----------------------------------------------------------------------------------

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "long" });
const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });
const formatDate = (iso: string | null | undefined) => (iso ? dateFormat.format(new Date(iso)) : "—");

/** "month", 1 → "month"; "month", 3 → "3 months". */
function every(interval: string, count: number | null | undefined): string {
  const n = count ?? 1;
  return n === 1 ? interval : `${n} ${interval}s`;
}

const SUBSCRIPTION_STATUS: Record<string, string> = {
  active: "Active",
  trialing: "Free trial",
  past_due: "Payment overdue",
  incomplete: "Waiting for payment",
  incomplete_expired: "Payment never completed",
  unpaid: "Unpaid",
  canceled: "Ended",
};

const ORDER_STATUS: Record<string, string> = {
  pending: "Pending",
  paid: "Paid",
  refunded: "Refunded",
  partially_refunded: "Partially refunded",
  void: "Void",
};

const KEY_STATUS: Record<string, string> = { granted: "Active", revoked: "Revoked", disabled: "Disabled" };

const isLive = (s: PortalSubscription) => s.status === "active" || s.status === "trialing" || s.status === "past_due";

/** The seller, as the customer's purchases name it (a session does not say). */
function sellerOf(data: Pick<Data, "subscriptions" | "orders" | "grants">): { name: string; slug: string } | null {
  const o = data.subscriptions[0]?.product.organization ?? data.orders.find((x) => x.product)?.product?.organization ?? data.grants[0]?.benefit.organization;
  return o ? { name: o.name, slug: o.slug } : null;
}

// ---- loading --------------------------------------------------------------------------------------

type Loaded = { ok: true; data: Data } | { ok: false; error: PortalError };

async function load(token: string): Promise<Loaded> {
  const session = await portalApi.introspect(token);
  if (!session.ok) return session;
  const returnUrl = rememberReturnUrl(session.data.return_url);
  const [me, subscriptions, orders, grants, keyList, downloadables] = await Promise.all([
    portalApi.me(token),
    portalApi.subscriptions(token),
    portalApi.orders(token),
    portalApi.grants(token),
    portalApi.licenseKeys(token),
    portalApi.downloadables(token),
  ]);
  if (!me.ok) return me;
  if (!subscriptions.ok) return subscriptions;
  if (!orders.ok) return orders;
  if (!grants.ok) return grants;
  if (!keyList.ok) return keyList;
  if (!downloadables.ok) return downloadables;
  const files = new Map<string, Downloadable[]>();
  for (const d of downloadables.data) files.set(d.benefit_id, [...(files.get(d.benefit_id) ?? []), d]);
  // each key with its activations (a customer has a few keys)
  const detailed = await Promise.all(keyList.data.map((k) => portalApi.licenseKey(token, k.id)));
  const keys = new Map<string, LicenseKey>();
  for (const [i, r] of detailed.entries()) {
    const listed = keyList.data[i];
    if (!listed) continue;
    if (!r.ok && r.error.status === 401) return r;
    keys.set(listed.id, r.ok ? r.data : listed);
  }
  // the invoices made so far, each with a signed URL (an order has at most one; credit notes with it)
  const invoiceAnswers = await Promise.all(orders.data.map((o) => (o.is_invoice_generated ? portalApi.invoice(token, o.id) : null)));
  const invoices = new Map<string, OrderInvoice>();
  for (const [i, r] of invoiceAnswers.entries()) {
    const o = orders.data[i];
    if (r && !r.ok && r.error.status === 401) return r;
    if (o && r?.ok) invoices.set(o.id, r.data);
  }
  const seller = sellerOf({ subscriptions: subscriptions.data, orders: orders.data, grants: grants.data });
  if (seller) rememberSeller(seller);
  return {
    ok: true,
    data: {
      me: me.data,
      subscriptions: subscriptions.data,
      orders: orders.data,
      invoices,
      grants: grants.data,
      keys,
      files,
      expiresAt: session.data.expires_at,
      returnUrl,
    },
  };
}

// ---- the page -------------------------------------------------------------------------------------

export function PortalPage() {
  const [token, setToken] = useState(takeSessionToken);
  const [state, setState] = useState<State>(() => {
    if (token) return { kind: "loading" };
    const slug = new URLSearchParams(window.location.search).get("organization");
    return slug ? { kind: "sign-in", slug } : { kind: "expired", returnUrl: storedReturnUrl() };
  });
  useFocusHeading(state.kind);

  const expire = useCallback(() => {
    forgetSessionToken();
    setState({ kind: "expired", returnUrl: storedReturnUrl() });
  }, []);

  const reload = useCallback(async () => {
    if (!token) return;
    const r = await load(token);
    if (r.ok) setState({ kind: "ready", data: r.data });
    else if (r.error.status === 401) expire();
    else setState({ kind: "failed", message: r.error.message });
  }, [token, expire]);

  useEffect(() => {
    void reload();
  }, [reload]);

  const onError: OnError = useCallback(
    (error) => {
      if (error.status === 401) expire();
      return error.message;
    },
    [expire],
  );

  switch (state.kind) {
    case "loading":
      return (
        <Page title="Your purchases" className="portal">
          <Status>Loading your purchases…</Status>
        </Page>
      );
    case "failed":
      return (
        <Page title="Your purchases" className="portal">
          <Status tone="error">{state.message}</Status>
          <div className="actions">
            <button type="button" className="primary" onClick={() => void reload()}>
              Try again
            </button>
          </div>
        </Page>
      );
    case "expired":
      return <Expired returnUrl={state.returnUrl} />;
    case "sign-in":
      return (
        <SignIn
          slug={state.slug}
          onSignedIn={(t) => {
            keepSessionToken(t);
            setState({ kind: "loading" });
            setToken(t);
          }}
        />
      );
    case "ready":
      return (
        <Portal
          data={state.data}
          token={token ?? ""}
          onError={onError}
          onChange={(change) => setState((s) => (s.kind === "ready" ? { kind: "ready", data: { ...s.data, ...change(s.data) } } : s))}
        />
      );
  }
}

function BackLink({ returnUrl, seller }: { returnUrl: string; seller: string | null | undefined }) {
  return (
    <a className="button" href={returnUrl}>
      Back to {seller ?? new URL(returnUrl).host}
    </a>
  );
}

function Expired({ returnUrl }: { returnUrl: string | null }) {
  const seller = storedSeller();
  return (
    <Page title="This link has expired" className="portal">
      <Status tone="error">This link to your purchases has expired or is not complete.</Status>
      <p>
        For your security, a link to this page works for a short time only. Ask the seller for a new one: from your account on their
        site, or by writing to them.
      </p>
      <div className="actions">
        {seller && (
          <a className="button primary" href={`/portal?organization=${encodeURIComponent(seller.slug)}`}>
            Email me a sign-in code
          </a>
        )}
        {returnUrl ? (
          <BackLink returnUrl={returnUrl} seller={seller?.name} />
        ) : (
          <button type="button" onClick={() => window.history.back()}>
            Go back
          </button>
        )}
      </div>
    </Page>
  );
}

/** ?organization={slug}: the customer's email, a code mailed to it, and the code traded for a session. */
function SignIn({ slug, onSignedIn }: { slug: string; onSignedIn: (token: string) => void }) {
  const [org, setOrg] = useState<{ id: string; name: string } | null | undefined>(undefined);
  const [email, setEmail] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | undefined>();
  const [codeError, setCodeError] = useState<string | undefined>();
  useFocusHeading(email === null ? "email" : "code");

  useEffect(() => {
    void portalApi.organization(slug).then((r) => {
      if (r.ok) setOrg({ id: r.data.organization.id, name: r.data.organization.name });
      else {
        setOrg(null);
        setMessage({ tone: "error", text: r.error.status === 404 ? "This seller was not found. Check the link in your email." : r.error.message });
      }
    });
  }, [slug]);

  async function onRequest(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!org) return;
    const address = String(new FormData(e.currentTarget).get("email") ?? "").trim();
    setBusy(true);
    setMessage({ tone: "info", text: "Sending a code…" });
    const r = await portalApi.requestCode(address, org.id);
    setBusy(false);
    if (!r.ok) return setMessage({ tone: "error", text: r.error.fields.email ?? r.error.message });
    setEmail(address);
    setMessage(undefined);
  }

  async function onCode(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get("code") ?? "").trim();
    setBusy(true);
    setCodeError(undefined);
    setMessage({ tone: "info", text: "Checking the code…" });
    const r = await portalApi.authenticate(code);
    setBusy(false);
    if (r.ok) return onSignedIn(r.data.token);
    setMessage({ tone: "error", text: "That code did not work." });
    setCodeError(r.error.status === 401 ? "This code is wrong, used already or expired. Check it, or ask for a new one." : (r.error.fields.code ?? r.error.message));
  }

  const title = org ? `Your purchases from ${org.name}` : "Your purchases";
  if (email === null) {
    return (
      <Page title={title} className="portal">
        <p className="lead">Enter the email address you bought with. We will send you a code that opens your purchases.</p>
        <form onSubmit={(e) => void onRequest(e)} aria-label="Ask for a sign-in code">
          <Field label="Email" name="email" type="email" autoComplete="email" required maxLength={320} />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy || !org}>
              Email me a code
            </button>
          </div>
        </form>
        <Status tone={message?.tone}>{message?.text}</Status>
      </Page>
    );
  }
  return (
    <Page title="Enter your code" className="portal">
      <p className="lead">
        If <strong>{email}</strong> bought from {org?.name ?? "this seller"}, a code is on its way there. It works once, for 30 minutes.
      </p>
      <form onSubmit={(e) => void onCode(e)} aria-label="Enter the code">
        <Field label="Code" name="code" autoComplete="one-time-code" autoCapitalize="characters" spellCheck={false} required maxLength={64} error={codeError} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Open my purchases
          </button>
          <button type="button" disabled={busy} 
            onClick={() => {
              setEmail(null);
              setMessage(undefined);
              setCodeError(undefined);
            }}
          >
            Use another email
          </button>
        </div>
      </form>
      <Status tone={message?.tone}>{message?.text}</Status>
    </Page>
  );
}

/** Applies a change to the page's data (functional, so two answers arriving together both count). */
type OnChange = (change: (data: Data) => Partial<Data>) => void;

function Portal({ data, token, onError, onChange }: { data: Data; token: string; onError: OnError; onChange: OnChange }) {
  const seller = sellerOf(data)?.name ?? null;
  const expires = new Date(data.expiresAt);
  // bumped by a past-due order paid with a new card: the saved cards are read again
  const [paid, setPaid] = useState(0);
  return (
    <Page title="Your purchases" className="portal">
      <p className="lead">
        {seller ? <>From {seller}, for </> : <>For </>}
        <strong>{data.me.email}</strong>. This page works until {timeFormat.format(expires)}.
      </p>
      {data.returnUrl && (
        <nav aria-label="Seller" className="actions">
          <BackLink returnUrl={data.returnUrl} seller={seller} />
        </nav>
      )}
      <Subscriptions
        subscriptions={data.subscriptions}
        token={token}
        onError={onError}
        onChange={(s) => onChange((d) => ({ subscriptions: d.subscriptions.map((x) => (x.id === s.id ? s : x)) }))}
      />
      <Orders
        orders={data.orders}
        invoices={data.invoices}
        token={token}
        onError={onError}
        onPaid={(id) => {
          setPaid((n) => n + 1);
          onChange((d) => ({ orders: d.orders.map((o) => (o.id === id ? { ...o, status: "paid" } : o)) }));
          void portalApi.subscriptions(token).then((r) => r.ok && onChange(() => ({ subscriptions: r.data })));
        }}
      />
      <PaymentMethods token={token} onError={onError} version={paid} />
      <Accounts me={data.me} grants={data.grants} token={token} onError={onError} onChanged={(me) => onChange(() => ({ me }))} />
      <Benefits grants={data.grants} keys={data.keys} files={data.files} />
      <Billing me={data.me} token={token} onError={onError} onSaved={(me) => onChange(() => ({ me }))} />
    </Page>
  );
}

// ---- subscriptions --------------------------------------------------------------------------------

function Subscriptions({
  subscriptions,
  token,
  onError,
  onChange,
}: {
  subscriptions: PortalSubscription[];
  token: string;
  onError: OnError;
  onChange: (s: PortalSubscription) => void;
}) {
  const [message, setMessage] = useState<Message | undefined>();
  return (
    <section aria-labelledby="subscriptions-heading">
      <h2 id="subscriptions-heading">Subscriptions</h2>
      {subscriptions.length === 0 ? (
        <p className="empty">You have no subscriptions.</p>
      ) : (
        <ul className="items">
          {subscriptions.map((s) => (
            <SubscriptionItem key={s.id} subscription={s} token={token} onError={onError} onChange={onChange} say={setMessage} />
          ))}
        </ul>
      )}
      <Status tone={message?.tone}>{message?.text}</Status>
    </section>
  );
}

function SubscriptionItem({
  subscription: s,
  token,
  onError,
  onChange,
  say,
}: {
  subscription: PortalSubscription;
  token: string;
  onError: OnError;
  onChange: (s: PortalSubscription) => void;
  say: (m: Message | undefined) => void;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const reasonRef = useRef<HTMLSelectElement>(null);
  const name = s.product.name;

  useEffect(() => {
    if (asking) reasonRef.current?.focus();
  }, [asking]);

  async function onCancel(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const reason = String(form.get("reason") ?? "") as CancellationReason;
    const comment = String(form.get("comment") ?? "").trim();
    setBusy(true);
    say({ tone: "info", text: `Cancelling ${name}…` });
    const r = await portalApi.cancel(token, s.id, reason, comment || null);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    setAsking(false);
    onChange(r.data);
    say({ tone: "success", text: `${name} is cancelled. You keep it until ${formatDate(r.data.ends_at ?? r.data.current_period_end)}; it will not renew.` });
  }

  async function onKeep() {
    setBusy(true);
    say({ tone: "info", text: `Keeping ${name}…` });
    const r = await portalApi.uncancel(token, s.id);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    onChange(r.data);
    say({ tone: "success", text: `${name} will renew on ${formatDate(r.data.current_period_end)}.` });
  }

  const live = isLive(s);
  return (
    <li className="item">
      <h3>{name}</h3>
      {s.product.description && <Markdown source={s.product.description} className="product-description" />}
      <dl className="facts">
        <dt>Price</dt>
        <dd>
          {formatMoney(s.amount, s.currency)} / {every(s.recurring_interval, s.recurring_interval_count)}
        </dd>
        <dt>Status</dt>
        <dd>{live && s.cancel_at_period_end ? "Cancelled, active until it ends" : (SUBSCRIPTION_STATUS[s.status] ?? s.status)}</dd>
        {live && !s.cancel_at_period_end && s.current_period_end && (
          <>
            <dt>Renews on</dt>
            <dd>{formatDate(s.current_period_end)}</dd>
          </>
        )}
        {live && s.cancel_at_period_end && (
          <>
            <dt>Ends on</dt>
            <dd>{formatDate(s.ends_at ?? s.current_period_end)}</dd>
          </>
        )}
        {!live && s.ended_at && (
          <>
            <dt>Ended on</dt>
            <dd>{formatDate(s.ended_at)}</dd>
          </>
        )}
      </dl>
      {live && s.meters && s.meters.length > 0 && <Usage subscription={s} />}
      {live && s.seats != null && <PortalSeats subscriptionId={s.id} productName={name} token={token} onError={onError} say={say} />}
      {live && s.cancel_at_period_end && (
        <div className="actions">
          <button type="button" className="primary" onClick={() => void onKeep()} disabled={busy}>
            Keep my subscription
          </button>
        </div>
      )}
      {live && !s.cancel_at_period_end && !asking && (
        <div className="actions">
          <button type="button" className="danger" onClick={() => setAsking(true)}>
            Cancel subscription
          </button>
        </div>
      )}
      {live && !s.cancel_at_period_end && asking && (
        <form onSubmit={(e) => void onCancel(e)} aria-label={`Cancel ${name}`} className="cancel">
          <p>
            {name} stays active until {formatDate(s.current_period_end)} and will not renew. You can keep it until then.
          </p>
          <SelectField label="Why are you cancelling?" name="reason" required selectRef={reasonRef}>
            <option value="">Choose a reason</option>
            {CANCELLATION_REASONS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
          <TextArea label="Anything else you want to tell us?" name="comment" maxLength={10_000} />
          <div className="actions">
            <button type="submit" className="danger" disabled={busy}>
              Confirm cancellation
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setAsking(false);
                say(undefined);
              }}
            >
              Don't cancel
            </button>
          </div>
        </form>
      )}
    </li>
  );
}

/** The current period's usage of each meter: consumed, credited (meter credits) and billed units, and the amount so far. */
function Usage({ subscription: s }: { subscription: PortalSubscription }) {
  const units = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
  return (
    <table className="usage" aria-label={`Usage of ${s.product.name} this period`}>
      <thead>
        <tr>
          <th scope="col">Meter</th>
          <th scope="col">Consumed</th>
          <th scope="col">Credited</th>
          <th scope="col">Billed</th>
          <th scope="col">Amount so far</th>
        </tr>
      </thead>
      <tbody>
        {(s.meters ?? []).map((m) => (
          <tr key={m.id}>
            <th scope="row">{m.meter.name}</th>
            <td>{units.format(m.consumed_units)}</td>
            <td>{units.format(m.credited_units)}</td>
            <td>{units.format(Math.max(0, m.consumed_units - m.credited_units))}</td>
            <td>{formatMoney(m.amount, s.currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

// ---- orders ---------------------------------------------------------------------------------------

function Orders({ orders, invoices, token, onError, onPaid }: { orders: PortalOrder[]; invoices: Map<string, OrderInvoice>; token: string; onError: OnError; onPaid: (id: string) => void }) {
  return (
    <section aria-labelledby="orders-heading">
      <h2 id="orders-heading">Orders</h2>
      {orders.length === 0 ? (
        <p className="empty">You have no orders.</p>
      ) : (
        <ul className="items">
          {orders.map((o) => (
            <li key={o.id} className="item">
              <h3>{o.description || o.product?.name || "Order"}</h3>
              <dl className="facts">
                <dt>Date</dt>
                <dd>{formatDate(o.created_at)}</dd>
                <dt>Amount</dt>
                <dd>{formatMoney(o.total_amount, o.currency)}</dd>
                <dt>Status</dt>
                <dd>{ORDER_STATUS[o.status] ?? o.status}</dd>
                <dt>Invoice number</dt>
                <dd>{o.invoice_number}</dd>
              </dl>
              <InvoiceLinks invoice={invoices.get(o.id)} />
              {o.status === "pending" && o.billing_reason === "subscription_cycle" && <PayNow order={o} token={token} onError={onError} onPaid={() => onPaid(o.id)} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function InvoiceLinks({ invoice }: { invoice: OrderInvoice | undefined }) {
  if (!invoice) return null;
  return (
    <ul className="downloads" aria-label="Invoices">
      <li>
        <a href={invoice.url} download={`invoice-${invoice.number}.pdf`}>
          Download invoice {invoice.number} (PDF)
        </a>
      </li>
      {invoice.credit_notes.map((n) => (
        <li key={n.id}>
          <a href={n.url} download={`credit-note-${n.number}.pdf`}>
            Download credit note {n.number} (PDF)
          </a>
        </li>
      ))}
    </ul>
  );
}

// ---- benefits -------------------------------------------------------------------------------------

function Benefits({ grants, keys, files }: { grants: PortalGrant[]; keys: Map<string, LicenseKey>; files: Map<string, Downloadable[]> }) {
  const [message, setMessage] = useState<Message | undefined>();
  return (
    <section aria-labelledby="benefits-heading">
      <h2 id="benefits-heading">Benefits</h2>
      {grants.length === 0 ? (
        <p className="empty">You have no benefits.</p>
      ) : (
        <ul className="items">
          {grants.map((g) => {
            const keyId = typeof g.properties.license_key_id === "string" ? g.properties.license_key_id : null;
            const key = keyId ? keys.get(keyId) : undefined;
            const note = g.benefit.type === "custom" && typeof g.benefit.properties.note === "string" ? g.benefit.properties.note : null;
            return (
              <li key={g.id} className="item">
                <h3>{g.benefit.description}</h3>
                {g.is_revoked ? (
                  <p className="empty">No longer granted.</p>
                ) : !g.is_granted ? (
                  <p className="empty">Being set up. Reload this page in a moment.</p>
                ) : null}
                <GrantDelivery grant={g} />
                {key && <LicenseKeyView licenseKey={key} say={setMessage} />}
                {note && g.is_granted && <p className="note">{note}</p>}
                {g.is_granted && (files.get(g.benefit_id) ?? []).length > 0 && (
                  <ul className="downloads" aria-label={`Files of ${g.benefit.description}`}>
                    {(files.get(g.benefit_id) ?? []).map((d) => (
                      <li key={d.id}>
                        <a href={d.file.download.url} download={d.file.name}>
                          Download {d.file.name}
                        </a>{" "}
                        <span className="hint">({d.file.size_readable})</span>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <Status tone={message?.tone}>{message?.text}</Status>
    </section>
  );
}

function LicenseKeyView({ licenseKey: k, say }: { licenseKey: LicenseKey; say: (m: Message) => void }) {
  const keyId = useId();
  const codeRef = useRef<HTMLElement>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(k.key);
      say({ tone: "success", text: "License key copied." });
    } catch {
      // no clipboard (an insecure origin, or refused): select the key for the customer to copy
      const range = document.createRange();
      if (codeRef.current) range.selectNodeContents(codeRef.current);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
      say({ tone: "error", text: "Could not copy. The key is selected: copy it with your keyboard or menu." });
    }
  }
  const activations = k.activations?.length ?? 0;
  return (
    <>
      <p className="license-key">
        <span id={keyId} className="visually-hidden">
          License key
        </span>
        <code ref={codeRef} aria-labelledby={keyId} data-testid="license-key">
          {k.key}
        </code>
        <button type="button" onClick={() => void copy()} aria-describedby={keyId}>
          Copy
        </button>
      </p>
      <dl className="facts">
        <dt>Status</dt>
        <dd>{KEY_STATUS[k.status] ?? k.status}</dd>
        <dt>Expires</dt>
        <dd>{k.expires_at ? formatDate(k.expires_at) : "Never"}</dd>
        <dt>Activations</dt>
        <dd>{k.limit_activations ? `${activations} of ${k.limit_activations} used` : `${activations} (no limit)`}</dd>
        {k.limit_usage !== null && (
          <>
            <dt>Usage</dt>
            <dd>
              {k.usage} of {k.limit_usage}
            </dd>
          </>
        )}
      </dl>
      {k.activations && k.activations.length > 0 && (
        <>
          <h4>Activated on</h4>
          <ul className="activations">
            {k.activations.map((a) => (
              <li key={a.id}>{a.label}</li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

// ---- billing details ------------------------------------------------------------------------------

type AddressKey = "line1" | "line2" | "city" | "postal_code" | "state";
const ADDRESS_FIELDS: { key: AddressKey; label: string; autoComplete: string; maxLength: number }[] = [
  { key: "line1", label: "Address line 1", autoComplete: "address-line1", maxLength: 255 },
  { key: "line2", label: "Address line 2", autoComplete: "address-line2", maxLength: 255 },
  { key: "city", label: "City", autoComplete: "address-level2", maxLength: 255 },
  { key: "postal_code", label: "Postal code", autoComplete: "postal-code", maxLength: 32 },
  { key: "state", label: "State / Province", autoComplete: "address-level1", maxLength: 255 },
];

interface BillingForm {
  name: string;
  country: string;
  line1: string;
  line2: string;
  city: string;
  postal_code: string;
  state: string;
  taxId: string;
}

function formOf(me: PortalCustomer): BillingForm {
  const a = me.billing_address;
  return {
    name: me.billing_name ?? "",
    country: a?.country ?? "",
    line1: a?.line1 ?? "",
    line2: a?.line2 ?? "",
    city: a?.city ?? "",
    postal_code: a?.postal_code ?? "",
    state: a?.state ?? "",
    taxId: me.tax_id?.[0] ?? "",
  };
}

/** The 422's field paths ("billing_address.country", "tax_id") to the form's fields. */
function fieldErrors(fields: Record<string, string>): Partial<Record<keyof BillingForm, string>> {
  const out: Partial<Record<keyof BillingForm, string>> = {};
  for (const [path, msg] of Object.entries(fields)) {
    const key: keyof BillingForm | undefined =
      path === "billing_name"
        ? "name"
        : path === "tax_id"
          ? "taxId"
          : path === "billing_address" || path === "billing_address.country"
            ? "country"
            : path.startsWith("billing_address.")
              ? (ADDRESS_FIELDS.find((f) => `billing_address.${f.key}` === path)?.key ?? "country")
              : undefined;
    if (key && !out[key]) out[key] = msg;
  }
  return out;
}

function Billing({ me, token, onError, onSaved }: { me: PortalCustomer; token: string; onError: OnError; onSaved: (me: PortalCustomer) => void }) {
  const countries = useMemo(countryOptions, []);
  const [form, setForm] = useState<BillingForm>(() => formOf(me));
  const [errors, setErrors] = useState<Partial<Record<keyof BillingForm, string>>>({});
  const [message, setMessage] = useState<Message | undefined>();
  const [busy, setBusy] = useState(false);
  const [rejected, setRejected] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const set = (key: keyof BillingForm) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  const hadAddress = me.billing_address !== null;

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const text = (v: string) => v.trim() || null;
    const address: Address | undefined = form.country
      ? {
          country: form.country,
          line1: text(form.line1),
          line2: text(form.line2),
          city: text(form.city),
          postal_code: text(form.postal_code),
          state: text(form.state),
        }
      : undefined;
    setBusy(true);
    setErrors({});
    setMessage({ tone: "info", text: "Saving your billing details…" });
    const r = await portalApi.updateMe(token, { billing_name: text(form.name), billing_address: address, tax_id: text(form.taxId) });
    setBusy(false);
    if (r.ok) {
      onSaved(r.data);
      setForm(formOf(r.data));
      setMessage({ tone: "success", text: "Your billing details are saved." });
      return;
    }
    const text422 = onError(r.error);
    const byField = fieldErrors(r.error.fields);
    setErrors(byField);
    const fieldCount = Object.keys(byField).length;
    setMessage({ tone: "error", text: fieldCount > 0 ? "Your billing details are not saved: check the fields marked below." : text422 });
    if (fieldCount > 0) setRejected((n) => n + 1);
  }

  // after a 422, focus moves to the first field to fix (once React has marked it)
  useEffect(() => {
    if (rejected > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [rejected]);

  return (
    <section aria-labelledby="billing-heading">
      <h2 id="billing-heading">Billing details</h2>
      <p className="hint">Used on your next invoices and receipts.</p>
      <form ref={formRef} onSubmit={(e) => void onSubmit(e)} aria-labelledby="billing-heading" noValidate>
        <Field label="Billing name" name="billing_name" autoComplete="name" maxLength={256} value={form.name} error={errors.name} onChange={(e) => set("name")(e.target.value)} />
        <SelectField label="Country" name="country" autoComplete="country" value={form.country} error={errors.country} onChange={set("country")}>
          {!hadAddress && <option value="">No billing address</option>}
          {form.country && !countries.some((c) => c.code === form.country) && <option value={form.country}>{form.country}</option>}
          {countries.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </SelectField>
        {ADDRESS_FIELDS.map((f) => (
          <Field
            key={f.key}
            label={f.label}
            name={f.key}
            autoComplete={f.autoComplete}
            maxLength={f.maxLength}
            value={form[f.key]}
            error={errors[f.key]}
            disabled={!form.country}
            onChange={(e) => set(f.key)(e.target.value)}
          />
        ))}
        <Field
          label="Tax ID"
          name="tax_id"
          maxLength={64}
          value={form.taxId}
          error={errors.taxId}
          hint="For a business: its VAT or tax number, checked against the country."
          onChange={(e) => set("taxId")(e.target.value)}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Save billing details
          </button>
        </div>
      </form>
      <Status tone={message?.tone}>{message?.text}</Status>
    </section>
  );
}

// ---- fields this page has beyond ui.tsx's -------------------------------------------------------------

function SelectField({
  label,
  name,
  value,
  required,
  autoComplete,
  error,
  onChange,
  selectRef,
  children,
}: {
  label: string;
  name: string;
  value?: string;
  required?: boolean;
  autoComplete?: string;
  error?: string;
  onChange?: (value: string) => void;
  selectRef?: Ref<HTMLSelectElement>;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        ref={selectRef}
        name={name}
        value={value}
        required={required}
        autoComplete={autoComplete}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={onChange ? (e) => onChange(e.target.value) : undefined}
      >
        {children}
      </select>
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

function TextArea({ label, name, maxLength }: { label: string; name: string; maxLength?: number }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>
        {label} <span className="optional">(optional)</span>
      </label>
      <textarea id={id} name={name} maxLength={maxLength} rows={3} />
    </div>
  );
}
