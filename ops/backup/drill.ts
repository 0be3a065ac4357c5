// The restore drill (`npm run drill:restore`, not in CI: a maintainer runs it, it takes a few minutes): a
// PostgreSQL cluster of its own with continuous archiving set up by setup.sh, till on it selling (paid orders,
// subscriptions, usage events), a full backup, more business, a moment T noted with what existed then, more
// business after T, then restore.sh restores the backup and the archived WAL up to T into a fresh cluster, till
// starts on it, and the drill checks that every order, subscription and event of T is there and none made after.
// It prints the figures: backup size and time, restore time, rows checked, the drill's total time.
//
//   npm run drill:restore
//   TILL_DRILL_DIR=/tmp/till-backup TILL_DRILL_PORTS=56432,56433 TILL_DRILL_EVENTS=100000 npm run drill:restore
//
// Needs PostgreSQL 15's server binaries and pgBackRest (Debian: postgresql-15, pgbackrest). Everything lives under
// TILL_DRILL_DIR (removed first, and at the end unless TILL_DRILL_KEEP=1); the clusters listen on loopback only, on
// their own ports: a PostgreSQL already running on this machine is not touched.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { asPostgres, backups, clearScratch, diskBytes, initCluster, ownedDir, scratchCluster, script } from "./drill-cluster.js";
import { added, checkThroughApi, doBusiness, holdings, openShop, tillOn, type Batch, type Holdings, type RunningTill } from "./drill-data.js";

const ROOT = process.env.TILL_DRILL_DIR ?? "/tmp/till-backup";
const [SOURCE_PORT, RESTORE_PORT] = (process.env.TILL_DRILL_PORTS ?? "56432,56433").split(",").map(Number) as [number, number];
const EVENTS = Number(process.env.TILL_DRILL_EVENTS ?? 100_000);
const BATCH: Batch = { orders: 20, subscriptions: 10, events: EVENTS };
const STANZA = "till";
const CONFIG = path.join(ROOT, "pgbackrest", "pgbackrest.conf");
const REPO = path.join(ROOT, "repo");
const HARD_LIMIT_MS = 20 * 60_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const count = (h: Holdings) => `${h.orders.length} orders, ${h.subscriptions.length} subscriptions, ${h.events.length} events`;

async function timed<T>(what: string, f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  const value = await f();
  const ms = Date.now() - t0;
  console.log(`  ${what.padEnd(58)} ${seconds(ms).padStart(8)}`);
  return { value, ms };
}

/** One statement on a cluster's database. */
async function query<T extends object>(url: string, text: string): Promise<T[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await sql.unsafe<T[]>(text);
  } finally {
    await sql.end();
  }
}

/** Holdings equal, kind by kind; the first difference as a message. */
function sameHoldings(want: Holdings, got: Holdings): string | undefined {
  for (const kind of ["orders", "subscriptions", "events"] as const) {
    const a = want[kind];
    const b = got[kind];
    if (a.length !== b.length || a.some((id, i) => id !== b[i])) return `${kind}: ${a.length} at T, ${b.length} restored`;
  }
  return undefined;
}

