// GET /v1/cli/listen: the organization's webhook events as server-sent events, for `till listen`. Each message
// is one processed outbox row: `id:` a resume cursor, `event:` the type, `data:` the webhook body exactly as a
// `raw` endpoint receives it. A client resumes with Last-Event-ID (header or `last_event_id`) and gets every
// event after it (up to a day back), then the live stream.
//
// The order is the processing transactions' (outbox.processed_xid, set by a trigger), then, within one, the
// order the events happened in (created_at, then id); a row is sent only once every transaction of the
// database with a smaller id has finished: rows can then never appear behind the cursor, so a resume skips
// nothing, whatever order concurrent workers commit in.
import type { FastifyReply } from "fastify";
import { and, asc, eq, gt, inArray, isNotNull, notInArray, sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Database, type Db } from "../../db/client.js";
import { outbox } from "../../db/schema/index.js";
import { INTERNAL_OUTBOX_TYPES } from "../../db/outbox.js";
import type { BillingDeps } from "../deps.js";
import { openEventStream, queryArray, queryBool } from "../http.js";
import { invalid, validationError } from "../errors.js";
import { scopeOf } from "../route-auth.js";
import { formatBody } from "./format.js";
import { SUBSCRIBABLE_EVENT_TYPES, type WebhookEventType } from "./wire.js";
import { route, type V1App } from "../contract.js";

/** The channel the outbox_processed trigger (migration 0006) notifies when a transaction processes rows. */
export const LISTEN_CHANNEL = "till_listen";
/** How far back a resume replays. */
export const REPLAY_WINDOW = "24 hours";
/** Notifications are the fast path; this catches rows held back behind a transaction that was still open. */
const POLL_MS = 1_000;
const BATCH = 200;
const AFTER_ALL_IDS = "ffffffff-ffff-ffff-ffff-ffffffffffff";
const AFTER_ALL_TIMES = 2n ** 63n - 1n;

// ---- the cursor ---------------------------------------------------------------------------------------

/**
 * A position in the stream: after the row `id`, created at `at` (µs since the epoch), processed by transaction `xid`.
 */
export interface Cursor {
  xid: bigint;
  at: bigint;
  id: string;
}

const CURSOR_RE = /^(\d{1,19})-(\d{1,19})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export const formatCursor = (c: Cursor) => `${c.xid}-${c.at}-${c.id}`;

export function parseCursor(value: string): Cursor | null {
  const m = CURSOR_RE.exec(value.trim());
  if (!m?.[1] || !m[2] || !m[3]) return null;
  const xid = BigInt(m[1]);
  const at = BigInt(m[2]);
  return xid < 2n ** 63n && at < 2n ** 63n ? { xid, at, id: m[3].toLowerCase() } : null;
}

/** created_at in µs since the epoch (exact: extract() answers numeric). */
const createdMicros = sql`(extract(epoch from ${outbox.createdAt}) * 1000000)::bigint`;

// ---- SQL ------------------------------------------------------------------------------------------------

/**
 * `next`: the first transaction id not handed out yet. `settled`: every transaction of this database with a
 * smaller id has finished, so rows it processed are visible to any later statement and none can still appear.
 * (Only this database's backends count: the snapshot's xmin would wait on every database of the cluster.
 * Backends of other roles show no backend_xid to a role without pg_read_all_stats; till uses one role.)
 * Two statements, this one first: a transaction that ends between them is seen as finished, and its rows are
 * visible to the read that follows.
 */
async function horizon(db: Db): Promise<{ next: bigint; settled: bigint }> {
  const rows = await rowsOf<{ next: string; running: string | null }>(
    db,
    sql`
    SELECT pg_snapshot_xmax(s)::text AS next,
      (SELECT min(x::text::bigint) FROM pg_snapshot_xip(s) AS x
        WHERE x::text::bigint % 4294967296 IN (
          SELECT backend_xid::text::bigint FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL
        ))::text AS running
    FROM pg_current_snapshot() AS s`,
  );
  const row = rows[0]!;
  const next = BigInt(row.next);
  return { next, settled: row.running === null ? next : BigInt(row.running) };
}

