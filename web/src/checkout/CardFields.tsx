// How the customer pays, part two: the test processor's card form (a real processor's element takes its
// place). A declined card's message shows under the card number, where the customer will change it.
import { Field } from "../ui.js";
import type { FormAction } from "./form.js";
import { fieldId, type CardInput } from "./model.js";

export function CardFields({ card, issues, dispatch }: { card: CardInput; issues: Record<string, string>; dispatch: (a: FormAction) => void }) {
  const set = (key: keyof CardInput) => (e: { target: { value: string } }) => dispatch({ type: "card", key, value: e.target.value });
  return (
    <fieldset className="card">
      <legend>Card</legend>
      <p className="hint">Test mode: use 4242 4242 4242 4242, any future date and any CVC.</p>
      <Field id={fieldId("card.number")} label="Card number" required autoComplete="cc-number" inputMode="numeric" value={card.number} error={issues["card.number"]} onChange={set("number")} />
      <div className="row">
        <Field
          id={fieldId("card.expiry")}
          label="Expiry (MM / YY)"
          required
          autoComplete="cc-exp"
          inputMode="numeric"
          placeholder="MM / YY"
          value={card.expiry}
          error={issues["card.expiry"]}
          onChange={set("expiry")}
        />
        <Field id={fieldId("card.cvc")} label="CVC" required autoComplete="cc-csc" inputMode="numeric" value={card.cvc} error={issues["card.cvc"]} onChange={set("cvc")} />
      </div>
    </fieldset>
  );
}
