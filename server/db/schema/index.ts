export * from "./auth.js";
export * from "./billing.js";
