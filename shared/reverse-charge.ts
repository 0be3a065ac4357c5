// How a reverse-charged sale names its tax where the buyer sees it (the checkout page's tax line, the emails'
// receipt), beside the legal note the invoice prints: the buyer accounts for the tax, so the sale shows none.

/** Reverse charges of a goods-and-services tax; every other one till applies is a VAT's. */
const GST_COUNTRIES = new Set(["AU", "NZ"]);

/** "VAT reverse charged" for a buyer in `country` (ISO 3166-1 alpha-2). */
export function reverseChargeLabel(country: string | null | undefined): string {
  return GST_COUNTRIES.has((country ?? "").toUpperCase()) ? "GST reverse charged" : "VAT reverse charged";
}

/** Which tax a reverse-charged sale to a buyer in `country` did not charge: "gst" or "vat". */
export function reverseChargeTax(country: string | null | undefined): "vat" | "gst" {
  return GST_COUNTRIES.has((country ?? "").toUpperCase()) ? "gst" : "vat";
}
