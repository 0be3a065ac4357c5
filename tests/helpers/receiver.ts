// A webhook receiver on loopback (node:http): records every request and answers with the statuses queued for
// its path (200 when none is queued), so tests can make an endpoint fail, recover or be gone.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Hit {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export class Receiver {
  readonly hits: Hit[] = [];
  private readonly plans = new Map<string, Array<{ status: number; body?: string; delayMs?: number }>>();
  private readonly waiters = new Set<() => void>();
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      this.hits.push({ path, headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      for (const w of this.waiters) w();
      const plan = this.plans.get(path)?.shift() ?? { status: 200 };
      const answer = () => {
        res.writeHead(plan.status, { "content-type": "text/plain" });
        res.end(plan.body ?? `ok ${plan.status}`);
      };
      if (plan.delayMs) setTimeout(answer, plan.delayMs);
      else answer();
    });
  });
  url = "";

  async start(): Promise<string> {
    // an idle connection is never closed under a sender about to reuse it (Node's 5 s default races a sender on a
    // loaded machine: its request meets the close, ECONNRESET, an attempt the test did not make happen)
    this.server.keepAliveTimeout = 120_000;
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** The next answers at `path`, in order (then 200 again). */
  answer(path: string, ...plans: Array<number | { status: number; body?: string; delayMs?: number }>): void {
    this.plans.set(path, [...(this.plans.get(path) ?? []), ...plans.map((p) => (typeof p === "number" ? { status: p } : p))]);
  }

  at(path: string): Hit[] {
    return this.hits.filter((h) => h.path === path);
  }

  /** Waits until `predicate` holds on the hits so far. */
  async until<T>(predicate: (hits: Hit[]) => T | undefined | false, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = predicate(this.hits);
      if (got) return got;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${this.hits.length} hits)`);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          this.waiters.delete(done);
          resolve();
        };
        const t = setTimeout(done, Math.min(left, 200));
        this.waiters.add(done);
      });
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** Polls `fn` until it returns a truthy value. */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
