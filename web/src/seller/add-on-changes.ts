// A subscription's add-ons as the change dialog edits them: the API takes the whole set (`items`; one left out is
// removed), so the form's quantities, removals and the one added are applied to the set the subscription holds —
// a change waiting for the period's end included, as it is what the renewal will bill (the CLI does the same).
import type { AddOnHeld, Subscription } from "./wire.js";

export type ItemsBody = Array<{ product_id: string; quantity: number }>;

/** Anything FormData-like: the dialog's form, or a test's. */
export interface FormValues {
  get(name: string): FormDataEntryValue | null;
}

/** The form fields' names for a held add-on and for the one added. */
export const addOnFieldNames = {
  quantity: (productId: string) => `add_on_quantity.${productId}`,
  remove: (productId: string) => `add_on_remove.${productId}`,
  added: "add_on_new",
  addedQuantity: "add_on_new_quantity",
};

/** The add-ons the subscription holds, or will hold at its renewal when a scheduled change writes them. */
export const heldAddOns = (sub: Subscription): AddOnHeld[] => sub.pending_update?.items ?? sub.items ?? [];

const MAX_QUANTITY = 10_000;

function quantityOf(text: string, name: string): number | string {
  const q = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || q < 1 || q > MAX_QUANTITY) return `Write the quantity of ${name} as a whole number from 1 to ${MAX_QUANTITY.toLocaleString("en-US")}.`;
  return q;
}

/**
 * The `items` the form asks for: null when it changes nothing, or a sentence saying what to fix. `names` names the
 * add-ons in those sentences.
 */
export function addOnItemsOf(held: AddOnHeld[], form: FormValues, names: (productId: string) => string): ItemsBody | null | string {
  const items: ItemsBody = [];
  let changed = false;
  for (const h of held) {
    if (form.get(addOnFieldNames.remove(h.product_id)) !== null) {
      changed = true;
      continue;
    }
    const text = form.get(addOnFieldNames.quantity(h.product_id));
    const quantity = typeof text === "string" ? quantityOf(text, names(h.product_id)) : h.quantity;
    if (typeof quantity === "string") return quantity;
    if (quantity !== h.quantity) changed = true;
    items.push({ product_id: h.product_id, quantity });
  }
  const added = String(form.get(addOnFieldNames.added) ?? "");
  if (added) {
    if (held.some((h) => h.product_id === added)) return `${names(added)} is already an add-on: change its quantity instead.`;
    const quantity = quantityOf(String(form.get(addOnFieldNames.addedQuantity) ?? "1"), names(added));
    if (typeof quantity === "string") return quantity;
    items.push({ product_id: added, quantity });
    changed = true;
  }
  return changed ? items : null;
}
