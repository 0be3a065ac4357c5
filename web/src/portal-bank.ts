// Pure rules of the portal's bank account verification (pages/PortalBankVerify.tsx), kept apart for unit tests.

/** The cents of a microdeposit as the customer types it ("32", "0.32", "$0.32", "0,32"): 1–99, else NaN. */
export function centsOf(text: string): number {
  const clean = text.trim().replace(/^\$\s*/, "");
  if (/^\d{1,2}$/.test(clean)) return Number(clean) > 0 ? Number(clean) : NaN;
  const m = /^0?[.,](\d{2})$/.exec(clean);
  return m && Number(m[1]) > 0 ? Number(m[1]) : NaN;
}
