// The portal's usage view of a subscription: this period's usage of each meter (consumed, credited, billed, the
// amount so far), then, for a meter with credits, a cap or tiers, the usage against the credits (units) and the
// amount against the cap (money) with a gauge each, and the tiers as the invoice will bill them (shared/tiers.ts's
// arithmetic, worded in the page's language by i18n/tiers.ts).
import { money as formatMoney, numberText, t, type MessageId } from "../i18n/intl.js";
import { tiersText, unitOf } from "../i18n/tiers.js";
import type { PortalSubscription, PortalSubscriptionMeter } from "../portal-api.js";

/** "12,000 of 20,000 credited units used", with a gauge; "(reached)" at the limit. */
function Against({ value, limit, text, message, label }: { value: number; limit: number; text: (n: number) => string; message: MessageId; label: string }) {
  const reached = value >= limit;
  return (
    <span className={reached ? "usage-reached" : undefined}>
      {t(message, { used: text(Math.min(value, limit)), limit: text(limit) })}
      {reached ? ` ${t("usage.reached")}` : ""} <meter min={0} max={limit} value={Math.min(value, limit)} aria-label={label} />
    </span>
  );
}

const priceOf = (s: PortalSubscription, m: PortalSubscriptionMeter) => (s.prices ?? []).find((p) => p.amount_type === "metered_unit" && p.meter?.id === m.meter_id);

/** Whether the meter's usage has something to be measured against (credits, a cap) or tiers to show. */
const hasLimits = (s: PortalSubscription, m: PortalSubscriptionMeter) => {
  const price = priceOf(s, m);
  return m.credited_units > 0 || typeof price?.cap_amount === "number" || Boolean(price?.unit_tiers);
};

function Limits({ meter: m, subscription: s }: { meter: PortalSubscriptionMeter; subscription: PortalSubscription }) {
  const price = priceOf(s, m);
  const cap = typeof price?.cap_amount === "number" ? price.cap_amount : null;
  const tiers = price?.unit_tiers ?? null;
  const money = (n: number) => formatMoney(n, s.currency);
  const parts = [
    m.credited_units > 0 && (
      <Against key="credits" value={m.consumed_units} limit={m.credited_units} text={numberText} message="usage.creditsUsed" label={t("usage.creditsGauge", { meter: m.meter.name })} />
    ),
    cap !== null && <Against key="cap" value={m.amount} limit={cap} text={money} message="usage.capSpent" label={t("usage.capGauge", { meter: m.meter.name })} />,
    cap !== null && m.amount >= cap && <span key="beyond">{t("usage.beyondCap")}</span>,
    tiers && <span key="tiers">{tiersText(tiers, s.currency, unitOf(m.meter.name))}</span>,
  ].filter(Boolean);
  return (
    <li>
      <strong>{m.meter.name}</strong>:{" "}
      {parts.map((p, i) => (
        <span key={i}>
          {i > 0 ? "; " : ""}
          {p}
        </span>
      ))}
    </li>
  );
}

/**
 * The current period's usage of each meter: consumed, credited (meter credits) and billed units, and the amount so far.
 */
export function Usage({ subscription: s }: { subscription: PortalSubscription }) {
  const meters = s.meters ?? [];
  return (
    <>
      <table className="usage" aria-label={t("usage.table", { product: s.product.name })}>
        <thead>
          <tr>
            <th scope="col">{t("usage.meter")}</th>
            <th scope="col">{t("usage.consumed")}</th>
            <th scope="col">{t("usage.credited")}</th>
            <th scope="col">{t("usage.billed")}</th>
            <th scope="col">{t("usage.amountSoFar")}</th>
          </tr>
        </thead>
        <tbody>
          {meters.map((m) => (
            <tr key={m.id}>
              <th scope="row">{m.meter.name}</th>
              <td>{numberText(m.consumed_units)}</td>
              <td>{numberText(m.credited_units)}</td>
              <td>{numberText(Math.max(0, m.consumed_units - m.credited_units))}</td>
              <td>{formatMoney(m.amount, s.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {meters.some((m) => hasLimits(s, m)) && (
        <ul className="usage-limits hint" aria-label={t("usage.limits", { product: s.product.name })}>
          {meters
            .filter((m) => hasLimits(s, m))
            .map((m) => (
              <Limits key={m.id} meter={m} subscription={s} />
            ))}
        </ul>
      )}
    </>
  );
}
