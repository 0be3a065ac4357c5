// Importing a Stripe Billing business against Stripe's rate limit: N customers (each with a card as its default
// payment method) and N monthly subscriptions (on three prices, one of them billed per seat with a quantity) seeded on
// the Stripe stand-in (tests/helpers/stripe-peer.ts) with its limiter off; then the limiter on at L requests a second
// for the account (a test-mode account: Stripe's limit there is 25/s, live 100/s) and till paced at the same L
// (TILL_STRIPE_IMPORT_RATE), and `POST /v1/stripe/imports {dry_run:false}` run by the worker's jobs
// ("billing-imports": lists of 100 with `expand`, the plan, the writes; "subscription-handovers": per subscription a
// read and an update at Stripe) until the run has succeeded. Prints the requests the stand-in served for the account
// over the import's wall time (POST to succeeded) as a share of L — goal ≥ 80 % — with the 429s it answered, the
// same per phase (reading, importing, moving), and till's CPU per imported subscription.
//
//   npm run bench:stripe-import                              # PGlite in memory: 2,000 at Stripe's test-mode 25/s
//   DATABASE_URL=postgres://… npm run bench:stripe-import    # a throw-away database on that server
//   TILL_BENCH_IMPORT_N=10000 TILL_BENCH_IMPORT_RATE=100 …   # another size, another limit (100: Stripe's live one)
//
// The share is the figure, at any N: 2,000 at 25/s take about three minutes (two requests per subscription), 10,000
// about fourteen. A higher L measures whether till's CPU keeps up (it needs about L/2 subscriptions a second times
// its CPU per subscription); the share at a given L falls once that passes the cores it has. What is counted is
// till's alone: the server and its worker run in a child process and read their own process.cpuUsage() around the
// import (on PGlite the database is in it too; on PostgreSQL its backends' CPU is printed apart), while the stand-in
// and the seeding client run in this parent. Loopback only; bounded in time (HARD_LIMIT_MS).
import os from "node:os";
import Stripe from "stripe";
import Fastify from "fastify";
import type { StripeImportWire } from "../shared/stripe-import.js";
import { benchSeller, call } from "./helpers/client.js";
import { cpuMeter } from "./helpers/cpu.js";
import { announce, spawnServer, startApp, stopServer, watchdog } from "./helpers/server.js";
import { StripePeer } from "../tests/helpers/stripe-peer.js";

const HARD_LIMIT_MS = 30 * 60_000;
/** TILL_BENCH_IMPORT_N: customers, and as many subscriptions. */
const N = Math.max(1, Number(process.env.TILL_BENCH_IMPORT_N ?? 2_000));
/** TILL_BENCH_IMPORT_RATE: the account's limit at the stand-in and till's pace (requests a second). */
const L = Math.max(1, Math.round(Number(process.env.TILL_BENCH_IMPORT_RATE ?? 25)));
const GOAL = 0.8;
/** Chains of requests the seeding client runs at once (the limiter is off then). */
const SEED_AT_ONCE = 24;
const POLL_MS = 500;
const ACCOUNT = "acct_1TillBenchImport";
const KEYS = { secret: "sk_test_51TillBenchImportAaaaaaaaaa0000", publishable: "pk_test_51TillBenchImportBbbbbbbbbbb" };

interface Endpoints {
  app: string;
  bare: string;
  driver: "postgres" | "pglite";
}

interface Cpu {
  user: number;
  system: number;
  dbMs: number;
}

// ---- child: till (the app and its worker) -------------------------------------------------------------------

async function serve(): Promise<void> {
  const served = await startApp({ env: { TILL_STRIPE_IMPORT_RATE: String(L) } });
  await served.worker.start();
  const meter = cpuMeter(served.database.url);
  const bare = Fastify({ logger: false });
  /** This process's CPU so far (µs): the app, its worker (and on PGlite the database); the backends' on PostgreSQL. */
  bare.get("/control/cpu", async (): Promise<Cpu> => ({ ...process.cpuUsage(), dbMs: (await meter.read()).db }));
  const bareUrl = await bare.listen({ port: 0, host: "127.0.0.1" });
  announce({ app: served.url, bare: bareUrl, driver: served.database.driver } satisfies Endpoints, [
    () => bare.close(),
    async () => void (await meter.close()),
    served.close,
  ]);
}

