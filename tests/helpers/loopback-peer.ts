// A loopback HTTP peer standing in for a provider's API (the GitHub and Discord peers of delivery-peers.ts build
// on it): it keeps every request it saw, answers a queued failure instead of the next matching request, and keeps
// the requests the provider's definition refuses, which stop() reports unless a test took them on purpose.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { send } from "./oauth-code-issuer.js";

interface Failure {
  method: string;
  prefix: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface Refusal {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

export interface Seen {
  method: string;
  path: string;
  body: unknown;
  authorization: string | undefined;
}

export abstract class Peer {
  url = "";
  readonly seen: Seen[] = [];
  /**
   * The requests refused because the provider's definition does not have them. stop() fails while any is left:
   * till must send none (a refusal it takes for a missing resource, such as a 404 it ignores, would pass unseen);
   * a test that sends one on purpose takes it with takeRefused().
   */
  private refused: Refusal[] = [];
  private failures: Failure[] = [];
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const url = new URL(req.url ?? "/", this.url);
      let body: unknown = raw === "" ? undefined : raw;
      const type = req.headers["content-type"] ?? "";
      try {
        if (type.includes("json") && raw) body = JSON.parse(raw);
      } catch {
        return this.invalidJson(res);
      }
      if (type.includes("x-www-form-urlencoded")) body = Object.fromEntries(new URLSearchParams(raw));
      const method = req.method ?? "GET";
      this.seen.push({ method, path: url.pathname, body, authorization: req.headers.authorization });
      const i = this.failures.findIndex((f) => f.method === method && url.pathname.startsWith(f.prefix));
      if (i >= 0) {
        const [f] = this.failures.splice(i, 1);
        return send(res, f!.status, f!.body, f!.headers);
      }
      try {
        this.handle(method, url, body, req.headers.authorization, res);
      } catch (err) {
        send(res, 500, { message: String(err) });
      }
    });
  });

  protected abstract handle(method: string, url: URL, body: unknown, auth: string | undefined, res: http.ServerResponse): void;

  /** The provider's answer to a body that is not JSON though it says it is. */
  protected abstract invalidJson(res: http.ServerResponse): void;

  /** Answers a request the definition does not allow, and keeps it in `refused`. */
  protected refuse(res: http.ServerResponse, refusal: { status: number; body: unknown }): void {
    const last = this.seen[this.seen.length - 1];
    this.refused.push({ method: last?.method ?? "", path: last?.path ?? "", ...refusal });
    send(res, refusal.status, refusal.body);
  }

  /** The refusals so far (for a test that sent them on purpose), forgotten. */
  takeRefused(): Refusal[] {
    return this.refused.splice(0);
  }

  /** Forgets the failures queued and not used yet. */
  clearFailures(): void {
    this.failures = [];
  }

  /** The next `method` request whose path starts with `prefix` is answered with this instead. */
  fail(method: string, prefix: string, status: number, headers: Record<string, string> = {}, body: unknown = { message: `failure ${status}` }): void {
    this.failures.push({ method, prefix, status, headers, body });
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
    const refused = this.takeRefused();
    if (refused.length > 0) {
      throw new Error(`${this.constructor.name} refused requests the provider's definition does not allow:\n${refused.map((r) => JSON.stringify(r)).join("\n")}`);
    }
  }
}