export interface StreamedEvent {
  cursor: Cursor;
  type: string;
  /** The webhook body: `{"type","timestamp","data"}`. */
  body: string;
}

/** The organization's processed events after `cursor` and before the `settled` horizon, in order. */
async function eventsAfter(
  db: Db,
  organizationId: string,
  cursor: Cursor,
  settled: bigint,
  types: readonly string[] | null,
): Promise<StreamedEvent[]> {
  const rows = await db
    .select({
      id: outbox.id,
      xid: sql<string>`${outbox.processedXid}::text`,
      at: sql<string>`${createdMicros}::text`,
      type: outbox.type,
      payload: outbox.payload,
      createdAt: outbox.createdAt,
    })
    .from(outbox)
    .where(
      and(
        eq(outbox.organizationId, organizationId),
        isNotNull(outbox.processedXid),
        sql`${outbox.processedXid} >= ${cursor.xid.toString()}::bigint`,
        sql`(${outbox.processedXid}, ${createdMicros}, ${outbox.id}) > (${cursor.xid.toString()}::bigint, ${cursor.at.toString()}::bigint, ${cursor.id}::uuid)`,
        sql`${outbox.processedXid} < ${settled.toString()}::bigint`,
        gt(outbox.processedAt, sql`now() - ${REPLAY_WINDOW}::interval`),
        // till's own types only when asked for by name (a forwarding receiver may validate with Polar's SDK); internal
        // ones never
        types ? inArray(outbox.type, [...types]) : and(sql`${outbox.type} NOT LIKE 'till.%'`, notInArray(outbox.type, [...INTERNAL_OUTBOX_TYPES])),
        // a customer.state_changed whose customer was gone when fanned out keeps its {id} and goes nowhere
        sql`NOT (${outbox.type} = 'customer.state_changed' AND ${outbox.payload} -> 'email' IS NULL)`,
      ),
    )
    .orderBy(asc(outbox.processedXid), asc(outbox.createdAt), asc(outbox.id))
    .limit(BATCH);
  return rows.map((r) => ({
    cursor: { xid: BigInt(r.xid), at: BigInt(r.at), id: r.id },
    type: r.type,
    body: formatBody("raw", { type: r.type, timestamp: r.createdAt.toISOString(), data: r.payload }),
  }));
}

// ---- input ----------------------------------------------------------------------------------------------

const ListenQuery = z.object({
  /** Repeated or comma-separated. */
  events: queryArray(z.string()).optional(),
  last_event_id: z.string().optional(),
  /** false: send what the cursor missed, then end (no live part). */
  follow: queryBool.optional(),
});

function eventTypes(values: string[] | undefined): WebhookEventType[] | null {
  if (!values) return null;
  const types = values.flatMap((v) => v.split(",")).map((t) => t.trim()).filter(Boolean);
  const known = new Set<string>(SUBSCRIBABLE_EVENT_TYPES);
  const unknown = types.find((t) => !known.has(t));
  if (unknown !== undefined) throw invalid(["query", "events"], `Unknown event type: ${unknown.slice(0, 100)}`, "enum");
  return types.length > 0 ? [...new Set(types)] as WebhookEventType[] : null;
}

/** The cursor to resume from, or null to start with what happens from now on. */
async function resumeCursor(db: Db, header: string | string[] | undefined, query: string | undefined): Promise<Cursor | null> {
  const fromHeader = Array.isArray(header) ? header[0] : header;
  const raw = fromHeader ?? query;
  if (raw === undefined || raw.trim() === "") return null;
  const loc = fromHeader !== undefined ? ["header", "last-event-id"] : ["query", "last_event_id"];
  const cursor = parseCursor(raw);
  if (!cursor) throw invalid(loc, "Last-Event-ID is not an event id of this stream", "value_error");
  // a cursor from the future (another database, or one reset since) would stall the stream silently
  if (cursor.xid >= (await horizon(db)).next) throw invalid(loc, "Last-Event-ID is not an event id of this database", "value_error");
  return cursor;
}

