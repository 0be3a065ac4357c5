// Webhook delivery, against a baseline measured in the same run:
//   1. throughput: a backlog of outbox events fanned out, signed, POSTed to a loopback receiver and recorded
//      (deliveries/s)  vs  the same POSTs sent straight from a loop with the same concurrency (no database);
//   2. latency: events enqueued at a steady 100/s for 10 s while the worker runs; enqueue → first attempt
//      (outbox.created_at → the attempt's start), p50/p99.
// Goals: (1) ≥ 1,000 deliveries/s, (2) p99 < 1 s (the outbox trigger's NOTIFY wakes the worker at once).
//
//   npm run bench:webhooks                                  # PGlite (in memory)
//   DATABASE_URL=postgres://… npm run bench:webhooks        # a throw-away database on that server
//
// The receiver runs in a child process so it does not share the worker's event loop. Loopback only; every
// phase is bounded in time.
import { spawn } from "node:child_process";
import http from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { and, count, eq, isNotNull, sql } from "drizzle-orm";
import { organization, outbox, webhookDelivery, webhookEndpoint, webhookEvent } from "../server/db/schema/index.js";
import { enqueue } from "../server/db/outbox.js";
import { createWorker } from "../server/jobs/worker.js";
import { generateSecret, signHeaders, signingKeys } from "../server/billing/webhooks/signing.js";
import { freshDatabase } from "../tests/helpers/db.js";
import { startReceiver } from "./helpers/receiver.js";

const BACKLOG = { postgres: 10_000, pglite: 5_000 };
const CONCURRENCY = 64;
const RATE_PER_S = 100;
const STEADY_SECONDS = 10;
const GOAL_DELIVERIES_PER_S = 1_000;
const GOAL_P99_MS = 1_000;
const HARD_LIMIT_MS = 180_000;

// ---- child: the receiver ------------------------------------------------------------------------

async function receive(): Promise<void> {
  const receiver = await startReceiver();
  console.log(`PORT ${new URL(receiver.url).port}`);
  process.stdin.on("data", () => console.log(`HITS ${receiver.hits}`));
  process.stdin.on("end", () => process.exit(0));
}

// ---- parent: the worker and the load ------------------------------------------------------------

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  const killer = setTimeout(() => {
    console.error(`bench: gave up after ${HARD_LIMIT_MS / 1000} s`);
    process.exit(2);
  }, HARD_LIMIT_MS);
  killer.unref();

  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--receiver"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve) =>
    lines.on("line", (l) => {
      const m = /^PORT (\d+)$/.exec(l);
      if (m) resolve(Number(m[1]));
    }),
  );
  const url = `http://127.0.0.1:${port}/hook`;

  const database = await freshDatabase();
  const db = database.db;
  const backlog = BACKLOG[database.driver];
  console.log(`webhooks bench on ${database.driver}; receiver ${url}; concurrency ${CONCURRENCY}`);
  try {
    const [org] = await db
      .insert(organization)
      .values({ name: "Bench org", slug: `bench-${Date.now()}`, createdAt: new Date() })
      .returning();
    const secret = generateSecret();
    const [endpoint] = await db
      .insert(webhookEndpoint)
      .values({ organizationId: org!.id, url, secret, format: "raw", events: ["organization.updated"] })
      .returning();
    const data = {
      id: org!.id,
      name: "Bench org",
      slug: org!.slug,
      created_at: new Date().toISOString(),
      modified_at: null,
      avatar_url: null,
      email: null,
      website: null,
      socials: [],
      status: "active",
      details_submitted_at: null,
      feature_settings: { issue_funding_enabled: false, seat_based_pricing_enabled: false },
      subscription_settings: { allow_multiple_subscriptions: false, allow_customer_updates: true, proration_behavior: "invoice" },
      notification_settings: { new_order: true, new_subscription: true },
      customer_email_settings: { order_confirmation: true, subscription_confirmation: true },
    };
    const event = { type: "organization.updated" as const, organizationId: org!.id, data };

    // -- baseline: the same signed POSTs from a plain loop
    const body = JSON.stringify({ type: event.type, timestamp: new Date().toISOString(), data });
    const keys = signingKeys(secret);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const post = () =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(url, {
          method: "POST",
          agent,
          headers: { ...signHeaders(keys, crypto.randomUUID(), body), "content-type": "application/json" },
        });
        req.on("response", (res) => {
          res.resume();
          res.on("end", resolve);
        });
        req.on("error", reject);
        req.end(body);
      });
    let sent = 0;
    const baselineStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (sent < backlog) {
          sent += 1;
          await post();
        }
      }),
    );
    const baselinePerS = backlog / ((performance.now() - baselineStart) / 1000);
    agent.destroy();

    // -- 1. throughput over a backlog
    for (let i = 0; i < backlog; i += 500) {
      await db.transaction((tx) => enqueue(tx, Array.from({ length: Math.min(500, backlog - i) }, () => event)));
    }
    const worker = createWorker({ database, mailer: { transport: "smtp", send: async () => {} }, config: { webhooks: { allowPrivate: true } }, options: { concurrency: CONCURRENCY } });
    const start = performance.now();
    await worker.start();
    const delivered = async () =>
      (await db.select({ n: count() }).from(webhookEvent).where(and(eq(webhookEvent.endpointId, endpoint!.id), eq(webhookEvent.succeeded, true))))[0]!.n;
    while ((await delivered()) < backlog) await new Promise((r) => setTimeout(r, 50));
    const perS = backlog / ((performance.now() - start) / 1000);

    // -- 2. latency at a steady rate
    await db.delete(webhookDelivery);
    await db.delete(webhookEvent);
    await db.delete(outbox);
    const total = RATE_PER_S * STEADY_SECONDS;
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE_PER_S;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await db.transaction((tx) => enqueue(tx, event));
    }
    while ((await delivered()) < total) await new Promise((r) => setTimeout(r, 50));
    await worker.stop();
    const rows = await db
      .select({ enqueued: outbox.createdAt, attempted: sql<Date>`min(${webhookDelivery.createdAt})`.mapWith((v: string | Date) => new Date(v)) })
      .from(outbox)
      .innerJoin(webhookEvent, eq(webhookEvent.outboxId, outbox.id))
      .innerJoin(webhookDelivery, eq(webhookDelivery.eventId, webhookEvent.id))
      .where(isNotNull(outbox.processedAt))
      .groupBy(outbox.id, outbox.createdAt);
    const latencies = rows.map((r) => r.attempted.getTime() - r.enqueued.getTime()).sort((a, b) => a - b);

    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    console.log("");
    console.log(`1. throughput   ${perS.toFixed(0).padStart(6)} deliveries/s  (backlog ${backlog}; baseline, POSTs without the database: ${baselinePerS.toFixed(0)}/s → ${((perS / baselinePerS) * 100).toFixed(0)}%)  goal ≥ ${GOAL_DELIVERIES_PER_S}: ${perS >= GOAL_DELIVERIES_PER_S ? "met" : "NOT met"}`);
    console.log(`2. latency      p50 ${p50} ms, p99 ${p99} ms, max ${latencies.at(-1)} ms  (${latencies.length} events at ${RATE_PER_S}/s for ${STEADY_SECONDS} s)  goal p99 < ${GOAL_P99_MS} ms: ${p99 < GOAL_P99_MS ? "met" : "NOT met"}`);
  } finally {
    child.stdin!.end();
    await database.close();
  }
}

if (process.argv.includes("--receiver")) await receive();
else await main();
