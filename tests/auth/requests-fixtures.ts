// What the auth request-rule tests share (requests*.test.ts): a server of the file's own, users signed up on
// it, and requests sent with exactly the headers and bytes given.
import http from "node:http";
import { afterAll, beforeAll } from "vitest";
import { Client, uniqueEmail } from "../helpers/client.js";
import { startServer, type TestServer } from "../helpers/server.js";

export const PASSWORD = "correct-horse-battery";

/** Starts the file's server in beforeAll (closed in afterAll); `server` is there once it has run. */
export function requestsFixture() {
  const fx = {} as { server: TestServer };
  async function signedUp(base = fx.server.url) {
    const client = new Client(base);
    const email = uniqueEmail("requests");
    const { user } = await client.signUp(email, PASSWORD);
    return { client, email, userId: user.id };
  }
  beforeAll(async () => {
    fx.server = await startServer();
  });
  afterAll(async () => fx.server?.close());
  return Object.assign(fx, { signedUp });
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request with exactly these headers and bytes (fetch would add or normalise some). */
export function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer) {
  const url = new URL(base);
  return new Promise<RawResponse>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
