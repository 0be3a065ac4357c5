// What a grant's properties say once its access is taken away, in Polar's shape: `granted_account_id` is a
// string or absent (its SDKs reject null), so a revoke removes it rather than nulling it.
export function withoutGrantedAccount(properties: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(properties).filter(([key]) => key !== "granted_account_id"));
}
