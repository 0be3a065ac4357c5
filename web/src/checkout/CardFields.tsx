// How the customer pays, part two: the test processor's card form (a real processor's element takes its
// place). A declined card's message shows under the card number, where the customer will change it.
import { t } from "../i18n/intl.js";
import { Field } from "../ui.js";
import type { FormAction } from "./form.js";
import { fieldId, type CardInput } from "./model.js";

export function CardFields({ card, issues, dispatch }: { card: CardInput; issues: Record<string, string>; dispatch: (a: FormAction) => void }) {
  const set = (key: keyof CardInput) => (e: { target: { value: string } }) => dispatch({ type: "card", key, value: e.target.value });
  return (
    <fieldset className="card">
      <legend>{t("label.card")}</legend>
      <p className="hint">{t("card.testMode", { number: "4242 4242 4242 4242" })}</p>
      <Field
        id={fieldId("card.number")} label={t("label.cardNumber")} required autoComplete="cc-number" inputMode="numeric"
        value={card.number} error={issues["card.number"]} onChange={set("number")}
      />
      <div className="row">
        <Field
          id={fieldId("card.expiry")}
          label={t("card.expiryLabel")}
          required
          autoComplete="cc-exp"
          inputMode="numeric"
          placeholder={t("card.expiryPlaceholder")}
          value={card.expiry}
          error={issues["card.expiry"]}
          onChange={set("expiry")}
        />
        <Field id={fieldId("card.cvc")} label={t("label.cvc")} required autoComplete="cc-csc" inputMode="numeric" value={card.cvc} error={issues["card.cvc"]} onChange={set("cvc")} />
      </div>
    </fieldset>
  );
}
