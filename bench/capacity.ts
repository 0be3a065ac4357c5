// The capacity model of docs/scaling.md checked on one machine: a PostgreSQL primary and a streaming
// replica of it made here (tests/helpers/pg-cluster.ts: initdb, pg_basebackup -R), and TWO till processes
// (`server/main.ts`, as deployed: DATABASE_URL the primary, DATABASE_REPLICA_URL the replica) behind a round-robin
// client. Each phase drives one kind of work through both processes for PHASE_SECONDS and prints its rate, the CPU
// each process used (the two apps, the primary's and the replica's server processes, from /proc) and the rate per
// core of all of them, next to the figure per core in docs/scaling.md:
//   ingest   POST /v1/events/ingest, batches of 1,000 with external_id, two meters' rollups kept;
//   reads    GET /v1/customers/{id}/state and GET /v1/customers/?limit=10 alternately (served by the replica);
//   deliveries  a backlog of TILL_BENCH_DELIVERIES `organization.updated` outbox events (written in one
//            transaction at the phase's start) fanned out, signed and POSTed by both processes' workers to a loopback
//            receiver that answers 200 at once, until all are recorded as delivered (at most 6 × PHASE_SECONDS); the
//            receiver counts what each process delivered;
//   confirms POST /v1/checkouts/client/{secret}/confirm of a one-time purchase with the test card, each a new
//            customer (the checkouts and their card tokens made before the phase, not measured);
//   renewals a backlog of TILL_BENCH_RENEWALS subscriptions due at once (seeded in SQL as bench:billing-run does,
//            not measured), renewed by both processes' billing runs on their own schedule, until none is due (at
//            most 6 × PHASE_SECONDS; TILL_RENEWAL_CONCURRENCY=4), counted by the process that renewed; then
//            "after-work": the emails, webhooks and invoices they left, until done (bench/helpers/capacity-renewals.ts).
// Linux only (CPU from /proc); needs the PostgreSQL server binaries (Debian: postgresql-15).
//
//   npm run bench:capacity           TILL_BENCH_PHASE_SECONDS=20 …   (default 15)
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, count, eq } from "drizzle-orm";
import { enqueue } from "../server/db/outbox.js";
import { openDatabase, type Db } from "../server/db/client.js";
import { webhookEvent } from "../server/db/schema/index.js";
import { phase, pendingOutbox, sleep, startTill, stopTill, type App } from "./helpers/capacity.js";
import { renewals } from "./helpers/capacity-renewals.js";
import { benchSeller, call, type BenchSeller } from "./helpers/client.js";
import { startReceiver } from "./helpers/receiver.js";
import { measureIngest } from "./scale-table.js";
import { createDatabase, missingBinaries, startPrimary, startReplica, teardown, type Cluster } from "../tests/helpers/pg-cluster.js";

const PHASE_SECONDS = Number(process.env.TILL_BENCH_PHASE_SECONDS ?? 15);
const CONCURRENCY = 4;
const CUSTOMERS = 200;
/** Checkouts made for the confirms phase: more than two app processes confirm in a phase on this machine. */
const CHECKOUTS = Number(process.env.TILL_BENCH_CHECKOUTS ?? 4000);
/** The deliveries phase's backlog: more than two workers deliver in PHASE_SECONDS on this machine. */
const DELIVERIES = Number(process.env.TILL_BENCH_DELIVERIES ?? 20_000);
/** The renewals phase's backlog: more than two workers renew in PHASE_SECONDS on this machine. */
const RENEWALS = Number(process.env.TILL_BENCH_RENEWALS ?? 5000);
const HARD_LIMIT_MS = 20 * 60_000;

/** `n` open checkouts of a one-time product, each with its test card's token, made through both processes. */
async function prepareCheckouts(apps: App[], auth: Record<string, string>, n: number): Promise<Array<{ secret: string; token: string }>> {
  const product = await call<{ id: string }>(apps[0]!.url, "POST", "/v1/products/", { name: "E-book", prices: [{ amount_type: "fixed", price_amount: 1900, price_currency: "usd" }] }, auth);
  const card = { number: "4242424242424242", exp_month: 12, exp_year: new Date().getUTCFullYear() + 2, cvc: "123" };
  const made: Array<{ secret: string; token: string }> = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY * 2 }, async (_, w) => {
      const base = apps[w % 2]!.url;
      while (made.length < n) {
        const checkout = await call<{ client_secret: string }>(base, "POST", "/v1/checkouts/", { products: [product.json.id] }, auth);
        const secret = checkout.json.client_secret;
        const token = await call<{ confirmation_token_id: string }>(base, "POST", `/v1/checkouts/client/${secret}/test-card`, card);
        made.push({ secret, token: token.json.confirmation_token_id });
      }
    }),
  );
  return made;
}