async function drill(): Promise<void> {
  const started = Date.now();
  const source = scratchCluster(path.join(ROOT, "source"), SOURCE_PORT, ROOT);
  const restored = scratchCluster(path.join(ROOT, "restored"), RESTORE_PORT, ROOT);
  await clearScratch(ROOT, [source, restored]);
  ownedDir(ROOT);
  console.log(`till restore drill — pgBackRest, PostgreSQL 15, ports ${SOURCE_PORT} and ${RESTORE_PORT} under ${ROOT}; Node ${process.version}, ${os.cpus().length} CPUs`);
  const tills: RunningTill[] = [];
  try {
    await timed("source cluster: initdb and start", async () => {
      await initCluster(source.data, source.port, ROOT);
      await source.start();
    });
    await timed("setup.sh: archiving on (restart), stanza, check, first full backup", () =>
      script("setup.sh", ["--pgdata", source.data, "--port", String(source.port), "--socket", ROOT, "--repo", REPO, "--config", CONFIG, "--stanza", STANZA, "--restart"]),
    );
    await query(source.url(), "CREATE DATABASE till");
    const till = (await timed("till on the source (migrations)", () => tillOn(source.url("till")))).value;
    tills.push(till);
    const shop = await openShop(till.url);
    await timed(`business before the backup (${BATCH.orders} orders, ${BATCH.subscriptions} subscriptions, ${EVENTS} events)`, () => doBusiness(till.url, shop, "a", BATCH));

    const backup = await timed("full backup (pgbackrest backup --type=full)", () => asPostgres("pgbackrest", [`--config=${CONFIG}`, `--stanza=${STANZA}`, "--type=full", "backup"]));
    const last = (await backups(CONFIG, STANZA)).at(-1);
    if (!last) throw new Error("pgBackRest lists no backup");

    await timed("business after the backup, before T (WAL only)", () => doBusiness(till.url, shop, "b", BATCH));
    const atT = await holdings(source.url("till"));
    const [{ t }] = (await query<{ t: string }>(source.url("till"), "SELECT clock_timestamp()::text AS t")) as [{ t: string }];
    console.log(`  T = ${t}: ${count(atT)}`);
    // a clear second between T and the first write after it
    await new Promise((r) => setTimeout(r, 1500));
    await timed("business after T", () => doBusiness(till.url, shop, "c", BATCH));
    const afterT = added(atT, await holdings(source.url("till")));
    console.log(`  after T: ${count(afterT)}`);
    // the segment holding T's last writes and the later ones reaches the repository (check switches WAL and waits)
    await timed("WAL switched and archived (pgbackrest check)", () => asPostgres("pgbackrest", [`--config=${CONFIG}`, `--stanza=${STANZA}`, "check"]));
    await till.stop();

    const restore = await timed("restore.sh to T into a fresh directory", () =>
      script("restore.sh", ["--into", restored.data, "--target", t, "--config", CONFIG, "--stanza", STANZA, "--no-archiving"]),
    );
    const replay = await timed("restored cluster: start, replay WAL to T, promote", async () => {
      await restored.start();
      for (;;) {
        const [row] = await query<{ r: boolean }>(restored.url(), "SELECT pg_is_in_recovery() AS r");
        if (row && !row.r) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    });
    // PostgreSQL's own word on where recovery stopped: before the first commit after T
    for (const line of readFileSync(`${restored.data}.log`, "utf8").split("\n")) {
      if (/recovery stopping|last completed transaction/.test(line)) console.log(`    ${line.replace(/^.*?LOG:\s+/, "")}`);
    }
    const back = (await timed("till on the restored cluster", () => tillOn(restored.url("till")))).value;
    tills.push(back);

    const got = await holdings(restored.url("till"));
    const wrong = sameHoldings(atT, got);
    if (wrong) throw new Error(`the restored database is not the one of T: ${wrong}`);
    const asked = await checkThroughApi(back.url, shop.seller.auth, atT, afterT);
    // the restored database takes writes: one more event through the restored till
    await doBusiness(back.url, shop, "d", { orders: 1, subscriptions: 0, events: 1 });

    const rows = atT.orders.length + atT.subscriptions.length + atT.events.length;
    const absent = afterT.orders.length + afterT.subscriptions.length + afterT.events.length;
    console.log("\nfigures");
    console.log(`  backup: ${mb(last.size)} of database, ${mb(last.repoSize)} in the repository (zstd), ${seconds(backup.ms)} (pgBackRest: ${last.seconds} s)`);
    console.log(`  repository on disk (2 full backups and the archived WAL): ${mb(await diskBytes(REPO))}`);
    console.log(`  restore: ${seconds(restore.ms)} to restore the files, ${seconds(replay.ms)} to replay to T and open; ${seconds(restore.ms + replay.ms)} in all`);
    console.log(`  rows checked: ${rows} present at T (${count(atT)}), identical ids; ${absent} made after T absent`);
    console.log(`  through till on the restored database: ${asked} GETs answered as expected (every order and subscription, every 50th event)`);
    console.log(`  drill total: ${seconds(Date.now() - started)}`);
    console.log("restore drill: PASSED");
  } finally {
    for (const t of tills) await t.stop().catch(() => {});
    if (process.env.TILL_DRILL_KEEP === "1") console.log(`kept: ${ROOT} (clusters stopped)`);
    if (process.env.TILL_DRILL_KEEP === "1") for (const c of [restored, source]) await c.stop().catch(() => {});
    else await clearScratch(ROOT, [restored, source]);
  }
}

const watchdog = setTimeout(() => {
  console.error(`restore drill: gave up after ${HARD_LIMIT_MS / 60_000} min`);
  process.exit(1);
}, HARD_LIMIT_MS);
drill().then(
  () => {
    clearTimeout(watchdog);
    process.exit(0);
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    console.error("restore drill: FAILED");
    process.exit(1);
  },
);
