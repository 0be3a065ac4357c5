// A hook, a serializer, a log line or a response stream that throws while one request is served fails that
// request alone: with the request log on as in production, each of the test's own routes below throws at one
// step of Fastify's lifecycle; the request gets a 500 (or, once its answer has started, loses its connection),
// nothing escapes to the process, and /healthz and the seller's requests keep answering.
import { PassThrough, Readable } from "node:stream";
import type { FastifyInstance, RouteShorthandOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawHttp } from "../helpers/raw-http.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let log = "";
const escaped: unknown[] = [];
const record = (err: unknown) => escaped.push(err);

/** An error the log cannot write: its stack, which the log's error serializer reads, throws. */
function unloggableError(): Error {
  const err = new Error("cannot be logged");
  Object.defineProperty(err, "stack", {
    get() {
      throw new Error("stack unreadable");
    },
  });
  return err;
}

/** A value whose JSON cannot be written. */
const unserializable = {
  toJSON() {
    throw new Error("no JSON for you");
  },
};

const boom = () => {
  throw new Error("boom");
};

/** One route per way to throw: its options, what the handler answers, and what the client sees. */
const FAULTS: Record<string, { opts?: RouteShorthandOptions; handler?: () => unknown; status: number | null }> = {
  "onRequest, thrown": { opts: { onRequest: (_req, _reply, _done) => boom() }, status: 500 },
  "onRequest, rejected": { opts: { onRequest: async () => boom() }, status: 500 },
  "preParsing": { opts: { preParsing: async () => boom() }, status: 500 },
  "preValidation": { opts: { preValidation: async () => boom() }, status: 500 },
  "preHandler": { opts: { preHandler: (_req, _reply, _done) => boom() }, status: 500 },
  "handler": { handler: boom, status: 500 },
  "preSerialization": { opts: { preSerialization: async () => boom() }, status: 500 },
  "onSend": { opts: { onSend: async () => boom() }, status: 500 },
  "onError, on the handler's error": { opts: { onError: async () => boom() }, handler: boom, status: 500 },
  "onResponse": { opts: { onResponse: async () => boom() }, status: 200 },
  "onResponse, an error the log cannot write": { opts: { onResponse: async () => Promise.reject(unloggableError()) }, status: 200 },
  "handler, an error the log cannot write": { handler: () => Promise.reject(unloggableError()), status: 500 },
  "reply serializer": { opts: { preHandler: async (_req, reply) => void reply.serializer(boom) }, status: 500 },
  "payload's toJSON": { handler: () => ({ value: unserializable }), status: 500 },
  "log line's value": { handler: function (this: FastifyInstance) { this.log.info({ value: unserializable }, "unserializable"); return { ok: true }; }, status: 200 },
  "response stream, after its first bytes": {
    handler: () =>
      new Readable({
        read() {
          this.push("first bytes");
          setImmediate(() => this.destroy(new Error("stream broke")));
        },
      }),
    status: 200,
  },
};

const slug = (name: string) => name.replace(/[^a-z]+/gi, "-").toLowerCase();

function faultRoutes(app: FastifyInstance): void {
  for (const [name, fault] of Object.entries(FAULTS)) {
    app.post(`/test-faults/${slug(name)}`, fault.opts ?? {}, fault.handler ?? (async () => ({ ok: true })));
  }
  // an error handler that throws itself: the app's own handler answers
  void app.register(async (child) => {
    child.setErrorHandler(() => boom());
    child.post("/test-faults/error-handler", async () => boom());
  });
  // a client that leaves halfway through its body: the abort hook fails with an error the log cannot write, in
  // the request's close listener (where a throw of the log's would be uncaught)
  app.post("/test-faults/on-request-abort", { onRequestAbort: async (_req) => Promise.reject(unloggableError()) }, async () => ({ ok: true }));
}

beforeAll(async () => {
  process.on("uncaughtException", record);
  process.on("unhandledRejection", record);
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
  server = await startServer({ TILL_LOG_LEVEL: "info" }, { logStream: stream, configure: faultRoutes });
  seller = await createSeller(server, "hooks");
});
afterAll(async () => {
  await server?.close();
  process.off("uncaughtException", record);
  process.off("unhandledRejection", record);
});

async function stillServing(): Promise<void> {
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  expect((await seller.sdk.products.list({})).result.items).toBeInstanceOf(Array);
}

describe("a throw while one request is served", () => {
  for (const [name, fault] of Object.entries(FAULTS)) {
    it(`${name}: fails that request alone`, async () => {
      const answer = await rawHttp(server.url, { method: "POST", path: `/test-faults/${slug(name)}`, headers: { "content-type": "application/json" }, body: "{}" });
      expect(answer.status).toBe(fault.status);
      await stillServing();
      expect(escaped).toEqual([]);
    });
  }

  it("an error handler that throws: the app's handler answers", async () => {
    const answer = await rawHttp(server.url, { method: "POST", path: "/test-faults/error-handler", headers: { "content-type": "application/json" }, body: "{}" });
    expect(answer.status).toBe(500);
    await stillServing();
    expect(escaped).toEqual([]);
  });

  it("an abort hook that fails when the client leaves, with an error the log cannot write", async () => {
    const failedLines = () => log.split("\n").filter((l) => l.includes('"msg":"log line failed"')).length;
    const before = failedLines();
    const answer = await rawHttp(server.url, { method: "POST", path: "/test-faults/on-request-abort", headers: { "content-type": "application/json" }, body: "{", length: 100, then: "destroy" });
    expect(answer.status).toBeNull();
    await expect.poll(failedLines).toBeGreaterThan(before);
    await stillServing();
    expect(escaped).toEqual([]);
  });

  it("a log line that cannot be written is replaced by one that says so", () => {
    expect(log).toContain('"logFailure":"Error: stack unreadable","msg":"log line failed"');
  });
});
