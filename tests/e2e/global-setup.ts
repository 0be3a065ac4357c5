// vitest globalSetup: builds the web app (web/dist) once before the tests when its sources changed since the
// last build (web/build.ts keeps a hash). A failed build only warns here, so runs of other areas' tests are
// not held up by a half-edited page; the e2e tests check the build themselves and fail with a clear message. It
// also derives the Stripe stand-in's parameter table once, and bundles the server for the tests that start it as a
// process (tests/helpers/server-bundle.ts: a failed build only warns, those processes then run the sources).
import { ensureWebBuild } from "../../web/build.js";
import { ensureServerBundle } from "../helpers/server-bundle.js";
import { stripeContract } from "../helpers/stripe-contract.js";

export default async function setup(): Promise<void> {
  try {
    if ((await ensureWebBuild()) === "built") console.log("[global-setup] web app built into web/dist");
  } catch (err) {
    console.warn(`[global-setup] the web app build failed; the e2e tests will fail: ${String(err)}`);
  }
  try {
    if ((await ensureServerBundle()) === "built") console.log("[global-setup] server bundled into .tmp/test-server");
  } catch (err) {
    console.warn(`[global-setup] the server bundle failed; server processes run through tsx: ${String(err)}`);
  }
  // the Stripe stand-in's parameter table, derived from the stripe package once (cached under .tmp/) rather than by
  // every worker that starts a stand-in at the same time
  stripeContract();
}
