// The real server process (`node --import tsx server/main.ts`, its request log on as in production) survives the
// upload bodies that once ended it: a product-media part longer than the part it declared (answered 422, after
// which the request log read the closed connection's address and threw), a part shorter than declared, a part cut
// off midway. After each, the process still runs, /healthz answers and the seller's upload completes.
import { Polar } from "@polar-sh/sdk";
import type { FileUpload } from "@polar-sh/sdk/models/components/fileupload.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, uniqueEmail } from "../helpers/client.js";
import { putParts, sha256Base64 } from "../helpers/files.js";
import { rawHttp, type RawRequest } from "../helpers/raw-http.js";
import { START_TIMEOUT_MS, startOwnTill, type OwnTill, type Till } from "../helpers/till-process.js";

const PART = Buffer.alloc(1000, 9);

let own: OwnTill;
let till: Till;
let baseUrl: string;
let sdk: Polar;

beforeAll(async () => {
  own = await startOwnTill("faults", { TILL_RATE_LIMIT: "false", TILL_LOG_LEVEL: "info" });
  ({ till, baseUrl } = own);
  const client = new Client(baseUrl);
  const { token } = await client.signUp(uniqueEmail("faults"));
  const org = await client.post<{ id: string }>("/api/auth/organization/create", { name: "faults org", slug: `faults-${Date.now().toString(36)}` });
  expect(org.status).toBe(200);
  expect((await client.post("/api/auth/organization/set-active", { organizationId: org.body.id })).status).toBe(200);
  sdk = new Polar({ accessToken: token, serverURL: baseUrl });
}, START_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await own?.stop();
});

const running = () => till.child.exitCode === null && till.child.signalCode === null;

async function newUpload(): Promise<FileUpload> {
  return sdk.files.create({
    name: "cover.png",
    mimeType: "image/png",
    size: PART.length,
    checksumSha256Base64: sha256Base64(PART),
    upload: { parts: [{ number: 1, chunkStart: 0, chunkEnd: PART.length - 1 }] },
    service: "product_media",
  });
}

/** The part's presigned URL as a request path. */
const partPath = (upload: FileUpload) => {
  const url = new URL(upload.upload.parts[0]!.url);
  return url.pathname + url.search;
};

const BAD_PARTS: Record<string, { req: Omit<RawRequest, "method" | "path">; status: number | null }> = {
  "longer than the part": { req: { body: Buffer.alloc(100_000, 1) }, status: 422 },
  "longer than the part, streamed": { req: { length: "chunked", chunked: 2 * 1024 * 1024 }, status: 422 },
  "shorter than the part": { req: { body: PART.subarray(0, 10) }, status: 422 },
  "shorter than its Content-Length": { req: { body: PART.subarray(0, 10), length: PART.length, then: "half-close" }, status: 400 },
  "cut off midway": { req: { body: PART.subarray(0, 500), length: PART.length, then: "destroy" }, status: null },
};

describe("bad upload bodies against the server process", () => {
  for (const [name, bad] of Object.entries(BAD_PARTS)) {
    it(`a part ${name}: refused, and the server keeps serving`, { timeout: 60_000 }, async () => {
      const upload = await newUpload();
      const answer = await rawHttp(baseUrl, { method: "PUT", path: partPath(upload), headers: { "content-type": "image/png" }, ...bad.req });
      expect(answer.status).toBe(bad.status);
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      // the same upload still takes its right part and completes
      const parts = await putParts(upload, PART);
      const done = await sdk.files.uploaded({ id: upload.id, fileUploadCompleted: { id: upload.upload.id, path: upload.path, parts } });
      expect(done.isUploaded).toBe(true);
      expect(running()).toBe(true);
    });
  }

  it("logged each, without an uncaught exception", () => {
    const output = till.output.join("");
    expect(output).toContain("PUT /v1/files/");
    expect(output).not.toMatch(/uncaught exception|TypeError/);
    expect(running()).toBe(true);
  });
});
