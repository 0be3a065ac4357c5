// vitest globalSetup: builds the web app (web/dist) once before the tests when its sources changed since the
// last build (web/build.ts keeps a hash). A failed build only warns here, so runs of other areas' tests are
// not held up by a half-edited page; the e2e tests check the build themselves and fail with a clear message.
import { ensureWebBuild } from "../../web/build.js";

export default async function setup(): Promise<void> {
  try {
    if ((await ensureWebBuild()) === "built") console.log("[global-setup] web app built into web/dist");
  } catch (err) {
    console.warn(`[global-setup] the web app build failed; the e2e tests will fail: ${String(err)}`);
  }
}
