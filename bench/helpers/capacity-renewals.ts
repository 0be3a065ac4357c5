// bench:capacity's renewals phase: a backlog of subscriptions due at once (bench/helpers/renewals.ts, as
// bench:billing-run seeds it) renewed by the billing run of both till processes' workers, on their own schedule:
// each process's worker runs it when it starts and every minute after (server/main.ts), so the backlog is made
// due just before app A's next pass, and app B joins at its own (B started a few seconds after A). The phase ends
// when none is due, or at its time limit. Who renewed what: a statement trigger of the bench's on "order" counts
// each statement's renewal orders by the PostgreSQL connection's client port, mapped to the till process holding
// that socket (/proc). The after-work the renewals cause (receipt emails, webhooks, invoices) runs in the same
// processes meanwhile; what is left of it when none is due is measured as a second phase, until done.
import { sql } from "drizzle-orm";
import { openDatabase, type Db } from "../../server/db/client.js";
import type { Cluster } from "../../tests/helpers/pg-cluster.js";
import { pendingAfterWork, phase, sleep, type App, type Spent } from "./capacity.js";
import type { BenchSeller } from "./client.js";
import { dueCount, makeRenewalCatalog, rows, seedDueSubscriptions } from "./renewals.js";
import { ownerOf, socketInode } from "./sockets.js";

/** The worker's schedules pass (server/jobs/schedules.ts, as server/main.ts starts them). */
const SCHEDULE_MS = 60_000;
/** Seeding must be done before the backlog falls due: time allowed for it. */
const SEED_ALLOWANCE_MS = 30_000;

export interface RenewalsPhase {
  apps: App[];
  seller: BenchSeller;
  primaryUrl: string;
  primary: Cluster;
  replica: Cluster;
  /** Subscriptions in the backlog. */
  n: number;
  /** The phase's time limit from the moment the backlog falls due. */
  limitMs: number;
}

/** Counts the renewal orders each statement inserts, by the inserting connection's client port. */
async function countRenewalsByConnection(db: Db): Promise<void> {
  await rows(db, sql.raw(`CREATE TABLE bench_renewed_by (client_port int, orders int, at timestamptz DEFAULT clock_timestamp())`));
  await rows(db, sql.raw(`CREATE FUNCTION bench_renewed_by() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      INSERT INTO bench_renewed_by (client_port, orders)
        SELECT inet_client_port(), count(*) FROM new_rows WHERE billing_reason = 'subscription_cycle' HAVING count(*) > 0;
      RETURN NULL; END $$`));
  await rows(db, sql.raw(`CREATE TRIGGER bench_renewed_by AFTER INSERT ON "order" REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION bench_renewed_by()`));
}

/** Renewal orders and the first one's time (s after `since`) per till process; pid 0: a connection not found. */
async function renewalsByApp(db: Db, apps: App[], primaryPort: number, since: number): Promise<Map<number, { orders: number; first: number }>> {
  const found = await rows(db, sql`SELECT client_port, sum(orders)::int AS orders, extract(epoch FROM min(at)) * 1000 AS first FROM bench_renewed_by GROUP BY client_port`);
  const byApp = new Map<number, { orders: number; first: number }>();
  for (const r of found) {
    const inode = socketInode(Number(r.client_port), primaryPort);
    const pid = inode === undefined ? 0 : ownerOf(inode, apps.map((a) => a.child.pid!));
    const was = byApp.get(pid);
    const first = (Number(r.first) - since) / 1000;
    byApp.set(pid, { orders: (was?.orders ?? 0) + Number(r.orders), first: Math.min(was?.first ?? Infinity, first) });
  }
  return byApp;
}

/** The first pass of app A's schedules at least `after` ms from now (its passes come a minute apart, or later). */
function nextPassOf(app: App, after: number): number {
  const from = Date.now() + after;
  // /healthz is polled every 200 ms: the schedules may have started up to that much before it answered
  const start = app.upAt - 300;
  return start + Math.ceil((from - start) / SCHEDULE_MS) * SCHEDULE_MS;
}

