// bench:capacity's rig and its measure: a till process (`server/main.ts`, as deployed) started and stopped, the CPU
// of each process of the topology (the apps, a PostgreSQL cluster's server processes) from /proc, and `phase`,
// which runs one kind of work and prints its rate, those CPUs and the rate per core used.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { count, eq, isNull } from "drizzle-orm";
import type { Db } from "../../server/db/client.js";
import { customerEmail, invoice, outbox } from "../../server/db/schema/index.js";
import type { Cluster } from "../../tests/helpers/pg-cluster.js";
import { reservePort } from "../../tests/helpers/ports.js";
import { cpuMs } from "./server.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** CPU ms of a PostgreSQL cluster: its postmaster (with the children it reaped) and every live child of it. */
export function clusterCpuMs(cluster: Cluster): number {
  const postmaster = Number(readFileSync(path.join(cluster.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // f[1] ppid, f[11..14] utime stime cutime cstime (ticks of 1/100 s)
      if (Number(entry) === postmaster) total += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
      else if (Number(f[1]) === postmaster) total += (Number(f[11]) + Number(f[12])) * 10;
    } catch {
      // a process that ended while read
    }
  }
  return total;
}

export interface App {
  url: string;
  child: ChildProcess;
  /** Date.now() when /healthz first answered: its worker's schedules (renewals) tick then and every minute after. */
  upAt: number;
}

/** `node server/main.ts` on a free port, as a deployment runs it; resolves once /healthz answers. */
export async function startTill(env: Record<string, string>, dataDir: string): Promise<App> {
  const { port, release } = await reservePort();
  await release();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "server/main.ts")], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", TILL_BASE_URL: url, TILL_DATA_DIR: dataDir },
  });
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`till exited (code ${child.exitCode})`);
    const up = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (up) return { url, child, upAt: Date.now() };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("till did not start within 120 s");
}

export async function stopTill(app: App): Promise<void> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return;
  const exited = new Promise((resolve) => app.child.once("exit", resolve));
  app.child.kill("SIGTERM");
  await exited;
}

export interface Meters {
  apps: number[];
  primary: number;
  replica: number;
}

export function cpuNow(apps: App[], primary: Cluster, replica: Cluster): Meters {
  return { apps: apps.map((a) => cpuMs(a.child.pid!) ?? 0), primary: clusterCpuMs(primary), replica: clusterCpuMs(replica) };
}

/** CPU ms each part of the topology spent in a phase. */
export interface Spent {
  apps: number[];
  primary: number;
  replica: number;
}

/** Runs `work` (returns units done) with CPU measured around it; prints one line; returns the CPU ms spent. */
export async function phase(name: string, unit: string, docPerCore: string, apps: App[], primary: Cluster, replica: Cluster, work: () => Promise<number>): Promise<Spent> {
  const before = cpuNow(apps, primary, replica);
  const t0 = performance.now();
  const done = await work();
  const seconds = (performance.now() - t0) / 1000;
  const after = cpuNow(apps, primary, replica);
  const cores = (ms: number) => ms / 1000 / seconds;
  const appCores = after.apps.map((ms, i) => cores(ms - before.apps[i]!));
  const primaryCores = cores(after.primary - before.primary);
  const replicaCores = cores(after.replica - before.replica);
  const total = appCores.reduce((a, b) => a + b, 0) + primaryCores + replicaCores;
  const rate = done / seconds;
  console.log(
    `${name.padEnd(10)} ${rate.toFixed(0).padStart(8)} ${unit}/s   cores: app A ${appCores[0]!.toFixed(2)}, app B ${appCores[1]!.toFixed(2)}, ` +
      `primary ${primaryCores.toFixed(2)}, replica ${replicaCores.toFixed(2)} (= ${total.toFixed(2)})   ` +
      `${(rate / total).toFixed(0)} ${unit}/s per core used   docs/scaling.md: ${docPerCore}`,
  );
  return { apps: after.apps.map((ms, i) => ms - before.apps[i]!), primary: after.primary - before.primary, replica: after.replica - before.replica };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Outbox rows not processed yet (the earlier phases' after-work). */
export async function pendingOutbox(db: Db): Promise<number> {
  return (await db.select({ n: count() }).from(outbox).where(isNull(outbox.processedAt)))[0]!.n;
}

/** The after-work not done yet: outbox rows to fan out, invoices to render, customer emails to send. */
export async function pendingAfterWork(db: Db): Promise<{ outbox: number; invoices: number; emails: number }> {
  const [invoices, emails] = await Promise.all([
    db.select({ n: count() }).from(invoice).where(eq(invoice.status, "pending")),
    db.select({ n: count() }).from(customerEmail).where(isNull(customerEmail.sentAt)),
  ]);
  return { outbox: await pendingOutbox(db), invoices: invoices[0]!.n, emails: emails[0]!.n };
}
