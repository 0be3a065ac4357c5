// The portal's reading of a microdeposit's amount as the customer types it (web/src/portal-bank.ts).
import { describe, expect, it } from "vitest";
import { centsOf } from "../../web/src/portal-bank.js";

describe("centsOf", () => {
  it("reads cents, and dollars written with a point or a comma", () => {
    expect(["32", " 45 ", "0.32", ".45", "$0.32", "$ 0.07", "0,32"].map(centsOf)).toEqual([32, 45, 32, 45, 32, 7, 32]);
  });
  it("refuses what is no deposit of under a dollar", () => {
    for (const text of ["", "0", "00", "0.00", "100", "1.32", "3.2", "abc", "-32", "32.5"]) expect(centsOf(text)).toBeNaN();
  });
});
