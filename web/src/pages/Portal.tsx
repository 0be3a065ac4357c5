// /portal: the customer portal. A seller's customer session link (?customer_session_token=till_cst_…, from
// POST /v1/customer-sessions/ or the checkout's success view) opens it; the token is kept in sessionStorage
// and taken out of the address bar at once. One page: the customer's subscriptions (cancel with a reason,
// keep), orders, benefits (license keys whole, with a Copy button and their activations; a custom benefit's
// note) and billing details (name, address, tax id; a 422's messages next to their fields). Without a token,
// or once the session expired (any 401), it says so and leads back to the seller when the session named a
// return URL. ?organization={slug} (the link of the sign-in code email) asks for the customer's email, has a
// one-time code mailed and trades it for a session. This file holds the page's states, its loading and the
// composition; each section is a Portal*.tsx of its own.
import { useCallback, useEffect, useState } from "react";
import { RawIntlProvider, type IntlShape } from "react-intl";
import { portalCatalogs } from "../i18n/portal/index.js";
import { applyLocale, pageLocale, rich, t, timeText } from "../i18n/intl.js";
import {
  portalApi,
  type Downloadable,
  type LicenseKey,
  type OrderInvoice,
  type PortalCustomer,
  type PortalError,
  type PortalGrant,
  type PortalOrder,
  type PortalSubscription,
} from "../portal-api.js";
import { forgetSessionToken, keepSessionToken, rememberReturnUrl, rememberSeller, storedReturnUrl, storedSeller, takeEmailUpdateToken, takeSessionToken } from "../portal-session.js";
import { Accounts } from "./PortalAccounts.js";
import { PaymentMethods } from "./PortalPayments.js";
import { Benefits } from "./PortalBenefits.js";
import { Billing } from "./PortalBilling.js";
import { Orders } from "./PortalOrders.js";
import { SignIn } from "./PortalSignIn.js";
import { Subscriptions } from "./PortalSubscriptions.js";
import { Wallets } from "./PortalWallet.js";
import { Members } from "./PortalMembers.js";
import { managesBilling, membersApi, type PortalUser } from "../portal-members-api.js";
import type { OnError } from "./PortalCommon.js";
import { Page, Status, useFocusHeading } from "../ui.js";
import "./portal.css";

