// The customer's wallets in the portal (issue 29 §3): each wallet's balance, its recent history (top-ups,
// credits bought, orders it paid, refunds), links to buy credits (the seller's checkout links for credit
// products) and auto-recharge on or off (below a threshold, the saved card is charged a chosen amount). Shown
// only when the customer has a wallet or the seller sells credits.
import { useEffect, useState, type FormEvent } from "react";
import { money as formatMoney } from "../i18n/intl.js";
import { portalApi, type AutoRecharge, type CreditOffer, type Wallet, type WalletTransaction } from "../portal-api.js";
import { Field, Status, type Tone } from "../ui.js";
import { formatDate, type OnError } from "./PortalCommon.js";

/** "12.50" in the wallet's currency → 1250 minor units (two decimals; the server checks the bounds). */
const minorOf = (text: string) => Math.round(Number(text.replace(",", ".")) * 100);

function WalletItem({ wallet: w, token, onError }: { wallet: Wallet; token: string; onError: OnError }) {
  const [history, setHistory] = useState<WalletTransaction[]>([]);
  const [recharge, setRecharge] = useState<AutoRecharge | null>(null);
  const [message, say] = useState<{ tone: Tone; text: string } | undefined>();
  const money = (n: number) => formatMoney(n, w.currency);
  useEffect(() => {
    void portalApi.walletHistory(token, w.id).then((r) => r.ok && setHistory(r.data.items));
    void portalApi.autoRecharge(token, w.id).then((r) => r.ok && setRecharge(r.data));
  }, [token, w.id]);

  async function save(e: FormEvent<HTMLFormElement>, enabled: boolean) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const body = enabled ? { enabled, threshold_amount: minorOf(String(data.get("threshold"))), amount: minorOf(String(data.get("amount"))) } : { enabled };
    const r = await portalApi.setAutoRecharge(token, w.id, body);
    if (r.ok) {
      setRecharge(r.data);
      say({ tone: "success", text: enabled ? "Auto-recharge is on." : "Auto-recharge is off." });
    } else say({ tone: "error", text: onError(r.error) });
  }

  return (
    <li className="item">
      <h3>Wallet ({w.currency.toUpperCase()})</h3>
      <p>
        Balance: <strong>{money(w.balance)}</strong>
      </p>
      <ul className="wallet-history" aria-label={`History of the ${w.currency.toUpperCase()} wallet`}>
        {history.map((t) => (
          <li key={t.id}>
            {formatDate(t.created_at)}: {t.description} {t.amount > 0 ? "+" : ""}
            {money(t.amount)}
          </li>
        ))}
      </ul>
      {recharge && (
        <form aria-label="Auto-recharge" onSubmit={(e) => void save(e, !recharge.enabled)}>
          <p>
            {recharge.enabled
              ? `Auto-recharge is on: below ${money(recharge.threshold_amount)}, your card is charged ${money(recharge.amount)}.`
              : "Auto-recharge is off."}
            {recharge.blocked_at ? " It is paused: your card was declined. Save a new card to resume it." : ""}
          </p>
          {!recharge.enabled && (
            <>
              <Field label="When the balance is below" name="threshold" id={`threshold-${w.id}`} inputMode="decimal" defaultValue={(recharge.threshold_amount / 100).toFixed(2)} required />
              <Field label="Charge my card" name="amount" id={`amount-${w.id}`} inputMode="decimal" defaultValue={((recharge.amount || 2000) / 100).toFixed(2)} required />
            </>
          )}
          <button type="submit">{recharge.enabled ? "Turn auto-recharge off" : "Turn auto-recharge on"}</button>
        </form>
      )}
      {message && <Status tone={message.tone}>{message.text}</Status>}
    </li>
  );
}

export function Wallets({ token, onError }: { token: string; onError: OnError }) {
  const [wallets, setWallets] = useState<Wallet[]>([]);
  const [offers, setOffers] = useState<CreditOffer[]>([]);
  useEffect(() => {
    void portalApi.wallets(token).then((r) => r.ok && setWallets(r.data));
    void portalApi.creditOffers(token).then((r) => r.ok && setOffers(r.data));
  }, [token]);
  if (wallets.length === 0 && offers.length === 0) return null;
  return (
    <section aria-labelledby="wallets-heading">
      <h2 id="wallets-heading">Wallet</h2>
      {wallets.length === 0 ? <p className="empty">You have no credits yet.</p> : null}
      <ul className="items">
        {wallets.map((w) => (
          <WalletItem key={w.id} wallet={w} token={token} onError={onError} />
        ))}
      </ul>
      {offers.length > 0 && (
        <nav aria-label="Buy credits" className="actions">
          {offers.map((o) => (
            <a key={o.checkout_link_id} className="button" href={o.url}>
              Buy credits: {o.name}
            </a>
          ))}
        </nav>
      )}
    </section>
  );
}
