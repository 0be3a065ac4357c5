// Who holds an embedded data directory (TILL_DATA_DIR): a file `till.pid` naming the process that opened it. Two
// processes on one PGlite database corrupt it, and a backup or restore under a running server copies or replaces
// files it is writing (PGlite's own postmaster.pid names no real process). The server takes it on start in the
// embedded mode, `till admin backup|restore` while they work; a file whose process is gone is left over from a
// process that was killed, and is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

export const LOCK_FILE = "till.pid";

export interface DataDirHolder {
  pid: number;
  /** What holds it: "server" (with its base URL), "till admin backup", "till admin restore". */
  owner: string;
  since: string;
}

export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirHolder,
  ) {
    super(`${dataDir} is in use by ${holder.owner} (process ${holder.pid}, since ${holder.since})`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user is there
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(file: string): DataDirHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<DataDirHolder>;
    if (typeof parsed.pid !== "number" || typeof parsed.owner !== "string") return null;
    return { pid: parsed.pid, owner: parsed.owner, since: typeof parsed.since === "string" ? parsed.since : "?" };
  } catch {
    return null;
  }
}

/** The live process holding `dataDir`, if any. */
export function dataDirHolder(dataDir: string): DataDirHolder | null {
  const holder = readHolder(path.join(dataDir, LOCK_FILE));
  return holder && holder.pid !== process.pid && alive(holder.pid) ? holder : null;
}

/**
 * Takes `dataDir` for this process (created if missing); throws DataDirBusyError while another live process holds
 * it. The returned function gives it back (also run at exit).
 */
export function lockDataDir(dataDir: string, owner: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const mine: DataDirHolder = { pid: process.pid, owner, since: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(mine)}\n`, { flag: "wx", mode: 0o644 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = dataDirHolder(dataDir);
      if (holder) throw new DataDirBusyError(dataDir, holder);
      if (attempt > 0) throw err;
      // left over by a process that is gone (or unreadable): taken over
      rmSync(file, { force: true });
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off("exit", release);
    if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
  };
  process.on("exit", release);
  return release;
}
