// The checkout form's state in one reducer: what the customer typed, and the problems shown by each field
// (from the page's own checks, the server's 422 or the card processor), replaced as a whole on each submit.
import type { Checkout } from "../checkout-api.js";
import { formFromCheckout, type AddressKey, type FormState } from "./model.js";

export interface FormModel {
  values: FormState;
  /** Problems by field key (`customer_email`, `card.number`, …), in the order the fields appear. */
  issues: Record<string, string>;
  /** Bumped on each failed submit: the page moves focus to the first problem when it changes. */
  attempt: number;
}

export type FormAction =
  | { type: "loaded"; checkout: Checkout }
  | { type: "set"; patch: Partial<Omit<FormState, "address" | "card" | "custom">> }
  | { type: "address"; key: AddressKey; value: string }
  | { type: "card"; key: keyof FormState["card"]; value: string }
  | { type: "custom"; slug: string; value: string | number | boolean | null }
  | { type: "issues"; issues: Record<string, string>; focus: boolean }
  | { type: "clear"; keys: string[] };

export const emptyForm = (): FormModel => ({
  values: {
    email: "",
    name: "",
    amount: "",
    seats: 1,
    discountCode: "",
    address: { country: "", state: "", city: "", postal_code: "", line1: "", line2: "" },
    business: false,
    billingName: "",
    taxId: "",
    custom: {},
    card: { number: "", expiry: "", cvc: "" },
  },
  issues: {},
  attempt: 0,
});

const without = (issues: Record<string, string>, keys: string[]) => Object.fromEntries(Object.entries(issues).filter(([k]) => !keys.includes(k)));

export function formReducer(state: FormModel, action: FormAction): FormModel {
  const v = state.values;
  switch (action.type) {
    case "loaded":
      return { ...state, values: formFromCheckout(action.checkout) };
    case "set": {
      const keys = Object.keys(action.patch).map((k) => FORM_ISSUE_KEYS[k] ?? k);
      return { ...state, values: { ...v, ...action.patch }, issues: without(state.issues, keys) };
    }
    case "address":
      return {
        ...state,
        values: { ...v, address: { ...v.address, [action.key]: action.value } },
        issues: without(state.issues, [`customer_billing_address.${action.key}`, "customer_billing_address"]),
      };
    case "card":
      return { ...state, values: { ...v, card: { ...v.card, [action.key]: action.value } }, issues: without(state.issues, [`card.${action.key}`]) };
    case "custom":
      return { ...state, values: { ...v, custom: { ...v.custom, [action.slug]: action.value } }, issues: without(state.issues, [`custom_field_data.${action.slug}`]) };
    case "issues":
      return { ...state, issues: action.issues, attempt: action.focus ? state.attempt + 1 : state.attempt };
    case "clear":
      return { ...state, issues: without(state.issues, action.keys) };
  }
}

/** Which problem a typed value clears. */
const FORM_ISSUE_KEYS: Record<string, string> = {
  email: "customer_email",
  name: "customer_name",
  billingName: "customer_billing_name",
  taxId: "customer_tax_id",
  discountCode: "discount_code",
};
