// The request log never shows the credentials some URLs carry: a customer session token, a download
// signature, an upload token, a reset-password token, a checkout's client secret.
import http from "node:http";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactUrl } from "../../server/http/log-redaction.js";
import { createProduct, pay, publicRequest } from "../helpers/checkout.js";
import { createSeller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let log = "";

beforeAll(async () => {
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
  server = await startServer({ TILL_LOG_LEVEL: "info" }, { logStream: stream });
});
afterAll(async () => server?.close());

describe("the request log", () => {
  it("redacts secret query values and path segments, and keeps the rest", () => {
    expect(redactUrl("/portal?customer_session_token=till_cst_abc&x=1")).toBe("/portal?customer_session_token=[redacted]&x=1");
    expect(redactUrl("/v1/files/f/download?expires=9&signature=s3cr3t")).toBe("/v1/files/f/download?expires=9&signature=[redacted]");
    expect(redactUrl("/v1/files/f/parts/1?token=t")).toBe("/v1/files/f/parts/1?token=[redacted]");
    expect(redactUrl("/api/auth/reset-password/tok123?callbackURL=%2Freset")).toBe("/api/auth/reset-password/[redacted]?callbackURL=%2Freset");
    expect(redactUrl("/v1/checkouts/client/polar_c_123/confirm")).toBe("/v1/checkouts/client/[redacted]/confirm");
    expect(redactUrl("/v1/checkout-links/till_cl_abc123/redirect?utm_source=x")).toBe("/v1/checkout-links/[redacted]/redirect?utm_source=x");
    // a link's id is no secret and stays readable
    expect(redactUrl("/v1/checkout-links/0b5c1d2e-0000-4000-8000-000000000000")).toBe("/v1/checkout-links/0b5c1d2e-0000-4000-8000-000000000000");
    expect(redactUrl("/checkout/polar_c_123")).toBe("/checkout/[redacted]");
    expect(redactUrl("/device?user_code=ABCD-EFGH")).toBe("/device?user_code=[redacted]");
    expect(redactUrl("/v1/products/?limit=5&%zz=1")).toBe("/v1/products/?limit=5&%zz=1");
  });

  it("redacts a secret path spelled with escapes, another case or doubled slashes, and till's credentials wherever they are", () => {
    // the router decodes %63 to "c": this is the client route
    expect(redactUrl("/v1/checkouts/%63lient/till_c_abc")).toBe("/v1/checkouts/client/[redacted]");
    expect(redactUrl("/v1/checkouts/%63lient/s3cr3t/confirm")).toBe("/v1/checkouts/client/[redacted]/confirm");
    expect(redactUrl("/v1/checkouts/client/%74ill_c_abc")).toBe("/v1/checkouts/client/[redacted]");
    expect(redactUrl("/v1/Checkouts/Client/s3cr3t")).toBe("/v1/Checkouts/Client/[redacted]");
    expect(redactUrl("/v1/checkouts//client//s3cr3t")).toBe("/v1/checkouts//client//[redacted]");
    expect(redactUrl("/v1/checkouts%2Fclient%2Ftill_c_abc")).toBe("/v1/checkouts/client/[redacted]");
    expect(redactUrl("/v1/x%2Ftill_c_abc")).toBe("/v1/x/till_c_[redacted]");
    expect(redactUrl("/api/auth/%72eset-password/tok123")).toBe("/api/auth/reset-password/[redacted]");
    expect(redactUrl("/x?next=till_cst_abc")).toBe("/x?next=till_cst_[redacted]");
    // an escape that hides nothing is logged as it came
    expect(redactUrl("/v1/products/%41bc")).toBe("/v1/products/%41bc");
  });

  it("is what the server writes for incoming requests", async () => {
    await fetch(`${server.url}/portal?customer_session_token=till_cst_supersecret`);
    await fetch(`${server.url}/v1/files/00000000-0000-4000-8000-000000000000/download?expires=1&signature=sig-supersecret`);
    await expect.poll(() => log).toContain("/portal?customer_session_token=[redacted]");
    expect(log).toContain("signature=[redacted]");
    expect(log).not.toContain("supersecret");
  });

  it("never shows a checkout's client secret: the page's calls, a confirm, and paths spelled otherwise", async () => {
    const seller = await createSeller(server, "redact");
    const checkout = await seller.sdk.checkouts.create({ products: [(await createProduct(seller, "fixed")).id] });
    const secret = checkout.clientSecret;
    expect((await publicRequest(server, "GET", `/v1/checkouts/client/${secret}`)).status).toBe(200);
    await pay(server, checkout);
    // sent as is (fetch would normalize some of these spellings)
    const raw = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const { hostname, port } = new URL(server.url);
        http
          .request({ host: hostname, port, path }, (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          })
          .on("error", reject)
          .end();
      });
    expect(await raw(`/v1/checkouts/%63lient/${secret}`)).toBe(200);
    await raw(`/v1/Checkouts/Client/${secret}`);
    await raw(`/v1/checkouts%2Fclient%2F${secret}`);
    await raw(`/checkout/${secret}`);
    await raw("/v1/products/?marker=redaction-done");
    await expect.poll(() => log).toContain("marker=redaction-done");
    expect(log).toContain("/v1/checkouts/client/[redacted]/confirm");
    expect(log).not.toContain(secret);
    expect(log).not.toContain(secret.slice("till_c_".length));
  });
});