interface Data {
  me: PortalCustomer;
  /** Who signed in: the customer, or a team's member with a role (a plain member sees no billing). */
  user: PortalUser | null;
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

// ---- formatting -----------------------------------------------------------------------------------


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
  const user = await membersApi.user(token);
  if (!user.ok) return user;
  const billing = managesBilling(user.data);
  const none = { ok: true as const, data: [] };
  const [me, subscriptions, orders, grants, keyList, downloadables] = await Promise.all([
    portalApi.me(token),
    billing ? portalApi.subscriptions(token) : none,
    billing ? portalApi.orders(token) : none,
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
      user: user.data,
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

/** The portal in the buyer's language (their browser's; web/src/i18n), once its catalog is loaded. */
export function PortalPage() {
  const [messages, setMessages] = useState<IntlShape | null>(null);
  useEffect(() => {
    void applyLocale(portalCatalogs, pageLocale({})).then(setMessages);
  }, []);
  return messages ? (
    <RawIntlProvider value={messages}>
      <PortalStates />
    </RawIntlProvider>
  ) : null;
}

function PortalStates() {
  // an email update link: confirmed first, and its answer is the session to show
  const [emailUpdate] = useState(takeEmailUpdateToken);
  const [token, setToken] = useState(() => (emailUpdate ? null : takeSessionToken()));
  const [state, setState] = useState<State>(() => {
    if (token || emailUpdate) return { kind: "loading" };
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

  useEffect(() => {
    if (!emailUpdate) return;
    void portalApi.verifyEmailUpdate(emailUpdate).then((r) => {
      if (!r.ok) return setState({ kind: "failed", message: r.error.message });
      keepSessionToken(r.data.token);
      setToken(r.data.token);
    });
  }, [emailUpdate]);

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
        <Page title={t("portal.title")} className="portal">
          <Status>{t("portal.loading")}</Status>
        </Page>
      );
    case "failed":
      return (
        <Page title={t("portal.title")} className="portal">
          <Status tone="error">{state.message}</Status>
          {/* a spent email update link has no session to load again */}
          {token && (
            <div className="actions">
              <button type="button" className="primary" onClick={() => void reload()}>
                {t("portal.tryAgain")}
              </button>
            </div>
          )}
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
      {t("portal.backTo", { seller: seller ?? new URL(returnUrl).host })}
    </a>
  );
}

function Expired({ returnUrl }: { returnUrl: string | null }) {
  const seller = storedSeller();
  return (
    <Page title={t("expired.title")} className="portal" brand={seller?.name}>
      <Status tone="error">{t("expired.status")}</Status>
      <p>{t("expired.lead")}</p>
      <div className="actions">
        {seller && (
          <a className="button primary" href={`/portal?organization=${encodeURIComponent(seller.slug)}`}>
            {t("expired.newCode")}
          </a>
        )}
        {returnUrl ? (
          <BackLink returnUrl={returnUrl} seller={seller?.name} />
        ) : (
          <button type="button" onClick={() => window.history.back()}>
            {t("expired.goBack")}
          </button>
        )}
      </div>
    </Page>
  );
}

/** Applies a change to the page's data (functional, so two answers arriving together both count). */
type OnChange = (change: (data: Data) => Partial<Data>) => void;

function Portal({ data, token, onError, onChange }: { data: Data; token: string; onError: OnError; onChange: OnChange }) {
  const seller = sellerOf(data)?.name ?? null;
  const expires = new Date(data.expiresAt);
  // bumped when a past-due order's payment saved a new card (paid or not): the saved cards are read again
  const [cardsVersion, setCardsVersion] = useState(0);
  // a team's plain member: the benefits only (orders, plans, cards, wallet and billing details are the managers')
  const billing = managesBilling(data.user);
  return (
    <Page title={t("portal.title")} className="portal" brand={seller}>
      <p className="lead">
        {rich(seller ? "portal.leadFrom" : "portal.leadFor", {
          seller,
          email: data.user?.type === "member" ? data.user.email : data.me.email,
          time: timeText(expires),
          b: (chunks) => <strong>{chunks}</strong>,
        })}
      </p>
      {data.returnUrl && (
        <nav aria-label={t("portal.sellerNav")} className="actions">
          <BackLink returnUrl={data.returnUrl} seller={seller} />
        </nav>
      )}
      {data.user?.type === "member" && billing && (
        <Members
          user={data.user}
          token={token}
          onError={onError}
          onUserChanged={() => void membersApi.user(token).then((r) => r.ok && onChange(() => ({ user: r.data })))}
        />
      )}
      {billing && (
        <>
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
              setCardsVersion((n) => n + 1);
              onChange((d) => ({ orders: d.orders.map((o) => (o.id === id ? { ...o, status: "paid" } : o)) }));
              void portalApi.subscriptions(token).then((r) => r.ok && onChange(() => ({ subscriptions: r.data })));
            }}
            onCardsChanged={() => setCardsVersion((n) => n + 1)}
          />
          <PaymentMethods token={token} onError={onError} version={cardsVersion} />
          <Wallets token={token} onError={onError} />
        </>
      )}
      <Accounts me={data.me} grants={data.grants} token={token} onError={onError} onChanged={(me) => onChange(() => ({ me }))} />
      <Benefits grants={data.grants} keys={data.keys} files={data.files} />
      {billing && <Billing me={data.me} token={token} onError={onError} onSaved={(me) => onChange(() => ({ me }))} />}
    </Page>
  );
}
