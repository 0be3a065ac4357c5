// The success view (below the page's "was successful" status): what happened (the amount paid, or a trial's end and
// first charge), the order number, what the customer now has (benefits, license keys, downloads — read with the
// customer session the confirm made), the way on to the portal, and the receipt email only when the seller's settings
// send one.
import { useEffect, useState } from "react";
import { list, longDate as dateText, money as formatMoney, t } from "../i18n/intl.js";
import type { Checkout } from "../checkout-api.js";
import { portalApi, type Downloadable, type LicenseKey, type PortalGrant, type PortalOrder } from "../portal-api.js";
import { everyText } from "./model.js";
import { accountOf } from "../../../shared/kinds.js";
import { ACCOUNT_NAME } from "../kinds.js";

interface Purchase {
  order: PortalOrder | null;
  grants: PortalGrant[];
  keys: LicenseKey[];
  downloads: Downloadable[];
}

type OrderWithLinks = PortalOrder & { checkout_id?: string | null; subscription_id?: string | null };
type GrantWithLinks = PortalGrant & { order_id?: string | null; subscription_id?: string | null };

async function loadPurchase(token: string, checkoutId: string): Promise<Purchase | null> {
  const [orders, grants, keys, downloads] = await Promise.all([
    portalApi.orders(token),
    portalApi.grants(token),
    portalApi.licenseKeys(token),
    portalApi.downloadables(token),
  ]);
  if (!orders.ok) return null;
  const order = (orders.data as OrderWithLinks[]).find((o) => o.checkout_id === checkoutId) ?? null;
  const mine = (grants.ok ? (grants.data as GrantWithLinks[]) : []).filter(
    (g) => order !== null && (g.order_id === order.id || (order.subscription_id != null && g.subscription_id === order.subscription_id)),
  );
  const benefitIds = new Set(mine.map((g) => g.benefit_id));
  return {
    order,
    grants: mine,
    keys: (keys.ok ? keys.data : []).filter((k) => benefitIds.has(k.benefit_id)),
    downloads: (downloads.ok ? downloads.data : []).filter((d) => benefitIds.has(d.benefit_id)),
  };
}


export function Success(props: { checkout: Checkout; token: string | null; receiptEmail: string | null; embedded: boolean }) {
  const { checkout, token } = props;
  const [purchase, setPurchase] = useState<Purchase | null>(null);
  useEffect(() => {
    if (!token) return;
    let live = true;
    void loadPurchase(token, checkout.id).then((p) => live && setPurchase(p));
    return () => {
      live = false;
    };
  }, [token, checkout.id]);

  const c = checkout.currency;
  const product = checkout.product;
  const trialing = checkout.trial_end !== null && checkout.active_trial_interval !== null;
  const every = everyText(product?.recurring_interval, product?.recurring_interval_count);
  const order = purchase?.order ?? null;
  const paid = order?.total_amount ?? (trialing ? 0 : checkout.total_amount);
  const newTab = props.embedded ? { target: "_blank", rel: "noopener noreferrer" } : {};
  return (
    <>
      <dl className="receipt" data-testid="receipt">
        {trialing && checkout.trial_end ? (
          <>
            <dt>{t("success.trialUntil")}</dt>
            <dd>{dateText(checkout.trial_end)}</dd>
            <dt>{t("success.firstCharge")}</dt>
            <dd>{t("success.chargeOn", { price: `${formatMoney(checkout.total_amount, c)}${every}`, date: dateText(checkout.trial_end) })}</dd>
          </>
        ) : (
          <>
            <dt>{t("success.amountPaid")}</dt>
            <dd>{formatMoney(paid, c)}</dd>
          </>
        )}
        {order?.invoice_number && (
          <>
            <dt>{t("success.orderNumber")}</dt>
            <dd>{order.invoice_number}</dd>
          </>
        )}
        {checkout.seats !== null && (
          <>
            <dt>{t("label.seats")}</dt>
            <dd>{checkout.seats}</dd>
          </>
        )}
      </dl>
      {purchase && (purchase.grants.length > 0 || purchase.keys.length > 0) && (
        <section aria-labelledby="benefits-heading" className="benefits">
          <h2 id="benefits-heading">{t("success.benefits")}</h2>
          <ul data-testid="benefits">
            {purchase.grants.map((g) => (
              <li key={g.id}>{g.benefit.description}</li>
            ))}
          </ul>
          {purchase.keys.map((k) => (
            <p key={k.id} className="license-key">
              {t("success.licenseKey")} <code data-testid="license-key">{k.key}</code>
            </p>
          ))}
          {purchase.downloads.length > 0 && (
            <ul className="downloads" aria-label={t("success.downloads")}>
              {purchase.downloads.map((d) => (
                <li key={d.id}>
                  <a href={d.file.download.url} download>
                    {t("success.download", { name: d.file.name })}
                  </a>{" "}
                  ({d.file.size_readable})
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {token && purchase && <ConnectAccounts grants={purchase.grants} token={token} newTab={newTab} />}
      {props.receiptEmail && (
        <p className="lead" data-testid="receipt-email">
          {t("success.receipt", { email: props.receiptEmail })}
        </p>
      )}
      {token && (
        <p>
          <a className="button" href={`/portal?customer_session_token=${encodeURIComponent(token)}`} {...newTab}>
            {t("success.portal")}
          </a>
        </p>
      )}
    </>
  );
}


/** A repository or Discord benefit needs the customer's account: the portal connects it. */
function ConnectAccounts({ grants, token, newTab }: { grants: PortalGrant[]; token: string; newTab: { target?: string; rel?: string } }) {
  const needed = [...new Set(grants.flatMap((g) => {
    const account = accountOf(g.benefit.type);
    return account ? [ACCOUNT_NAME[account]] : [];
  }))];
  if (needed.length === 0) return null;
  return (
    <p className="lead" data-testid="connect-accounts">
      {t("success.connect", { count: needed.length, accounts: list(needed) })}{" "}
      <a href={`/portal?customer_session_token=${encodeURIComponent(token)}#connected-accounts`} {...newTab}>
        {t("success.connectLink", { count: needed.length })}
      </a>
      {t("success.connectEnd")}
    </p>
  );
}
