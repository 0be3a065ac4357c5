// The order the suite's files start in: longest first, by the per-file durations of a whole run kept in
// tests/durations.json, so that no long file starts last and runs alone while the other workers have finished.
// vitest's own order needs its results cache (node_modules/.vite), which CI's `npm ci` removes: it then starts the
// largest files first, and a short file of many lines went before an e2e file that takes a minute.
// Refresh the durations from a whole run's JSON report: node --import tsx scripts/test-sequencer.ts <report.json>
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const DURATIONS_FILE = path.join(ROOT, "tests", "durations.json");

/** Seconds per test file (its path from the repository's root), as a whole run measured them. */
export type Durations = Record<string, number>;

export function readDurations(file = DURATIONS_FILE): Durations {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { files: Durations }).files;
  } catch {
    return {};
  }
}

/**
 * The files longest first. A file the durations do not know (new since they were measured, or one a partial run
 * left out) counts as a file of the median duration; ties keep the given order (vitest's: its results cache, else
 * the larger file first).
 */
export function longestFirst<T>(files: T[], pathOf: (file: T) => string, durations: Durations): T[] {
  const known = Object.values(durations).sort((a, b) => a - b);
  const median = known.length > 0 ? (known[Math.floor((known.length - 1) / 2)] ?? 0) : 0;
  const estimate = (file: T) => durations[pathOf(file)] ?? median;
  return [...files].sort((a, b) => estimate(b) - estimate(a));
}

/** vitest's `sequence.sequencer`: its own sharding and order (results cache, else size), then the order above. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const durations = readDurations();
    const ordered = await super.sort(files);
    return longestFirst(ordered, (spec) => path.relative(root, spec.moduleId).split(path.sep).join("/"), durations);
  }
}

interface Report {
  testResults: Array<{ name: string; startTime: number; endTime: number; assertionResults: unknown[] }>;
}

/** The durations of a vitest JSON report (a file's start to its end, seconds to a tenth); a file that failed to
 *  load ran no test and measured nothing, so it is left out. */
export function durationsOf(report: Report, root = ROOT): Durations {
  const ran = report.testResults.filter((r) => r.assertionResults.length > 0);
  // a report of another checkout of the repository names its files under that checkout's root
  const relative = (name: string) => (name.startsWith(root + path.sep) ? path.relative(root, name) : name.slice(name.indexOf("/tests/") + 1));
  const entries = ran.map((r) => [relative(r.name), Math.round((r.endTime - r.startTime) / 100) / 10] as const);
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const reportFile = process.argv[2];
  if (!reportFile) throw new Error("usage: node --import tsx scripts/test-sequencer.ts <vitest JSON report>");
  // the report's files replace their earlier durations; the others' are kept (a report of a few files updates those)
  const measured = durationsOf(JSON.parse(readFileSync(reportFile, "utf8")) as Report);
  const merged = { ...readDurations(), ...measured };
  const files = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
  const note = "seconds per test file as whole runs measured them (node --import tsx scripts/test-sequencer.ts <report.json>)";
  writeFileSync(DURATIONS_FILE, `${JSON.stringify({ note, files }, null, 1)}\n`);
  console.log(`${Object.keys(measured).length} files measured, ${Object.keys(files).length} in ${path.relative(ROOT, DURATIONS_FILE)}`);
}
