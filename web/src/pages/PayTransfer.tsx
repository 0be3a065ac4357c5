// The pay page's bank transfer: the seller's Stripe account gives an account to send the money to and a reference; the
// page shows them (again when a transfer was started before) and waits for Stripe's word that the money arrived — a
// partial transfer shows what is left to send — then shows the order paid.
import { useEffect, useState } from "react";
import { money, t } from "../i18n/intl.js";
import type { MessageId } from "../i18n/intl.js";
import { payApi, type BankTransferAnswer } from "../pay/api.js";
import { Status } from "../ui.js";

/** How often the page asks whether the transfer arrived. */
const POLL_MS = 3_000;

type Instructions = NonNullable<BankTransferAnswer["instructions"]>;

const detailLabel = (name: string) => {
  const id = `pay.transferDetail.${name}` as MessageId;
  const said = t(id);
  // a detail the catalog has no word for (Stripe may add some) is shown under its own name
  return said === id ? name.replace(/_/g, " ") : said;
};

function TransferDetails({ instructions }: { instructions: Instructions }) {
  return (
    <>
      <p className="lead">{t("pay.transferLead", { amount: money(instructions.amount_remaining, instructions.currency) })}</p>
      <dl className="facts" data-testid="transfer-instructions">
        <dt>{t("pay.transferRemaining")}</dt>
        <dd data-testid="transfer-remaining">{money(instructions.amount_remaining, instructions.currency)}</dd>
        {instructions.reference ? (
          <>
            <dt>{t("pay.transferReference")}</dt>
            <dd data-testid="transfer-reference">{instructions.reference}</dd>
          </>
        ) : null}
        {instructions.financial_addresses.flatMap((a) =>
          a.details.map((d) => (
            <div key={`${a.type}-${d.name}`}>
              <dt>{detailLabel(d.name)}</dt>
              <dd>{d.value}</dd>
            </div>
          )),
        )}
      </dl>
      {instructions.hosted_instructions_url ? (
        <p>
          <a href={instructions.hosted_instructions_url} target="_blank" rel="noreferrer">
            {t("pay.transferHosted")}
          </a>
        </p>
      ) : null}
    </>
  );
}

export function BankTransfer({ token, started, onPaid }: { token: string; started: boolean; onPaid: () => void }) {
  const [answer, setAnswer] = useState<BankTransferAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function open() {
    setBusy(true);
    const r = await payApi.bankTransfer(token);
    setBusy(false);
    // a debit of the order started meanwhile: said in the buyer's words
    if (!r.ok) return setError(r.error.code === "debit_processing" ? t("server.debitProcessing") : r.error.message);
    setError(null);
    setAnswer(r.data);
  }
  // a transfer started before (the page opened again): its instructions at once
  useEffect(() => {
    if (started) void open();
  }, [started]);
  // waiting for the money: the order's state until it is paid (a partial transfer: the instructions again)
  useEffect(() => {
    if (!answer) return;
    const timer = setInterval(() => {
      void payApi.status(token).then((r) => {
        if (r.ok && r.data.status === "succeeded") onPaid();
        else if (answer.status === "awaiting_transfer") void payApi.bankTransfer(token).then((a) => a.ok && setAnswer(a.data));
      });
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [answer?.status, answer?.instructions?.amount_remaining]);

  return (
    <section className="pay-transfer" aria-labelledby="transfer-heading">
      <h2 id="transfer-heading">{t("pay.transferOr")}</h2>
      {!answer ? (
        <button type="button" className="secondary" disabled={busy} onClick={() => void open()}>
          {t("pay.transferButton")}
        </button>
      ) : null}
      {answer?.instructions ? <TransferDetails instructions={answer.instructions} /> : null}
      {answer ? <Status tone={answer.status === "processing" ? "success" : "info"}>{t(answer.status === "processing" ? "pay.transferArrived" : "pay.transferWaiting")}</Status> : null}
      {error ? <Status tone="error">{error}</Status> : null}
    </section>
  );
}