export async function renewals(p: RenewalsPhase): Promise<void> {
  const [a, b] = p.apps as [App, App];
  const database = await openDatabase({ url: p.primaryUrl, max: 2 });
  const db = database.db;
  try {
    const catalog = await makeRenewalCatalog(a.url, p.seller.auth);
    // the earlier phases' after-work (the confirms' invoices and emails) done first, for at most a minute
    for (let waited = 0; waited < 60_000; waited += 500) {
      const left = await pendingAfterWork(db);
      if (left.outbox + left.invoices + left.emails === 0) break;
      await sleep(500);
    }
    await countRenewalsByConnection(db);
    // due a second before app A's pass: A starts on it, B at its own pass a few seconds later
    const dueAt = nextPassOf(a, SEED_ALLOWANCE_MS) - 1000;
    const seeded = await seedDueSubscriptions(db, { ...catalog, organizationId: p.seller.organizationId, n: p.n, dueAt: new Date(dueAt) });
    const late = Date.now() > dueAt ? ` — done after the backlog fell due: app B may have begun first` : "";
    console.log(
      `           ${seeded.subscriptions} subscriptions due (30% with usage, ${seeded.events} events; 10% declined), seeded in ` +
        `${(seeded.subsSeconds + seeded.eventsSeconds + seeded.rollupSeconds).toFixed(1)} s${late}; app A's worker passes next at +${((dueAt + 1000 - Date.now()) / 1000).toFixed(0)} s`,
    );
    await sleep(dueAt - Date.now());
    let left = p.n;
    const renewing = await phase("renewals", "renewals", "≈ 490 renewals/s (by CPU, without their after-work)", p.apps, p.primary, p.replica, async () => {
      const deadline = dueAt + p.limitMs;
      while ((left = await dueCount(db, p.seller.organizationId)) > 0 && Date.now() < deadline) await sleep(250);
      return p.n - left;
    });
    const byApp = await renewalsByApp(db, p.apps, p.primary.port, dueAt);
    const of = (app: App) => byApp.get(app.child.pid!);
    const say = (name: string, r: { orders: number; first: number } | undefined) => `${name} ${r?.orders ?? 0}${r ? ` (from +${r.first.toFixed(1)} s)` : ""}`;
    const renewed = p.n - left;
    console.log(
      `           renewed by ${say("app A", of(a))}, ${say("app B", of(b))}, another connection ${byApp.get(0)?.orders ?? 0}; ` +
        `${renewed} of ${p.n}${left > 0 ? " by the phase's time limit" : ""} (times from when the backlog fell due; B started ${((b.upAt - a.upAt) / 1000).toFixed(1)} s after A)`,
    );
    // what the renewals left to the workers (receipt emails, webhooks, invoices), done before the next measure
    let rest = await pendingAfterWork(db);
    const draining = await phase("after-work", "renewals", "(the renewals' emails, webhooks and invoices)", p.apps, p.primary, p.replica, async () => {
      const deadline = Date.now() + p.limitMs;
      while ((rest = await pendingAfterWork(db)).outbox + rest.invoices + rest.emails > 0 && Date.now() < deadline) await sleep(250);
      return renewed;
    });
    const ms = (part: (s: Spent) => number) => ((part(renewing) + part(draining)) / renewed).toFixed(2);
    const apps = (s: Spent) => s.apps.reduce((x, y) => x + y, 0);
    console.log(
      `           CPU per renewal with its after-work: apps ${ms(apps)} ms, primary ${ms((s) => s.primary)} ms, replica ${ms((s) => s.replica)} ms` +
        (rest.outbox + rest.invoices + rest.emails > 0 ? ` (left undone at the time limit: ${rest.outbox} outbox rows, ${rest.invoices} invoices, ${rest.emails} emails)` : ""),
    );
  } finally {
    await database.close();
  }
}