/** The endpoint's events recorded as delivered. */
async function deliveredTo(db: Db, endpointId: string): Promise<number> {
  return (await db.select({ n: count() }).from(webhookEvent).where(and(eq(webhookEvent.endpointId, endpointId), eq(webhookEvent.succeeded, true))))[0]!.n;
}

/**
 * The deliveries phase: an endpoint of the seller's for `organization.updated` at a loopback receiver, then a
 * backlog of that event (the organization as the API returns it) written to the outbox in one transaction, as a
 * cause's transaction writes it; done when every event is recorded as delivered, or after 6 × PHASE_SECONDS.
 */
async function deliveries(apps: App[], seller: BenchSeller, primaryUrl: string, primary: Cluster, replica: Cluster): Promise<void> {
  const receiver = await startReceiver(apps.map((app) => app.child.pid!));
  const database = await openDatabase({ url: primaryUrl, max: 2 });
  try {
    const endpoint = await call<{ id: string }>(apps[0]!.url, "POST", "/v1/webhooks/endpoints", { url: receiver.url, format: "raw", events: ["organization.updated"] }, seller.auth);
    const org = await call<Record<string, unknown>>(apps[0]!.url, "GET", `/v1/organizations/${seller.organizationId}`, undefined, seller.auth);
    const event = { type: "organization.updated" as const, organizationId: seller.organizationId, data: org.json };
    for (let waited = 0; (await pendingOutbox(database.db)) > 0 && waited < 60_000; waited += 200) await sleep(200);
    let recorded = 0;
    await phase("deliveries", "deliveries", "≈ 1,240 deliveries/s", apps, primary, replica, async () => {
      await database.db.transaction(async (tx) => {
        for (let i = 0; i < DELIVERIES; i += 1000) await enqueue(tx, Array.from({ length: Math.min(1000, DELIVERIES - i) }, () => event));
      });
      const deadline = Date.now() + 6 * PHASE_SECONDS * 1000;
      // the receiver's count costs the database nothing; the delivery log is read once the POSTs are in
      while (receiver.hits < DELIVERIES && Date.now() < deadline) await sleep(20);
      while ((recorded = await deliveredTo(database.db, endpoint.json.id)) < DELIVERIES && Date.now() < deadline) await sleep(50);
      return recorded;
    });
    const [a, b] = apps.map((app) => receiver.hitsBy(app.child.pid!)) as [number, number];
    console.log(
      `             POSTs received from app A ${a}, app B ${b}, another process ${receiver.hits - a - b}; ` +
        `${recorded} of ${DELIVERIES} recorded as delivered${recorded < DELIVERIES ? " by the phase's time limit" : ""}`,
    );
    await call(apps[0]!.url, "PATCH", `/v1/webhooks/endpoints/${endpoint.json.id}`, { enabled: false }, seller.auth);
  } finally {
    await database.close();
    await receiver.close();
  }
}

