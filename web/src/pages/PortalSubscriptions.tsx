// The customer's subscriptions in the portal: each with its price, status and renewal or end date, this period's
// metered usage, its seats (PortalSeats) and its add-ons (PortalAddOns); change its plan, seats or add-ons after a
// preview (PortalChange); cancel one (a reason, a comment) or keep one that is ending.
import { useEffect, useRef, useState, type FormEvent } from "react";
import { money as formatMoney, t } from "../i18n/intl.js";
import { CANCELLATION_REASONS, portalApi, type CancellationReason, type PortalSubscription } from "../portal-api.js";
import { Markdown } from "../markdown.js";
import { Status } from "../ui.js";
import { AddOnFacts, PendingAddOns } from "./PortalAddOns.js";
import { PortalChange } from "./PortalChange.js";
import { PortalSeats } from "./PortalSeats.js";
import { Usage } from "./PortalUsage.js";
import { formatDate, ListSection, SelectField, statusText, TextArea, type Message, type OnError } from "./PortalCommon.js";

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
      title={t("subs.title")}
      empty={t("subs.empty")}
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
    say({ tone: "info", text: t("subs.cancelling", { name }) });
    const r = await portalApi.cancel(token, s.id, reason, comment || null);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    setAsking(false);
    onChange(r.data);
    say({ tone: "success", text: t("subs.cancelled", { name, date: formatDate(r.data.ends_at ?? r.data.current_period_end) }) });
  }

  async function onKeep() {
    setBusy(true);
    say({ tone: "info", text: t("subs.keeping", { name }) });
    const r = await portalApi.uncancel(token, s.id);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    onChange(r.data);
    say({ tone: "success", text: t("subs.willRenew", { name, date: formatDate(r.data.current_period_end) }) });
  }

  const live = isLive(s);
  return (
    <li className="item">
      <h3>{name}</h3>
      {s.product.description && <Markdown source={s.product.description} className="product-description" />}
      <SubscriptionFacts subscription={s} live={live} />
      {live && <PendingAddOns subscription={s} />}
      {live && s.meters && s.meters.length > 0 && <Usage subscription={s} />}
      {live && s.seats != null && <PortalSeats subscriptionId={s.id} productName={name} token={token} onError={onError} say={say} />}
      {live && s.cancel_at_period_end && (
        <div className="actions">
          <button type="button" className="primary" onClick={() => void onKeep()} disabled={busy}>
            {t("subs.keep")}
          </button>
        </div>
      )}
      {live && !s.cancel_at_period_end && !asking && <PortalChange subscription={s} token={token} onError={onError} onChange={onChange} say={say} />}
      {live && !s.cancel_at_period_end && !asking && (
        <div className="actions">
          <button type="button" className="danger" onClick={() => setAsking(true)}>
            {t("subs.cancel")}
          </button>
        </div>
      )}
      {live && !s.cancel_at_period_end && asking && (
        <form onSubmit={(e) => void onCancel(e)} aria-label={t("subs.cancelForm", { name })} className="cancel">
          <p>{t("subs.cancelLead", { name, date: formatDate(s.current_period_end) })}</p>
          <SelectField label={t("subs.why")} name="reason" required selectRef={reasonRef}>
            <option value="">{t("subs.chooseReason")}</option>
            {CANCELLATION_REASONS.map((reason) => (
              <option key={reason} value={reason}>
                {t(`subs.reason.${reason}`)}
              </option>
            ))}
          </SelectField>
          <TextArea label={t("subs.comment")} name="comment" maxLength={10_000} />
          <div className="actions">
            <button type="submit" className="danger" disabled={busy}>
              {t("subs.confirmCancel")}
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setAsking(false);
                say(undefined);
              }}
            >
              {t("subs.dontCancel")}
            </button>
          </div>
        </form>
      )}
    </li>
  );
}

/** A subscription's price and status, and the date it renews, ends or ended on. */
function SubscriptionFacts({ subscription: s, live }: { subscription: PortalSubscription; live: boolean }) {
  return (
    <dl className="facts">
      <dt>{t("facts.price")}</dt>
      <dd>{t("subs.price", { amount: formatMoney(s.amount, s.currency), interval: s.recurring_interval, count: s.recurring_interval_count ?? 1 })}</dd>
      <dt>{t("facts.status")}</dt>
      <dd>{live && s.cancel_at_period_end ? t("subs.cancelledActive") : statusText("subs.status", s.status)}</dd>
      {live && <AddOnFacts subscription={s} />}
      {live && !s.cancel_at_period_end && s.current_period_end && (
        <>
          <dt>{t("subs.renewsOn")}</dt>
          <dd>{formatDate(s.current_period_end)}</dd>
        </>
      )}
      {live && s.cancel_at_period_end && (
        <>
          <dt>{t("subs.endsOn")}</dt>
          <dd>{formatDate(s.ends_at ?? s.current_period_end)}</dd>
        </>
      )}
      {!live && s.ended_at && (
        <>
          <dt>{t("subs.endedOn")}</dt>
          <dd>{formatDate(s.ended_at)}</dd>
        </>
      )}
    </dl>
  );
}
