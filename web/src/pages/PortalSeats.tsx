// The seats of a seat-based subscription in the customer portal: who holds each (invited or claimed), how many
// are free, a form to give one to someone by email (an invitation is mailed), and per seat: send the
// invitation again, or take the seat back.
import { useEffect, useState, type FormEvent } from "react";
import { portalApi, type PortalError, type Seat, type SeatsList } from "../portal-api.js";
import { t } from "../i18n/intl.js";
import { Field, type Tone } from "../ui.js";
import { formatDate } from "./PortalCommon.js";

function seatState(s: Seat): string {
  if (s.status === "claimed") return t("seats.claimed", { date: formatDate(s.claimed_at) });
  return t("seats.invited", { date: formatDate(s.invitation_token_expires_at) });
}

export function PortalSeats({
  subscriptionId,
  productName,
  token,
  onError,
  say,
}: {
  subscriptionId: string;
  productName: string;
  token: string;
  onError: (error: PortalError) => string;
  say: (m: { tone: Tone; text: string } | undefined) => void;
}) {
  const [list, setList] = useState<SeatsList | null>(null);
  const [busy, setBusy] = useState(false);
  const [emailError, setEmailError] = useState<string | undefined>();

  useEffect(() => {
    void portalApi.seats(token, subscriptionId).then((r) => (r.ok ? setList(r.data) : say({ tone: "error", text: onError(r.error) })));
  }, [token, subscriptionId, onError, say]);

  async function refresh() {
    const r = await portalApi.seats(token, subscriptionId);
    if (r.ok) setList(r.data);
  }

  async function onAssign(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const email = String(new FormData(form).get("email") ?? "").trim();
    setBusy(true);
    setEmailError(undefined);
    say({ tone: "info", text: t("seats.inviting", { email }) });
    const r = await portalApi.assignSeat(token, subscriptionId, email);
    setBusy(false);
    if (!r.ok) {
      setEmailError(r.error.fields.email ?? r.error.fields.subscription_id ?? r.error.message);
      return say({ tone: "error", text: onError(r.error) });
    }
    form.reset();
    await refresh();
    say({ tone: "success", text: t("seats.invitedOk", { email, product: productName }) });
  }

  async function act(seat: Seat, action: "revoke" | "resend") {
    const who = seat.customer_email ?? seat.email ?? "";
    setBusy(true);
    const r = action === "revoke" ? await portalApi.revokeSeat(token, seat.id) : await portalApi.resendSeat(token, seat.id);
    setBusy(false);
    if (!r.ok) return say({ tone: "error", text: onError(r.error) });
    await refresh();
    say({ tone: "success", text: t(action === "revoke" ? "seats.freed" : "seats.resent", { who }) });
  }

  if (!list) return null;
  const active = list.seats.filter((s) => s.status !== "revoked");
  return (
    <div className="seats">
      <h4>{t("seats.title")}</h4>
      <p>{t("seats.summary", { assigned: list.total_seats - list.available_seats, total: list.total_seats, free: list.available_seats })}</p>
      {active.length > 0 && (
        <ul className="seat-list">
          {active.map((s) => (
            <li key={s.id}>
              <span className="seat-who">{s.customer_email ?? s.email}</span> <span className="seat-state">{seatState(s)}</span>
              <span className="actions">
                {s.status === "pending" && (
                  <button type="button" onClick={() => void act(s, "resend")} disabled={busy} aria-label={t("seats.resendLabel", { email: s.email ?? "" })}>
                    {t("seats.resend")}
                  </button>
                )}
                <button type="button" className="danger" onClick={() => void act(s, "revoke")} disabled={busy} aria-label={t("seats.takeBackLabel", { email: s.customer_email ?? s.email ?? "" })}>
                  {t("seats.takeBack")}
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {list.available_seats > 0 && (
        <form onSubmit={(e) => void onAssign(e)} aria-label={t("seats.giveForm", { product: productName })} className="assign-seat">
          <Field label={t("seats.giveEmail")} name="email" type="email" required autoComplete="off" maxLength={320} error={emailError} />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy}>
              {t("seats.send")}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
