// CPU time, the figure to read beside a wall time on a loaded machine: this process's and, on PostgreSQL, that of
// every backend connected to the bench's database (from /proc, so PostgreSQL on the same machine only).
import { readFileSync } from "node:fs";
import postgres from "postgres";

/**
 * CPU time so far: this process's (the app serves in it; the client's fetch and parse are in it too) and, on
 * PostgreSQL, the database's backends' (utime + stime of each connection to it, from /proc, at 100 Hz).
 */
export function cpuMeter(url: string | undefined) {
  const admin = url ? postgres(url, { max: 1, onnotice: () => {} }) : undefined;
  const ticks = (pid: number) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      return Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
    } catch {
      return 0;
    }
  };
  const backends = admin !== undefined;
  return {
    backends,
    async read(): Promise<{ node: number; db: number }> {
      const usage = process.cpuUsage();
      const node = (usage.user + usage.system) / 1000;
      if (!admin) return { node, db: 0 };
      const pids = await admin<Array<{ pid: number }>>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`;
      return { node, db: pids.reduce((a, p) => a + ticks(p.pid), 0) * 10 };
    },
    close: () => admin?.end(),
  };
}
