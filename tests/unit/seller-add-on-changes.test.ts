// The change dialog's add-ons (web/src/seller/add-on-changes.ts): the form's quantities, removals and the add-on
// added are applied to the set held — a scheduled change's set when there is one — into the whole `items` the API
// takes; an unchanged form asks nothing, and a bad quantity or an add-on added twice is said, never sent.
import { describe, expect, it } from "vitest";
import { addOnFieldNames as n, addOnItemsOf, heldAddOns } from "../../web/src/seller/add-on-changes.js";
import type { Subscription } from "../../web/src/seller/wire.js";

const held = [
  { product_id: "storage", quantity: 3, amount: 1500 },
  { product_id: "support", quantity: 1, amount: 300 },
];
const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};
const names = (id: string) => ({ storage: "Storage", support: "Support", backup: "Backup" })[id] ?? id;

describe("the add-ons a change asks for", () => {
  it("nothing changed asks nothing; a quantity, a removal and an added one give the whole set", () => {
    expect(addOnItemsOf(held, form({ [n.quantity("storage")]: "3", [n.quantity("support")]: "1" }), names)).toBeNull();
    expect(addOnItemsOf(held, form({ [n.quantity("storage")]: "5" }), names)).toEqual([
      { product_id: "storage", quantity: 5 },
      { product_id: "support", quantity: 1 },
    ]);
    expect(addOnItemsOf(held, form({ [n.remove("support")]: "on", [n.added]: "backup", [n.addedQuantity]: "2" }), names)).toEqual([
      { product_id: "storage", quantity: 3 },
      { product_id: "backup", quantity: 2 },
    ]);
    expect(addOnItemsOf(held, form({ [n.remove("storage")]: "on", [n.remove("support")]: "on" }), names)).toEqual([]);
    expect(addOnItemsOf([], form({ [n.added]: "backup" }), names)).toEqual([{ product_id: "backup", quantity: 1 }]);
  });

  it("a quantity that is not a whole number from 1, or an add-on added twice, is said", () => {
    for (const q of ["0", "2.5", "-1", "", "x", "10001"]) {
      expect(addOnItemsOf(held, form({ [n.quantity("storage")]: q }), names)).toBe("Write the quantity of Storage as a whole number from 1 to 10,000.");
    }
    expect(addOnItemsOf(held, form({ [n.added]: "backup", [n.addedQuantity]: "0" }), names)).toBe("Write the quantity of Backup as a whole number from 1 to 10,000.");
    expect(addOnItemsOf(held, form({ [n.added]: "storage" }), names)).toBe("Storage is already an add-on: change its quantity instead.");
  });

  it("the set held is a scheduled change's when it writes add-ons, else the subscription's", () => {
    const sub = { items: [{ product_id: "storage", quantity: 3, amount: 1500 }], pending_update: null } as unknown as Subscription;
    expect(heldAddOns(sub).map((i) => i.quantity)).toEqual([3]);
    const scheduled = { ...sub, pending_update: { applies_at: "2026-12-01T00:00:00Z", product_id: null, seats: null, items: [] } } as Subscription;
    expect(heldAddOns(scheduled)).toEqual([]);
    const planOnly = { ...sub, pending_update: { applies_at: "2026-12-01T00:00:00Z", product_id: "p", seats: null, items: null } } as Subscription;
    expect(heldAddOns(planOnly).map((i) => i.quantity)).toEqual([3]);
  });
});
