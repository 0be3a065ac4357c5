// The customer's subscriptions in the portal: each with its price, status and renewal or end date, this period's
// metered usage and its seats (PortalSeats); cancel one (a reason, a comment) or keep one that is ending.
import { useEffect, useRef, useState, type FormEvent } from "react";
import { money as formatMoney } from "../i18n/intl.js";
import { CANCELLATION_REASONS, portalApi, type CancellationReason, type PortalSubscription } from "../portal-api.js";
import { Markdown } from "../markdown.js";
import { Status } from "../ui.js";
import { PortalSeats } from "./PortalSeats.js";
import { Usage } from "./PortalUsage.js";
import { formatDate, ListSection, SelectField, TextArea, type Message, type OnError } from "./PortalCommon.js";

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

const isLive = (s: PortalSubscription) => s.status === "active" || s.status === "trialing" || s.status === "past_due";

export function Subscriptions({
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
    <ListSection
      id="subscriptions"
      title="Subscriptions"
      empty="You have no subscriptions."
      items={subscriptions}
      item={(s) => <SubscriptionItem key={s.id} subscription={s} token={token} onError={onError} onChange={onChange} say={setMessage} />}
    >
      <Status tone={message?.tone}>{message?.text}</Status>
    </ListSection>
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
