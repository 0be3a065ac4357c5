// Read replicas (DATABASE_REPLICA_URL): statements run outside a transaction inside `reads.run(key, fn)` go to a
// streaming replica that is fresh enough, everything else to the primary. The drizzle handle is built over a
// router that looks like the primary's postgres.js client and sends each statement to one side, so no repository
// knows replicas exist; transactions (`begin`) and reserved connections always take the primary.
// Freshness is measured, not guessed: every tick the primary's WAL position is sampled and each replica's replayed
// position read; a replica "covers" the moment of the newest sample it has replayed. It serves reads while that
// moment is at most TILL_REPLICA_MAX_LAG old, and serves a key (an organization, a customer session) that wrote
// at time w only once it covers w: the key reads its own writes. A replica that fails is left until a tick finds
// it answering again, and the statement that found it failing runs again on the primary.
import { AsyncLocalStorage } from "node:async_hooks";
import type postgres from "postgres";
import { isDatabaseUnavailable } from "./unavailable.js";

export interface ReadRouting {
  /** Runs `fn` with its statements outside transactions sent to a replica when one is fresh enough for `key`. */
  run<T>(key: string, fn: () => T): T;
  /** `key` has just written (and committed): its reads take the primary until a replica has replayed that far. */
  wrote(key: string): void;
  /** Per replica (its host:port): answering, and how old the newest moment it covers is (ms; null: never measured). */
  state(): Array<{ replica: string; healthy: boolean; lagMs: number | null }>;
  /** Statements served by replicas, and those that ran on the primary instead after a replica failed them. */
  readonly counts: { replica: number; fallback: number };
  /** Measures now instead of at the next tick (tests; a replica that came back). */
  check(): Promise<void>;
  close(): Promise<void>;
}

interface Replica {
  name: string;
  client: postgres.Sql;
  healthy: boolean;
  /** Date.now() of the newest primary sample this replica has replayed; 0 before the first check. */
  coveredUntil: number;
}

/** SQLSTATEs after which a statement is run again on the primary: a write sent in a read scope, a recovery conflict. */
const RETRY_ON_PRIMARY = new Set(["25006", "40001"]);

const lsn = (text: string): bigint => {
  const [high, low] = text.split("/");
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
};

function retryOnPrimary(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && RETRY_ON_PRIMARY.has(code);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("replica check timed out")), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface ReadRoutingOptions {
  primary: postgres.Sql;
  replicas: Array<{ name: string; client: postgres.Sql }>;
  maxLagMs: number;
  /** How often freshness is measured; default a quarter of the bound, at most 1 s. */
  intervalMs?: number;
}

/** The router client (give it to drizzle in place of the primary's) and the routing it obeys. */
export function createReadRouting(opts: ReadRoutingOptions): { client: postgres.Sql; routing: ReadRouting } {
  const { primary, maxLagMs } = opts;
  const intervalMs = opts.intervalMs ?? Math.min(1000, Math.max(50, maxLagMs / 4));
  const replicas: Replica[] = opts.replicas.map((r) => ({ ...r, healthy: false, coveredUntil: 0 }));
  const scope = new AsyncLocalStorage<string>();
  const counts = { replica: 0, fallback: 0 };
  const fresh = freshness(primary, replicas, maxLagMs, intervalMs);
  const pick = () => {
    const key = scope.getStore();
    return key === undefined ? undefined : fresh.usable(key);
  };
  const client = routerClient(primary, pick, counts);

  const routing: ReadRouting = {
    run: (key, fn) => scope.run(key, fn),
    wrote(key) {
      fresh.wrote(key);
    },
    state: () => replicas.map((r) => ({ replica: r.name, healthy: r.healthy, lagMs: r.coveredUntil ? Date.now() - r.coveredUntil : null })),
    counts,
    check: fresh.check,
    async close() {
      await fresh.stop();
      await Promise.all(replicas.map((r) => r.client.end({ timeout: 5 })));
    },
  };
  return { client, routing };
}

/**
 * The replicas' freshness, measured every `intervalMs` from now on: the primary's WAL position sampled, each
 * replica's replayed position read, and the replica a key may read from picked among those fresh enough for it.
 */