async function main(): Promise<void> {
  const missing = missingBinaries();
  if (missing.length > 0) throw new Error(`bench:capacity needs ${missing.join(", ")}`);
  const limit = setTimeout(() => {
    console.error(`bench: gave up after ${HARD_LIMIT_MS / 1000} s`);
    process.exit(1);
  }, HARD_LIMIT_MS);
  limit.unref();
  const dataDirs: string[] = [];
  const apps: App[] = [];
  let primary: Cluster | undefined;
  let replica: Cluster | undefined;
  try {
    primary = await startPrimary();
    replica = await startReplica(primary);
    const url = await createDatabase(primary, "till");
    const env = {
      DATABASE_URL: url,
      DATABASE_REPLICA_URL: replica.url("till"),
      TILL_AUTH_SECRET: "capacity-bench-secret-".padEnd(40, "x"),
      TILL_RATE_LIMIT: "false",
      TILL_LOG_LEVEL: "silent",
      TILL_TEST_PAYMENTS: "live",
      // the deliveries phase's receiver is on loopback
      TILL_WEBHOOKS_ALLOW_PRIVATE: "true",
      // claiming transactions of each worker's billing run at once, as bench:billing-run runs it (default 1)
      TILL_RENEWAL_CONCURRENCY: "4",
    };
    // one after the other: the first runs the migrations
    for (let i = 0; i < 2; i++) {
      const dir = mkdtempSync(path.join(os.tmpdir(), "till-capacity-"));
      dataDirs.push(dir);
      apps.push(await startTill(env, dir));
    }
    const [a, b] = apps as [App, App];
    const seller = await benchSeller(a.url, "capacity");
    const filter = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "scale.call" }] };
    for (const aggregation of [{ func: "sum", property: "units" }, { func: "count" }]) {
      await call(a.url, "POST", "/v1/meters/", { name: `Capacity ${aggregation.func}`, filter, aggregation }, seller.auth);
    }
    const customers: string[] = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const base = i % 2 === 0 ? a.url : b.url;
      customers.push((await call<{ id: string }>(base, "POST", "/v1/customers/", { email: `c${i}@example.com`, ...(i < 50 ? { external_id: `ingest-${i}` } : {}) }, seller.auth)).json.id);
    }
    console.log(`\ntill capacity — two till processes, a primary and a streaming replica on this machine; Node ${process.version}, ${os.cpus().length} CPUs`);
    console.log(`(each phase ${PHASE_SECONDS} s through both processes; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")})`);

    await phase("ingest", "events", "≈ 16,000 events/s", apps, primary, replica, async () => {
      const halves = await Promise.all(apps.map((app) => measureIngest(app.url, seller.auth, PHASE_SECONDS, CONCURRENCY / 2)));
      if (halves.some((h) => h.failures > 0)) throw new Error("ingest: batches failed");
      return halves.reduce((sum, h) => sum + h.rate, 0) * PHASE_SECONDS;
    });

    // the replica has replayed the ingest before the reads start (the key wrote: its reads wait for that)
    await new Promise((r) => setTimeout(r, 3000));
    await phase("reads", "reads", "not recorded as a rate (4.5 ms state, 9–15 ms list at 1M rows)", apps, primary, replica, async () => {
      let reads = 0;
      const deadline = Date.now() + PHASE_SECONDS * 1000;
      await Promise.all(
        Array.from({ length: CONCURRENCY * 2 }, async (_, w) => {
          const base = apps[w % 2]!.url;
          for (let n = 0; Date.now() < deadline; n++) {
            const p = n % 2 === 0 ? `/v1/customers/${customers[(w * 31 + n) % CUSTOMERS]}/state` : "/v1/customers/?limit=10";
            await call(base, "GET", p, undefined, seller.auth);
            reads++;
          }
        }),
      );
      return reads;
    });

    await deliveries(apps, seller, url, primary, replica);

    const checkouts = await prepareCheckouts(apps, seller.auth, CHECKOUTS);
    await phase("confirms", "confirms", "≈ 165 confirms/s", apps, primary, replica, async () => {
      let next = 0;
      let failures = 0;
      const deadline = Date.now() + PHASE_SECONDS * 1000;
      await Promise.all(
        Array.from({ length: CONCURRENCY * 2 }, async (_, w) => {
          const base = apps[w % 2]!.url;
          while (Date.now() < deadline && next < checkouts.length) {
            const i = next++;
            const c = checkouts[i]!;
            const body = { customer_email: `buyer-${i}@example.com`, customer_name: "Bench Buyer", customer_billing_address: { country: "FR" }, confirmation_token_id: c.token };
            await call(base, "POST", `/v1/checkouts/client/${c.secret}/confirm`, body).catch(() => failures++);
          }
        }),
      );
      if (next >= checkouts.length) console.error(`confirms: all ${checkouts.length} prepared checkouts used before the phase's end`);
      if (failures > 0) throw new Error(`confirms: ${failures} failed`);
      return next;
    });

    await renewals({ apps, seller, primaryUrl: url, primary, replica, n: RENEWALS, limitMs: 6 * PHASE_SECONDS * 1000 });
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  } finally {
    await teardown([...apps.map((app) => () => stopTill(app)), replica?.destroy, primary?.destroy]);
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
