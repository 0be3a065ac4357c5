// The request log never shows the credentials some URLs carry: a customer session token, a download
// signature, an upload token, a reset-password token, a checkout's client secret.
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactUrl } from "../../server/http/log-redaction.js";
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

  it("is what the server writes for incoming requests", async () => {
    await fetch(`${server.url}/portal?customer_session_token=till_cst_supersecret`);
    await fetch(`${server.url}/v1/files/00000000-0000-4000-8000-000000000000/download?expires=1&signature=sig-supersecret`);
    await expect.poll(() => log).toContain("/portal?customer_session_token=[redacted]");
    expect(log).toContain("signature=[redacted]");
    expect(log).not.toContain("supersecret");
  });
});
