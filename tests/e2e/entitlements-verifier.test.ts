// The built entitlements verifier (packages/entitlements-verifier/dist/index.js) in headless Chromium, as a seller's
// web app loads it: a page of another origin imports the module, fetches the organization's JWKS from till across
// origins with createJwksCache, verifies a real snapshot from the server and answers a check from it, and refuses the
// same snapshot tampered with.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildVerifier } from "../../packages/entitlements-verifier/build.js";
import { rawRequest } from "../helpers/api.js";
import { closePages, launchChromium } from "../helpers/browser.js";
import { startWithSellers, type Seller } from "../helpers/seller.js";
import type { TestServer } from "../helpers/server.js";

type Verifier = typeof import("../../packages/entitlements-verifier/src/index.js");

let server: TestServer;
let seller: Seller;
let key: string;
let browser: Browser;
let site: Server;
let siteUrl: string;

/** The seller's web app: a page that imports the verifier module as its own script would, from an origin of its own. */
const PAGE = '<!doctype html><title>seller app</title><script type="module">import * as m from "/verifier.js"; window.verifier = m;</script>';

async function startSite(moduleSource: string): Promise<void> {
  site = createServer((req, res) => {
    if (req.url === "/verifier.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(moduleSource);
    } else {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    }
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const { js } = await buildVerifier();
  await startSite(readFileSync(js, "utf8"));
  ({ server, seller, key } = await startWithSellers("verifier-page"));
  browser = await launchChromium();
});
afterAll(async () => {
  await closePages(browser);
  await new Promise((resolve) => site?.close(resolve));
  await server?.close();
});

/** A token whose payload says another customer, with the signature of the original. */
function tampered(token: string): string {
  const [head, body, sig] = token.split(".") as [string, string, string];
  const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Record<string, unknown>;
  const forged = Buffer.from(JSON.stringify({ ...payload, exp: (payload.exp as number) + 86_400 })).toString("base64url");
  return `${head}.${forged}.${sig}`;
}

describe("the verifier in a browser", () => {
  it("verifies a snapshot from till with the JWKS fetched across origins, and refuses it tampered", async () => {
    const created = await rawRequest(server.url, key, "POST", "/v1/customers/", { email: `page-${Date.now()}@example.com`, external_id: "page-user" });
    expect(created.status).toBe(201);
    const snap = await rawRequest(server.url, key, "GET", "/v1/customers/external/page-user/entitlements/snapshot?ttl=120");
    expect(snap.status).toBe(200);
    const token = snap.body.token as string;

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${siteUrl}/`);
    await page.waitForFunction(() => "verifier" in window);
    const args = { jwksUrl: `${server.url}/.well-known/jwks.json?organization_id=${seller.organizationId}`, token, forged: tampered(token), org: seller.organizationId, iss: server.url };
    const seen = await page.evaluate(async ({ jwksUrl, token, forged, org, iss }) => {
      const m = (window as unknown as { verifier: Verifier }).verifier;
      const cache = m.createJwksCache(jwksUrl);
      const snapshot = await cache.verify(token, { organizationId: org, issuer: iss });
      const refusal = await cache.verify(forged).then(
        () => "verified",
        (err: unknown) => (err instanceof m.SnapshotError ? err.code : String(err)),
      );
      return { sub: snapshot.payload.sub, ext: snapshot.payload.ext, stale: snapshot.stale, check: snapshot.check("nothing-by-this-name"), refusal, hasSubtle: !!crypto.subtle };
    }, args);
    expect(seen).toMatchObject({ sub: created.body.id, ext: "page-user", stale: false, refusal: "bad_signature", hasSubtle: true });
    expect(seen.check).toMatchObject({ allowed: false, reason: "no_benefit" });
    await context.close();
  });
});
