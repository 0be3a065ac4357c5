// A subscription's add-ons from the command line (`subscriptions update|preview --add-on <product>[=qty]
// --remove-add-on <product>`): the API takes the whole set (`items`), so the flags are applied to the set the
// subscription holds (a change waiting for the period's end included: it is what the renewal will bill).
import { InvalidArgumentError, type Command } from "commander";
import { v1 } from "../client.js";
import { UsageError } from "../errors.js";
import type { Context } from "../context.js";
import { collectId, parseId } from "../flags.js";
import { repeatable } from "../repeated-flags.js";
import { money } from "../resources.js";

/** An add-on as the subscription's wire names it (till's `items`). */
export interface WireItem {
  product_id: string;
  quantity: number;
  amount: number;
  product: { name: string } | null;
}

export interface AddOnFlags {
  addOn?: Array<{ productId: string; quantity: number | null }>;
  removeAddOn?: string[];
}

/** `<product>[=qty]`: the product's id and the quantity (null: 1 for a new add-on, the held one's otherwise). */
const collectAddOn = repeatable((value: string, previous: NonNullable<AddOnFlags["addOn"]> = []) => {
  const [id = "", qty, ...rest] = value.split("=");
  const quantity = qty === undefined ? null : /^\d+$/.test(qty.trim()) ? Number(qty.trim()) : NaN;
  if (rest.length > 0 || (quantity !== null && (!Number.isSafeInteger(quantity) || quantity < 1))) {
    throw new InvalidArgumentError("expected <product id>[=quantity], the quantity a whole number of at least 1.");
  }
  return [...previous, { productId: parseId(id), quantity }];
});

export function addOnOptions(cmd: Command): Command {
  return cmd
    .option("--add-on <product[=qty]>", "add this add-on product, or set its quantity (repeatable)", collectAddOn)
    .option("--remove-add-on <product>", "remove this add-on (repeatable)", collectId);
}

export const hasAddOnFlags = (o: AddOnFlags) => o.addOn !== undefined || o.removeAddOn !== undefined;

/** The `items` the subscription holds once the flags apply to the set it holds (or will hold at its renewal). */
export async function addOnItems(ctx: Context, id: string, o: AddOnFlags): Promise<Array<{ product_id: string; quantity: number }>> {
  const s = await ctx.out.loading(
    "Loading subscription",
    v1(ctx).get<{ items?: WireItem[]; pending_update?: { items?: Array<{ product_id: string; quantity: number }> | null } | null }>(`/subscriptions/${id}`),
  );
  const held = s.pending_update?.items ?? s.items ?? [];
  const items = new Map(held.map((i) => [i.product_id, i.quantity]));
  for (const a of o.addOn ?? []) items.set(a.productId, a.quantity ?? items.get(a.productId) ?? 1);
  for (const r of o.removeAddOn ?? []) {
    // a product the subscription does not hold is a mistaken id, not a change to send
    if (!items.delete(r)) throw new UsageError(`--remove-add-on: ${r} is not an add-on of this subscription; nothing was changed`);
  }
  return [...items].map(([product_id, quantity]) => ({ product_id, quantity }));
}

/** "Storage × 3 ($15.00)", joined; "none" without add-ons. */
export function describeItems(items: WireItem[] | undefined, currency: string): string {
  if (!items || items.length === 0) return "none";
  return items.map((i) => `${i.product?.name ?? i.product_id}${i.quantity > 1 ? ` × ${i.quantity}` : ""} (${money(i.amount, currency)})`).join(", ");
}
