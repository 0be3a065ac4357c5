export * from "./auth.js";
export * from "./billing.js";
export * from "./checkout.js";
export * from "./webhooks.js";
export * from "./refunds.js";
export * from "./license-keys.js";
export * from "./customer-portal.js";
export * from "./idempotency.js";
