// A bank account the customer entered by hand in the portal (Stripe's ACH Direct Debit without the bank login):
// Stripe sends small deposits to it, and the account is saved once the customer tells their amounts (or the code in
// the deposit's description) — here, through Stripe.js's verifyMicrodepositsForSetup, or on Stripe's own page (its
// link). The deposits take a day or two: a customer who leaves verifies on Stripe's page later, and till keeps the
// account when Stripe says the setup succeeded.
import { useState, type FormEvent } from "react";
import type { Stripe } from "@stripe/stripe-js";
import { rich, t } from "../i18n/intl.js";
import type { SetupWait } from "../portal-api.js";
import { centsOf } from "../portal-bank.js";
import { Field } from "../ui.js";
import { formatDate } from "./PortalCommon.js";
import { verifyMicrodeposits } from "./PortalStripe.js";

type Microdeposits = Extract<SetupWait, { type: "verify_with_microdeposits" }>["verify_with_microdeposits"];

export interface BankVerifyProps {
  stripe: Promise<Stripe | null>;
  clientSecret: string;
  deposits: Microdeposits;
  /** Verified: the SetupIntent's id (the caller saves the account with it). */
  onVerified: (setupIntentId: string) => Promise<void>;
}

/** What happens next for an account verified by microdeposits, and the form that verifies them. */
export function BankVerify({ stripe, clientSecret, deposits, onVerified }: BankVerifyProps) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const byCode = deposits.microdeposit_type === "descriptor_code";

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    let values: { amounts: [number, number] } | { descriptor_code: string };
    if (byCode) values = { descriptor_code: String(data.get("code") ?? "").trim() };
    else {
      const amounts: [number, number] = [centsOf(String(data.get("first") ?? "")), centsOf(String(data.get("second") ?? ""))];
      if (amounts.some((a) => !(a > 0))) return setError(t("bank.amountsInvalid"));
      values = { amounts };
    }
    setBusy(true);
    setError(undefined);
    const done = await verifyMicrodeposits(stripe, clientSecret, values);
    if (done.ok) await onVerified(done.id);
    else setError(done.message);
    setBusy(false);
  }

  const link = deposits.hosted_verification_url;
  return (
    <div className="item bank-verify">
      <h3>{t("bank.form")}</h3>
      <p>{byCode ? t("bank.leadCode", { date: formatDate(deposits.arrival_date) }) : t("bank.leadAmounts", { date: formatDate(deposits.arrival_date) })}</p>
      <form onSubmit={(e) => void onSubmit(e)} aria-label={t("bank.form")} noValidate>
        {byCode ? (
          <Field label={t("bank.code")} name="code" id="bank-code" placeholder="SM11AA" autoComplete="off" required error={error} />
        ) : (
          <>
            <Field label={t("bank.first")} name="first" id="bank-first" inputMode="decimal" placeholder="32" autoComplete="off" required />
            <Field label={t("bank.second")} name="second" id="bank-second" inputMode="decimal" placeholder="45" autoComplete="off" required error={error} />
          </>
        )}
        <button type="submit" disabled={busy}>
          {t("bank.verify")}
        </button>
      </form>
      {link && (
        <p>
          {rich("bank.later", {
            a: (chunks) => (
              <a href={link} target="_blank" rel="noopener noreferrer">
                {chunks}
              </a>
            ),
          })}
        </p>
      )}
    </div>
  );
}
