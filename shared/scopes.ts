// Billing resources and their scopes (`products:read`, `products:write`, …). Organization roles and
// API-key permissions are both expressed as {resource: ["read" | "write"]}; server and CLI share this list.
export const BILLING_RESOURCES = [
  "organizations",
  "products",
  "benefits",
  "discounts",
  "custom_fields",
  "meters",
  "events",
  "customers",
  "customer_sessions",
  "customer_seats",
  "files",
  "checkouts",
  "checkout_links",
  "orders",
  "subscriptions",
  "refunds",
  "webhooks",
  "license_keys",
  "metrics",
  "entitlements",
] as const;

export type BillingResource = (typeof BILLING_RESOURCES)[number];
export type BillingAction = "read" | "write";
export type Scope = `${BillingResource}:${BillingAction}`;

export const ALL_BILLING_PERMISSIONS: Record<BillingResource, BillingAction[]> = Object.fromEntries(
  BILLING_RESOURCES.map((r) => [r, ["read", "write"]]),
) as Record<BillingResource, BillingAction[]>;

export const READ_BILLING_PERMISSIONS: Record<BillingResource, BillingAction[]> = Object.fromEntries(
  BILLING_RESOURCES.map((r) => [r, ["read"]]),
) as Record<BillingResource, BillingAction[]>;

/** Whether a permission map grants a scope; write implies read. */
export function grants(permissions: Record<string, readonly string[]>, scope: Scope): boolean {
  const [resource, action] = scope.split(":") as [BillingResource, BillingAction];
  const actions = permissions[resource];
  // entitlement checks read what customers:read shows, and reservations record usage as events:write does
  if (resource === "entitlements" && grants(permissions, action === "read" ? "customers:read" : "events:write")) return true;
  if (!actions) return false;
  return actions.includes(action) || (action === "read" && actions.includes("write"));
}
