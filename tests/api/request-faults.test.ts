// No exception raised while serving one request ends the process: every route that takes a body (listed from the
// app itself, so a new route is tried too) gets malformed, oversized, short and aborted bodies, with the request
// log on as in production; each is answered (never 500) or dropped, no error escapes to the process, and
// /healthz and the seller's other requests keep answering.
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LARGE_BODY_LIMIT } from "../../server/http/input-guard.js";
import { putParts, sha256Base64 } from "../helpers/files.js";
import { rawHttp, type RawAnswer, type RawRequest } from "../helpers/raw-http.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let upload: Awaited<ReturnType<Seller["sdk"]["files"]["create"]>>;
let log = "";
/** What reached the process instead of one request: an uncaught exception or an unhandled rejection. */
const escaped: unknown[] = [];
const record = (err: unknown) => escaped.push(err);

beforeAll(async () => {
  process.on("uncaughtException", record);
  process.on("unhandledRejection", record);
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
  server = await startServer({ TILL_LOG_LEVEL: "info" }, { logStream: stream });
  seller = await createSeller(server, "faults");
  // a pending upload: its part's presigned URL takes the bad bodies through to storage, where a part's bytes
  // are read, counted and refused (a body longer than the part stopped the server once)
  upload = await seller.sdk.files.create({
    name: "cover.png",
    mimeType: "image/png",
    size: PART.length,
    checksumSha256Base64: sha256Base64(PART),
    upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: PART.length - 1 }] },
    service: "product_media",
  });
});
afterAll(async () => {
  await server?.close();
  process.off("uncaughtException", record);
  process.off("unhandledRejection", record);
});

const SOME_ID = "00000000-0000-4000-8000-000000000000";
const PART = Buffer.alloc(1000, 7);
const UPLOAD_PART = "/v1/files/:id/parts/:number";

/**
 * A path the route matches: the pending upload's presigned URL for the part route, else a UUID for each
 * parameter and "x" for a wildcard.
 */
function pathOf(url: string): string {
  if (url === UPLOAD_PART) {
    const presigned = new URL(upload.upload.parts[0]!.url);
    return presigned.pathname + presigned.search;
  }
  return url.replace(/:(\w+)/g, SOME_ID).replace(/\*/g, "x");
}

/** The seller's credentials both ways: a bearer token (/v1) and the session cookie with an Origin (/api/auth). */
function sellerHeaders(): Record<string, string> {
  const cookie = [...seller.client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  return { authorization: `Bearer ${seller.token}`, cookie, origin: server.url, "content-type": "application/json" };
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The bad bodies every body-taking route gets. */
const BAD_BODIES: Record<string, Omit<RawRequest, "method" | "path">> = {
  malformed: { body: '{"name": "half', then: "answer" },
  oversized: { length: "chunked", chunked: LARGE_BODY_LIMIT + 1 },
  "oversized, declared": { body: "{}", length: LARGE_BODY_LIMIT * 4, then: "half-close" },
  short: { body: '{"name":', length: 1000, then: "half-close" },
  aborted: { body: '{"name":', length: 1000, then: "destroy" },
};

async function healthy(): Promise<void> {
  const res = await fetch(`${server.url}/healthz`);
  expect(res.status).toBe(200);
}

describe("bad bodies on every route that takes one", () => {
  it("lists the app's routes, upload and auth routes among them", () => {
    const urls = server.routes.map((r) => `${r.method} ${r.url}`);
    expect(urls).toContain(`PUT ${UPLOAD_PART}`);
    expect(urls).toContain("POST /v1/files/");
    expect(urls).toContain("POST /v1/events/ingest");
    expect(urls.some((u) => u.startsWith("POST /api/auth/"))).toBe(true);
  });

  it("answers each without a 500 or drops it, and the server keeps serving", { timeout: 600_000 }, async () => {
    const routes = server.routes.filter((r) => BODY_METHODS.has(r.method));
    expect(routes.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const route of routes) {
      for (const [name, bad] of Object.entries(BAD_BODIES)) {
        const answer: RawAnswer = await rawHttp(server.url, { method: route.method, path: pathOf(route.url), headers: sellerHeaders(), ...bad });
        if (answer.status !== null && answer.status >= 500) failures.push(`${route.method} ${route.url} (${name}): ${answer.status} ${answer.text.slice(-200)}`);
        if (name === "malformed" && (answer.status === null || answer.status < 400)) failures.push(`${route.method} ${route.url} (${name}): ${answer.status}`);
        await healthy();
      }
    }
    expect(failures).toEqual([]);
    expect(escaped).toEqual([]);
    // a client's bad body is no server error: nothing logged at error level (a body cut off midway is info)
    expect(log.split("\n").filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
    // the seller's other requests still succeed: a read, a write, and the upload the bad bodies were sent to
    expect((await seller.sdk.products.list({})).result.items).toBeInstanceOf(Array);
    expect((await seller.sdk.products.create({ name: "After the storm", prices: [{ amountType: "free" }] })).name).toBe("After the storm");
    const parts = await putParts(upload, PART);
    const done = await seller.sdk.files.uploaded({ id: upload.id, fileUploadCompleted: { id: upload.upload.id, path: upload.path, parts } });
    expect(done.isUploaded).toBe(true);
    // each bad body has its line in the request log, the upload token redacted
    await expect.poll(() => log).toContain(`"url":"/v1/files/${upload.id}/parts/1?token=[redacted]"`);
    expect(log).not.toContain(new URL(upload.upload.parts[0]!.url).searchParams.get("token"));
  });
});
