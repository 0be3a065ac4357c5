// The customer's wallets in the portal: each wallet's balance, its recent history (top-ups,
// credits bought, orders it paid, refunds), links to buy credits (the seller's checkout links for credit
// products) and auto-recharge on or off (below a threshold, the saved card is charged a chosen amount). Shown
// only when the customer has a wallet or the seller sells credits.
import { useEffect, useState, type FormEvent } from "react";
import { intl, money as formatMoney, rich, t } from "../i18n/intl.js";
import { portalApi, type AutoRecharge, type CreditOffer, type Wallet, type WalletTransaction } from "../portal-api.js";
import { Field, Status, type Tone } from "../ui.js";
import { formatDate, type OnError } from "./PortalCommon.js";

/** "12.50" (or "12,50") in the wallet's currency → 1250 minor units (two decimals; the server checks the bounds). */
const minorOf = (text: string) => Math.round(Number(text.replace(",", ".")) * 100);
/** 1250 → "12.50" / "12,50" as the locale writes it in a field (no grouping: minorOf reads it back). */
const fieldAmount = (minor: number) => intl().formatNumber(minor / 100, { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: false });

const SYSTEM_TYPES = ["top_up", "auto_recharge", "credit_purchase", "order_payment", "refund", "proration_credit"] as const;
/**
 * A history line's words: till's own movements by their type in the page's language; usage with its product's
 * name (the movement's `product_name`, not its English description); an adjustment as the seller wrote its reason.
 */
function describeMovement(m: WalletTransaction): string {
  const type = SYSTEM_TYPES.find((x) => x === m.type);
  if (type) return t(`wallet.type.${type}`);
  if (m.type === "usage" && m.product_name) return t("wallet.type.usage", { product: m.product_name });
  return m.description;
}

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
      say({ tone: "success", text: t(enabled ? "wallet.autoOn" : "wallet.autoOff") });
    } else say({ tone: "error", text: onError(r.error) });
  }

  return (
    <li className="item">
      <h3>{t("wallet.name", { currency: w.currency.toUpperCase() })}</h3>
      <p>{rich("wallet.balance", { amount: money(w.balance), b: (chunks) => <strong>{chunks}</strong> })}</p>
      <ul className="wallet-history" aria-label={t("wallet.history", { currency: w.currency.toUpperCase() })}>
        {history.map((m) => (
          <li key={m.id}>
            {t("wallet.entry", { date: formatDate(m.created_at), description: describeMovement(m), amount: `${m.amount > 0 ? "+" : ""}${money(m.amount)}` })}
          </li>
        ))}
      </ul>
      {recharge && (
        <form aria-label={t("wallet.autoRecharge")} onSubmit={(e) => void save(e, !recharge.enabled)}>
          <p>
            {recharge.enabled ? t("wallet.autoOnDetail", { threshold: money(recharge.threshold_amount), amount: money(recharge.amount) }) : t("wallet.autoOff")}
            {recharge.blocked_at ? ` ${t("wallet.paused")}` : ""}
          </p>
          {!recharge.enabled && (
            <>
              <Field label={t("wallet.threshold")} name="threshold" id={`threshold-${w.id}`} inputMode="decimal" defaultValue={fieldAmount(recharge.threshold_amount)} required />
              <Field label={t("wallet.charge")} name="amount" id={`amount-${w.id}`} inputMode="decimal" defaultValue={fieldAmount(recharge.amount || 2000)} required />
            </>
          )}
          <button type="submit">{t(recharge.enabled ? "wallet.turnOff" : "wallet.turnOn")}</button>
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
      <h2 id="wallets-heading">{t("wallet.title")}</h2>
      {wallets.length === 0 ? <p className="empty">{t("wallet.noCredits")}</p> : null}
      <ul className="items">
        {wallets.map((w) => (
          <WalletItem key={w.id} wallet={w} token={token} onError={onError} />
        ))}
      </ul>
      {offers.length > 0 && (
        <nav aria-label={t("wallet.buyNav")} className="actions">
          {offers.map((o) => (
            <a key={o.checkout_link_id} className="button" href={o.url}>
              {t("wallet.buy", { name: o.name })}
            </a>
          ))}
        </nav>
      )}
    </section>
  );
}