// ---- wake-ups: one LISTEN per process, shared by every stream -------------------------------------------

function wakeHub(listen: Database["listen"]) {
  const wakers = new Set<() => void>();
  let started: Promise<(() => Promise<void>) | null> | null = null;
  const notify = () => {
    for (const wake of wakers) wake();
  };
  return {
    add(wake: () => void): void {
      wakers.add(wake);
      started ??= listen ? listen(LISTEN_CHANNEL, notify).catch(() => null) : Promise.resolve(null);
    },
    delete(wake: () => void): void {
      wakers.delete(wake);
    },
    async close(): Promise<void> {
      const stop = await started;
      await stop?.().catch(() => {});
    },
  };
}

// ---- the route -----------------------------------------------------------------------------------------

export function listenRoutes(app: V1App, { db, listen, config, callers }: BillingDeps): void {
  // keep-alive comments stop proxies from closing an idle stream, and tell the CLI the stream is alive
  const keepAliveMs = config.streamKeepAliveMs;
  const hub = wakeHub(listen);
  const streams = new Set<FastifyReply>();
  // before the server stops accepting: an open stream would hold its close until the client left
  app.addHook("preClose", async () => {
    for (const reply of streams) reply.raw.end();
  });
  app.addHook("onClose", async () => hub.close());

  app.get("/cli/listen", route({ scope: "webhooks:read", operationId: "till:cli:listen", query: ListenQuery, responses: { 200: "text/event-stream", 422: validationError } }), async (req, reply) => {
    const { organizationId } = scopeOf(req);
    const q = req.query;
    const types = eventTypes(q.events);
    // without one, from now on: the rows of every transaction not finished yet are streamed as they settle
    let cursor: Cursor = (await resumeCursor(db, req.headers["last-event-id"], q.last_event_id)) ?? {
      xid: (await horizon(db)).settled - 1n,
      at: AFTER_ALL_TIMES,
      id: AFTER_ALL_IDS,
    };

    const raw = openEventStream(reply, keepAliveMs);
    raw.write(": till listen\n\n");

    let closed = false;
    let running = false;
    let again = false;
    // a slow client holds the replay back instead of it piling up in memory
    const write = (chunk: string) =>
      raw.write(chunk)
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const go = () => {
              raw.off("drain", go).off("close", go);
              resolve();
            };
            raw.on("drain", go).on("close", go);
          });
    const pump = async (): Promise<void> => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          for (;;) {
            const batch = await eventsAfter(db, organizationId, cursor, (await horizon(db)).settled, types);
            for (const e of batch) {
              if (closed) return;
              await write(`id: ${formatCursor(e.cursor)}\nevent: ${e.type}\ndata: ${e.body}\n\n`);
              cursor = e.cursor;
            }
            if (batch.length < BATCH) break;
          }
        } while (again && !closed);
      } catch (err) {
        // the database went away (a restart): the client reconnects and resumes from its last id
        req.log.warn({ err }, "listen stream ended");
        raw.end();
      } finally {
        running = false;
      }
    };
    const wake = () => void pump();

    if (q.follow === false) {
      await pump();
      raw.end();
      return;
    }
    const poll = setInterval(wake, POLL_MS);
    // the credential is checked again at each keep-alive: a signed-out session or a revoked key ends the stream,
    // and the client's reconnect then gets the 401 that says why (a stream must not outlive its credential)
    const keepalive = setInterval(() => {
      raw.write(": keep-alive\n\n");
      void callers.resolve(req.headers.authorization).then(
        (r) => {
          if (!r.ok && (r.error.status === 401 || r.error.code === "disabled_key")) raw.end();
        },
        () => {},
      );
    }, keepAliveMs);
    streams.add(reply);
    hub.add(wake);
    raw.on("close", () => {
      closed = true;
      clearInterval(poll);
      clearInterval(keepalive);
      hub.delete(wake);
      streams.delete(reply);
    });
    wake();
  });
}
