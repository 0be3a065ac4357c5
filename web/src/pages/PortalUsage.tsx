// The portal's usage view of a subscription: this period's usage of each meter (consumed, credited, billed, the
// amount so far), then, for a meter with credits, a cap or tiers, the usage against the credits (units) and the
// amount against the cap (money) with a gauge each, and the tiers as the invoice will bill them (shared/tiers.ts).
import { money as formatMoney, numberText } from "../i18n/intl.js";
import type { PortalSubscription, PortalSubscriptionMeter } from "../portal-api.js";
import { describeTiers } from "../../../shared/tiers.js";
import { unitName } from "../../../shared/meter-units.js";

const units = { format: numberText };

/** "12,000 of 20,000 credited units used", with a gauge; "(reached)" at the limit. */
function Against({ value, limit, text, what, label }: { value: number; limit: number; text: (n: number) => string; what: string; label: string }) {
  const reached = value >= limit;
  return (
    <span className={reached ? "usage-reached" : undefined}>
      {text(Math.min(value, limit))} of {text(limit)} {what}
      {reached ? " (reached)" : ""} <meter min={0} max={limit} value={Math.min(value, limit)} aria-label={label} />
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
      <Against key="credits" value={m.consumed_units} limit={m.credited_units} text={(n) => units.format(n)} what="credited units used" label={`${m.meter.name}: credits used`} />
    ),
    cap !== null && <Against key="cap" value={m.amount} limit={cap} text={money} what="spending cap" label={`${m.meter.name}: spending cap`} />,
    cap !== null && m.amount >= cap && <span key="beyond">usage beyond the cap is not billed this period</span>,
    tiers && <span key="tiers">{describeTiers(tiers, s.currency, unitName(m.meter.name))}</span>,
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

/** The current period's usage of each meter: consumed, credited (meter credits) and billed units, and the amount so far. */
export function Usage({ subscription: s }: { subscription: PortalSubscription }) {
  const meters = s.meters ?? [];
  return (
    <>
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
          {meters.map((m) => (
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
      {meters.some((m) => hasLimits(s, m)) && (
        <ul className="usage-limits hint" aria-label={`Limits of ${s.product.name} this period`}>
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