// ---- parent: the stand-in, its seed, the import --------------------------------------------------------------

/** Runs `fn(i)` for i in [0, n), `atOnce` at a time. */
async function each(n: number, atOnce: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) await fn(i);
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, n) }, worker));
}

/** N customers with a card each as their default, and a subscription each: 40 % Basic, 40 % Pro, 20 % Team seats (1–5). */
async function seed(peer: StripePeer): Promise<{ seconds: number; requests: number }> {
  const url = new URL(peer.url);
  const stripe = new Stripe(KEYS.secret, { host: url.hostname, port: Number(url.port), protocol: "http", telemetry: false, maxNetworkRetries: 0 });
  const t0 = performance.now();
  const before = peer.limits.servedFor(ACCOUNT);
  const basic = await stripe.prices.create({ product_data: { name: "Basic" }, currency: "usd", unit_amount: 900, recurring: { interval: "month" } });
  const pro = await stripe.prices.create({ product_data: { name: "Pro" }, currency: "usd", unit_amount: 2900, recurring: { interval: "month" } });
  const team = await stripe.prices.create({ product_data: { name: "Team" }, currency: "usd", unit_amount: 500, recurring: { interval: "month" } });
  await each(N, SEED_AT_ONCE, async (i) => {
    const customer = await stripe.customers.create({ email: `buyer-${i}@buyers.example.com`, name: `Buyer ${i}` });
    const card = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: card.id } });
    const kind = i % 5;
    const item = kind < 2 ? { price: basic.id } : kind < 4 ? { price: pro.id } : { price: team.id, quantity: 1 + (i % 5) + (i % 3) };
    await stripe.subscriptions.create({ customer: customer.id, items: [item] });
  });
  return { seconds: (performance.now() - t0) / 1000, requests: peer.limits.servedFor(ACCOUNT) - before };
}

/** A seller's sandbox organization (till_test_ key, no per-key limit) connected to the stand-in's account. */
async function sandboxSeller(base: string): Promise<{ auth: { authorization: string } }> {
  const seller = await benchSeller(base, "import");
  const key = await call<{ key: string }>(base, "POST", "/api/auth/api-key/create", {
    organizationId: seller.organizationId, name: "import-sandbox", prefix: "till_test_", rateLimitEnabled: false,
  }, { cookie: seller.cookie });
  const auth = { authorization: `Bearer ${key.json.key}` };
  // events forwarded as by `stripe listen` (its signing secret given): no endpoint made at the stand-in
  await call(base, "PUT", "/v1/stripe/connection", { secret_key: KEYS.secret, publishable_key: KEYS.publishable, webhook_secret: "whsec_benchbenchbenchbench" }, auth);
  return { auth };
}

/** A poll's answer; undefined when the connection was lost (a kept-alive socket closed by the server as it was reused). */
async function poll<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (err instanceof TypeError) return undefined;
    throw err;
  }
}

interface Mark {
  status: string;
  at: number;
  served: number;
  limited: number;
}