function freshness(primary: postgres.Sql, replicas: Replica[], maxLagMs: number, intervalMs: number) {
  const lastWrite = new Map<string, number>();
  const samples: Array<{ at: number; lsn: bigint }> = [];
  let turn = 0;

  function usable(key: string): Replica | undefined {
    const now = Date.now();
    const since = lastWrite.get(key) ?? 0;
    const fresh = replicas.filter((r) => r.healthy && now - r.coveredUntil <= maxLagMs && r.coveredUntil >= since);
    if (fresh.length === 0) return undefined;
    turn = (turn + 1) % fresh.length;
    return fresh[turn];
  }

  async function measure(replica: Replica): Promise<void> {
    try {
      const [row] = await withTimeout(
        replica.client.unsafe<Array<{ standby: boolean; replay: string | null }>>(
          "SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replay",
        ),
        Math.max(maxLagMs, 1000),
      );
      // a server that is not a standby (promoted, or a wrong URL) is not a copy of the primary: never read from it
      if (!row?.standby || row.replay === null) {
        replica.healthy = false;
        return;
      }
      const replayed = lsn(row.replay);
      const covered = samples.filter((s) => s.lsn <= replayed).at(-1);
      if (covered) replica.coveredUntil = Math.max(replica.coveredUntil, covered.at);
      replica.healthy = true;
    } catch {
      replica.healthy = false;
    }
  }

  let running: Promise<void> | undefined;
  async function tick(): Promise<void> {
    try {
      const at = Date.now();
      const [row] = await withTimeout(primary.unsafe<Array<{ lsn: string }>>("SELECT pg_current_wal_lsn()::text AS lsn"), Math.max(maxLagMs, 1000));
      samples.push({ at, lsn: lsn(row!.lsn) });
    } catch {
      // the primary away: nothing to compare with; the replicas keep their last measure and age past the bound
    }
    const horizon = Date.now() - 2 * maxLagMs - intervalMs;
    while (samples.length > 1 && samples[0]!.at < horizon) samples.shift();
    for (const [key, at] of lastWrite) if (at < Date.now() - maxLagMs) lastWrite.delete(key);
    await Promise.all(replicas.map(measure));
  }
  const check = () => (running ??= tick().finally(() => (running = undefined)));
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  void check();

  return {
    usable,
    wrote(key: string): void {
      lastWrite.set(key, Date.now());
    },
    check,
    async stop(): Promise<void> {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}

/**
 * The client drizzle is given: the primary's, but for the statements run outside a transaction while `pick`
 * answers a replica (a read scope's key, a fresh replica): those go to that replica.
 */
function routerClient(primary: postgres.Sql, pick: () => Replica | undefined, counts: ReadRouting["counts"]): postgres.Sql {
  /** One statement on a replica, run again on the primary when the replica fails it. */
  function onReplica<T>(replica: Replica, run: (client: postgres.Sql) => PromiseLike<T>): Promise<T> {
    counts.replica++;
    return Promise.resolve(run(replica.client)).catch((err: unknown) => {
      if (!retryOnPrimary(err)) throw err;
      if (isDatabaseUnavailable(err)) replica.healthy = false;
      counts.fallback++;
      return run(primary);
    });
  }

  type Params = Parameters<postgres.Sql["unsafe"]>;
  function unsafe(query: Params[0], params?: Params[1], options?: Params[2]) {
    const replica = pick();
    if (!replica) return primary.unsafe(query, params, options);
    // what drizzle and rawQuery use of a pending query: awaiting it, or its rows as arrays (values())
    let rows: Promise<unknown> | undefined;
    const all = () => (rows ??= onReplica(replica, (c) => c.unsafe(query, params, options)));
    return {
      then: (resolve?: (v: unknown) => unknown, reject?: (e: unknown) => unknown) => all().then(resolve, reject),
      catch: (reject: (e: unknown) => unknown) => all().catch(reject),
      values: () => onReplica(replica, (c) => c.unsafe(query, params, options).values()),
      execute: () => all(),
    };
  }

  /**
   * A long read (an export's COPY) opened on a reserved connection: a fresh replica's, else the primary's. When the
   * replica fails it before it has started (reserving, or the statement itself: stopped, a recovery conflict), the
   * read is opened again on the primary. The connection is the caller's to release.
   */
  async function openForRead<T>(open: (conn: postgres.ReservedSql) => Promise<T>): Promise<{ conn: postgres.ReservedSql; value: T }> {
    const replica = pick();
    if (replica) {
      let conn: postgres.ReservedSql | undefined;
      try {
        conn = await replica.client.reserve();
        counts.replica++;
        return { conn, value: await open(conn) };
      } catch (err) {
        conn?.release();
        if (!retryOnPrimary(err)) throw err;
        if (isDatabaseUnavailable(err)) replica.healthy = false;
        counts.fallback++;
      }
    }
    const conn = await primary.reserve();
    try {
      return { conn, value: await open(conn) };
    } catch (err) {
      conn.release();
      throw err;
    }
  }

  return new Proxy(primary, {
    get(target, prop, receiver) {
      if (prop === "unsafe") return unsafe;
      if (prop === "openForRead") return openForRead;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

type OpenForRead = <T>(open: (conn: postgres.ReservedSql) => Promise<T>) => Promise<{ conn: postgres.ReservedSql; value: T }>;

/**
 * Opens a long read (an export's COPY) with `open` on a reserved connection: a replica's when the router sends this
 * read to one (the primary's when the replica fails the opening), else the client's own. The caller releases `conn`.
 */
export async function openReading<T>(client: postgres.Sql, open: (conn: postgres.ReservedSql) => Promise<T>): Promise<{ conn: postgres.ReservedSql; value: T }> {
  const router = client as postgres.Sql & { openForRead?: OpenForRead };
  if (router.openForRead) return router.openForRead(open);
  const conn = await client.reserve();
  try {
    return { conn, value: await open(conn) };
  } catch (err) {
    conn.release();
    throw err;
  }
}
