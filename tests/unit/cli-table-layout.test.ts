// The CLI's tables fitted to the terminal: as they are when they fit; wider than the terminal, the widest columns
// that are not ids give way first, their cells ending in "…", and columns never run into each other.
import { describe, expect, it } from "vitest";
import { columnWidths, layoutTable } from "../../cli/ui/table-layout.js";

const ID = "2b66b2a7-dc7e-4781-826b-11da376cc875";
const headers = ["ID", "INVOICE", "CUSTOMER", "PRODUCT", "TOTAL", "STATUS", "CREATED"];
const rows = [[ID, "CLISALESMX2B-0002", "buyer-mx2bfh5w-3@example.com", "Base", "$20.00", "paid", "2026-11-29"]];
const lines = (columns: number) => layoutTable(headers, rows, columns).lines.map((cells) => cells.join(""));

describe("a CLI table in a terminal", () => {
  it("is as wide as its cells when it fits", () => {
    expect(lines(160)).toEqual([
      "ID                                    INVOICE            CUSTOMER                      PRODUCT  TOTAL   STATUS  CREATED",
      `${ID}  CLISALESMX2B-0002  buyer-mx2bfh5w-3@example.com  Base     $20.00  paid    2026-11-29`,
    ]);
  });

  it("cuts the widest columns but the id to fit 100 columns, each column still apart", () => {
    const [head, row] = lines(100);
    expect(head?.length).toBeLessThanOrEqual(100);
    // the two widest (invoice, customer) gave way evenly; the short ones are whole
    expect(row).toBe(`${ID}  CLISALESMX…  buyer-mx2bf…  Base     $20.00  paid    2026-11-29`);
    expect(row?.length).toBeLessThanOrEqual(100);
  });

  it("at 80 columns keeps the id whole and leaves the last columns out, saying which", () => {
    const { lines: fitted, left } = layoutTable(headers, rows, 80);
    expect(left).toEqual(["CREATED"]);
    const [head, row] = fitted.map((cells) => cells.join(""));
    expect(head).toBe("ID                                    INVOICE  CUSTOMER  PRODUCT  TOTAL   STATUS");
    expect(row).toBe(`${ID}  CLISAL…  buyer-m…  Base     $20.00  paid`);
    expect(columnWidths(headers, rows, 80)).toHaveLength(6);
    // a terminal narrower than the id: the id alone, whole
    expect(layoutTable(headers, rows, 30).lines[1]).toEqual([ID]);
  });

  it("takes a column of UUIDs as ids whatever its header", () => {
    expect(columnWidths(["SUBSCRIPTION", "NAME"], [[ID, "x".repeat(40)]], 50)).toEqual([36, 12]);
  });
});
