// @till/entitlements-verifier: verifies a till entitlement snapshot where the seller's app runs (Node ≥ 20,
// browsers, workers) with nothing but the platform's WebCrypto, and answers checks from it locally. Built into one
// ES module (dist/index.js) and its types (dist/index.d.ts) by build.ts; no runtime dependency.
export * from "../../../shared/entitlements.js";
export * from "./verify.js";
export * from "./jwks-cache.js";