async function main(): Promise<void> {
  const started = Date.now();
  const peer = new StripePeer([{ id: ACCOUNT, keys: [{ secret: KEYS.secret }, { secret: KEYS.publishable }] }]);
  process.env.TILL_STRIPE_API_URL = await peer.start();
  const { child, endpoints } = await spawnServer<Endpoints>(import.meta.url);
  const disarm = watchdog(child, HARD_LIMIT_MS);
  const fmt = (n: number) => n.toLocaleString("en");
  try {
    const database = endpoints.driver === "postgres" ? "PostgreSQL" : "PGlite (in memory)";
    console.log(
      `\ntill Stripe import — ${database}; Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]?.toFixed(2)}; ` +
        `${fmt(N)} customers and subscriptions at a limit of ${L} requests/s; ${new Date().toISOString()}`,
    );
    const seeded = await seed(peer);
    console.log(`seeded the stand-in (limiter off): ${fmt(seeded.requests)} requests in ${seeded.seconds.toFixed(1)} s`);
    const { auth } = await sandboxSeller(endpoints.app);

    peer.limits.rateLimit = { test: L };
    const served = () => peer.limits.servedFor(ACCOUNT, "test");
    const limited = () => peer.limits.limited.get(`${ACCOUNT}|test`) ?? 0;
    const cpu = async () => (await call<Cpu>(endpoints.bare, "GET", "/control/cpu")).json;
    // the last moment a request was served (sampled every 50 ms): the requests' own window, beside the run's
    let lastServedAt = 0;
    let lastCount = served();
    const sampler = setInterval(() => {
      const n = served();
      if (n !== lastCount) [lastCount, lastServedAt] = [n, performance.now()];
    }, 50);
    const cpu0 = await cpu();
    const t0 = performance.now();
    const marks: Mark[] = [{ status: "posted", at: t0, served: served(), limited: limited() }];
    const run = await call<StripeImportWire>(endpoints.app, "POST", "/v1/stripe/imports", { dry_run: false }, auth);
    let last = run.json;
    while (!["succeeded", "failed", "planned"].includes(last.status)) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      last = await poll(() => call<StripeImportWire>(endpoints.app, "GET", `/v1/stripe/imports/${run.json.id}`, undefined, auth)).then((r) => r?.json ?? last);
      if (last.status !== marks.at(-1)?.status) marks.push({ status: last.status, at: performance.now(), served: served(), limited: limited() });
    }
    const t1 = performance.now();
    clearInterval(sampler);
    const cpu1 = await cpu();
    report({ marks, t0, t1, lastServedAt, last, cpu0, cpu1, driver: endpoints.driver });
    console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s in all)`);
  } finally {
    disarm();
    await stopServer(child);
    await peer.stop();
  }
}

function report(r: { marks: Mark[]; t0: number; t1: number; lastServedAt: number; last: StripeImportWire; cpu0: Cpu; cpu1: Cpu; driver: string }): void {
  const { marks, t0, t1, last } = r;
  const first = marks[0] as Mark;
  const end = marks.at(-1) as Mark;
  const seconds = (t1 - t0) / 1000;
  const requests = end.served - first.served;
  const share = requests / seconds / L;
  const moved = last.counts.subscription.moved ?? 0;
  console.log(`\nimport ${last.status}${last.error ? ` (${last.error})` : ""}: ${JSON.stringify(last.counts.subscription)} subscriptions, ` +
    `${JSON.stringify(last.counts.customer)} customers; till's own count of its reading: ${JSON.stringify(last.requests)}`);
  console.log("phase (as polled every 0.5 s)   seconds   requests   429s   rate/s   share of L");
  for (let i = 1; i < marks.length; i++) {
    const [a, b] = [marks[i - 1] as Mark, marks[i] as Mark];
    const s = (b.at - a.at) / 1000;
    const n = b.served - a.served;
    console.log(`${a.status.padEnd(30)} ${s.toFixed(1).padStart(8)} ${String(n).padStart(10)} ${String(b.limited - a.limited).padStart(6)} ` +
      `${(n / s).toFixed(1).padStart(8)} ${((n / s / L) * 100).toFixed(1).padStart(10)} %`);
  }
  const window = (r.lastServedAt - t0) / 1000;
  console.log(`requests' own window (POST to the last request served): ${window.toFixed(1)} s, ${((requests / window / L) * 100).toFixed(1)} % of L`);
  const cpuMs = (r.cpu1.user + r.cpu1.system - r.cpu0.user - r.cpu0.system) / 1000;
  const dbMs = r.cpu1.dbMs - r.cpu0.dbMs;
  const per = (ms: number) => (ms / Math.max(1, moved)).toFixed(2);
  console.log(
    `till's CPU per imported subscription: ${per(cpuMs)} ms (the server and worker process${r.driver === "pglite" ? ", PGlite in it" : ""}; ` +
      `${(cpuMs / 1000).toFixed(1)} s over ${seconds.toFixed(1)} s)` + (dbMs > 0 ? ` + PostgreSQL backends ${per(dbMs)} ms` : ""),
  );
  const verdict = share >= GOAL ? "meets" : "misses";
  console.log(
    `\nrequest rate: ${requests} requests (${end.limited - first.limited} answered 429) in ${seconds.toFixed(1)} s = ${(requests / seconds).toFixed(1)}/s ` +
      `= ${(share * 100).toFixed(1)} % of the limit of ${L}/s — ${verdict} the goal of ≥ ${GOAL * 100} %; ${fmtRatio(requests, moved)} requests per moved subscription`,
  );
}

const fmtRatio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : "-");

if (process.argv.includes("--serve")) {
  serve().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
