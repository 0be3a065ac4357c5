// The run an interrupted `till catalog apply` resumes: a random id per (server, state the plan was made from),
// kept in the config directory until that apply finishes, and part of every write's Idempotency-Key. A run
// restarted on the same state (its writes not committed, or still in flight, when it stopped) repeats them under
// the same keys, so the server does each once; a run after a finished one, even on an identical state (an
// object created and then deleted by hand), gets new keys and is not answered from the old run's writes.
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const FILE = "catalog-runs.json";
/** The server keeps an idempotency key 24 hours: an older run has nothing left to resume. */
const KEPT_MS = 24 * 60 * 60 * 1000;

interface Run {
  id: string;
  at: string;
}

const keyOf = (server: string, basis: string) => `${server} ${basis}`;

function readAll(configDir: string): Record<string, Run> {
  try {
    const parsed = JSON.parse(readFileSync(path.join(configDir, FILE), "utf8")) as unknown;
    if (!parsed || typeof parsed !== "object") return {};
    const fresh = Date.now() - KEPT_MS;
    return Object.fromEntries(
      Object.entries(parsed as Record<string, Run>).filter(([, r]) => typeof r?.id === "string" && Date.parse(r.at) > fresh),
    );
  } catch {
    return {};
  }
}

function writeAll(configDir: string, runs: Record<string, Run>): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(configDir, FILE), `${JSON.stringify(runs, null, 2)}\n`, { mode: 0o600 });
}

/** The id of the unfinished run on this state, or a new one (recorded before any write is sent). */
export function startRun(configDir: string, server: string, basis: string): string {
  const runs = readAll(configDir);
  const known = runs[keyOf(server, basis)];
  if (known) return known.id;
  const id = randomUUID();
  writeAll(configDir, { ...runs, [keyOf(server, basis)]: { id, at: new Date().toISOString() } });
  return id;
}

/** The run completed: nothing to resume. */
export function finishRun(configDir: string, server: string, basis: string): void {
  const runs = readAll(configDir);
  delete runs[keyOf(server, basis)];
  writeAll(configDir, runs);
}
