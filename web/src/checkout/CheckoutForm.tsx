// The checkout's form: what the customer buys (Summary) beside how they pay (CustomerFields, then the card:
// Stripe's Payment Element when the organization's Stripe account takes the payment, else the test processor's
// form), every problem at once (ErrorSummary) and the Pay button.
import { lazy, Suspense, type FormEvent, type RefObject } from "react";
import { money as formatMoney, t } from "../i18n/intl.js";
import type { Checkout, CheckoutError } from "../checkout-api.js";
import { Status } from "../ui.js";
import { CardFields } from "./CardFields.js";
import { CustomerFields } from "./CustomerFields.js";
import { ErrorSummary } from "./ErrorSummary.js";
import type { FormAction, FormModel } from "./form.js";
import { customAmount, fieldId, fieldLabel, stripeKeyOf, taxChanges } from "./model.js";
import type { Phase } from "./pay.js";
import type { Payer } from "./payer.js";
import { Summary } from "./Summary.js";
import type { CheckoutData } from "./useCheckout.js";

/** Stripe.js and its React bindings: loaded only for a checkout paid through Stripe. */
const StripePayment = lazy(() => import("./StripePayment.js").then((m) => ({ default: m.StripePayment })));

export function payLabel(checkout: Checkout): string {
  if (checkout.active_trial_interval) return t("pay.trial");
  if (checkout.is_payment_required) return t("pay.pay", { amount: formatMoney(checkout.total_amount, checkout.currency) });
  if (checkout.is_free_product_price || checkout.total_amount === 0) return checkout.product?.is_recurring ? t("pay.subscribe") : t("pay.free");
  return t("pay.subscribe");
}

export interface CheckoutFormProps {
  checkout: Checkout;
  form: FormModel;
  dispatch: (a: FormAction) => void;
  data: CheckoutData;
  phase: Phase;
  message: string | null;
  showError: (err: CheckoutError | null, focus?: boolean) => void;
  onSubmit: (e: FormEvent) => Promise<void>;
  formRef: RefObject<HTMLFormElement | null>;
  onStripePayer: (p: Payer | null) => void;
}

export function CheckoutForm({ checkout, form, dispatch, data, phase, message, showError, onSubmit, formRef, onStripePayer }: CheckoutFormProps) {
  const price = checkout.product_price;
  const v = form.values;
  const amountIssue = price?.amount_type === "custom" ? customAmount(price, v.amount, checkout.currency).issue : null;
  const problems = Object.entries(form.issues).map(([key, msg]) => ({ key, id: fieldId(key), label: fieldLabel(key, checkout), message: msg }));
  const stripeKey = stripeKeyOf(checkout);

  return (
    <form ref={formRef} className="panes" onSubmit={(e) => void onSubmit(e)} noValidate aria-busy={phase === "paying"}>
      <Summary
        checkout={checkout}
        amount={v.amount}
        seats={v.seats}
        discountCode={v.discountCode}
        issues={form.issues}
        updating={data.updating}
        onChoose={(productId, pr) =>
          void data.update({ product_id: productId, product_price_id: pr.id }).then((err) => {
            showError(err);
            if (!err) dispatch({ type: "clear", keys: ["amount", "seats"] });
          })
        }
        onAmount={(typed) => {
          dispatch({ type: "set", patch: { amount: typed } });
          if (!price) return;
          const { minor, issue } = customAmount(price, typed, checkout.currency);
          if (issue) {
            data.cancelPending();
            dispatch({ type: "issues", issues: { ...form.issues, amount: issue }, focus: false });
          } else if (minor !== null) data.updateSoon({ amount: minor }, (err) => showError(err));
        }}
        onSeats={(seats) => {
          dispatch({ type: "set", patch: { seats } });
          data.updateSoon({ seats }, (err) => showError(err));
        }}
        onAddOns={(addOns) => data.updateSoon({ add_ons: addOns }, (err) => showError(err))}
        onDiscountCode={(code) => dispatch({ type: "set", patch: { discountCode: code } })}
        onApplyDiscount={() =>
          void data.update({ discount_code: v.discountCode.trim() }).then((err) => {
            if (err) dispatch({ type: "issues", issues: { ...form.issues, discount_code: err.fields.discount_code ?? err.message }, focus: false });
          })
        }
      />
      <section className="payment" aria-labelledby="payment-heading">
        <h2 id="payment-heading">{checkout.is_payment_form_required ? t("label.payment") : t("form.yourDetails")}</h2>
        <CustomerFields
          checkout={checkout}
          values={v}
          issues={form.issues}
          dispatch={dispatch}
          onTaxChange={(values) => data.updateSoon(taxChanges(checkout, values), (err) => showError(err))}
          onBusiness={(values) => {
            // debounced too, so it merges with a typed change still waiting instead of racing it; not a business: the
            // tax id typed under the box no longer applies (the field keeps it if the box is checked again)
            const body = values.business ? taxChanges(checkout, values) : { ...taxChanges(checkout, values), customer_tax_id: null };
            data.updateSoon(body, (err) => showError(err));
          }}
        />
        {checkout.is_payment_form_required &&
          (stripeKey ? (
            <Suspense fallback={<Status>{t("form.loadingPayment")}</Status>}>
              <StripePayment checkout={checkout} publishableKey={stripeKey} issue={form.issues.payment} onPayer={onStripePayer} />
            </Suspense>
          ) : (
            <CardFields card={v.card} issues={form.issues} dispatch={dispatch} />
          ))}
        <ErrorSummary problems={problems} message={message} />
        <Status>{phase === "paying" ? t("form.paying") : data.updating ? t("form.updating") : null}</Status>
        <button type="submit" className="primary pay" disabled={phase !== "form" || data.updating || amountIssue !== null}>
          {phase === "paying" ? t("form.processing") : payLabel(checkout)}
        </button>
      </section>
    </form>
  );
}
