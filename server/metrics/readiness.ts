// /readyz: whether this process should get traffic, beside /healthz (the process answers). Ready when it is not
// draining (a SIGTERM turns it not-ready first, main.ts), the database answers, the migrations this code expects are
// applied, and the worker's loops turned recently. Otherwise 503 with each check's result, so an operator sees which
// failed. The checks read nothing a client sends.
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { migrationsFolder, rowsOf, type Database } from "../db/client.js";

export interface ReadinessSources {
  database: Database;
  /** The worker: whether it runs, and its loops' last turns. */
  worker: { readonly running: boolean; heartbeats(): Array<{ loop: string; at: number }> };
  /** A loop whose last turn is older than this is taken for stuck (a loop turns at least once a poll interval). */
  staleAfterMs?: number;
  /** How long the database may take to answer. */
  timeoutMs?: number;
}

export interface Readiness {
  /** From now on /readyz answers 503 (draining), while the other routes are served until the app closes. */
  drain(): void;
  readonly draining: boolean;
}

type Check = { ok: true } | { ok: false; detail: string };

/** The newest migration this code ships (drizzle's journal: `when` is what the migrator records as created_at). */
function newestMigration(): number {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: Array<{ when: number }> };
  return Math.max(...journal.entries.map((e) => e.when));
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => {});
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export function installReadiness(app: FastifyInstance, sources: ReadinessSources): Readiness {
  let draining = false;
  const expected = newestMigration();
  const staleAfterMs = sources.staleAfterMs ?? 60_000;
  const timeoutMs = sources.timeoutMs ?? 2_000;

  async function databaseChecks(): Promise<{ database: Check; migrations: Check }> {
    try {
      const [row] = await within(
        rowsOf<{ newest: number | string | null }>(sources.database.db, sql`SELECT max(created_at) AS newest FROM drizzle.__drizzle_migrations`),
        timeoutMs,
      );
      const newest = Number(row?.newest ?? 0);
      // a newer migration than this code's (a rolling upgrade's next release ran) is fine: migrations expand first
      const migrations: Check = newest >= expected ? { ok: true } : { ok: false, detail: "the database lacks migrations this release needs" };
      return { database: { ok: true }, migrations };
    } catch (err) {
      const detail = `the database did not answer: ${err instanceof Error ? err.message : String(err)}`;
      return { database: { ok: false, detail }, migrations: { ok: false, detail: "unknown while the database does not answer" } };
    }
  }

  function workerCheck(): Check {
    if (!sources.worker.running) return { ok: false, detail: "the worker is not running" };
    const now = Date.now();
    const stuck = sources.worker.heartbeats().filter((h) => now - h.at > staleAfterMs).map((h) => h.loop);
    return stuck.length === 0 ? { ok: true } : { ok: false, detail: `no turn for over ${staleAfterMs / 1000} s: ${stuck.join(", ")}` };
  }

  app.get("/readyz", async (_req, reply) => {
    const checks: Record<string, Check> = {
      draining: draining ? { ok: false, detail: "the process is shutting down" } : { ok: true },
      ...(await databaseChecks()),
      worker: workerCheck(),
    };
    const failed = Object.entries(checks).filter(([, c]) => !c.ok).map(([name]) => name);
    return reply.status(failed.length === 0 ? 200 : 503).send({ status: failed.length === 0 ? "ready" : "not_ready", failed, checks });
  });
  return {
    drain: () => void (draining = true),
    get draining() {
      return draining;
    },
  };
}
