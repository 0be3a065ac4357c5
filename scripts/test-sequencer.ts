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
 * The files longest first. Files the durations do not know (new since they were measured) go first, as vitest
 * does with files it has not run (they may be long; a short one first costs little); ties keep the given order.
 */
export function longestFirst<T>(files: T[], pathOf: (file: T) => string, durations: Durations): T[] {
  const known = (file: T) => durations[pathOf(file)] ?? Infinity;
  return [...files].sort((a, b) => (known(a) === known(b) ? 0 : known(b) - known(a)));
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
  testResults: Array<{ name: string; startTime: number; endTime: number }>;
}

/** The durations of a vitest JSON report (a file's start to its end, seconds to a tenth). */
export function durationsOf(report: Report, root = ROOT): Durations {
  const entries = report.testResults.map((r) => [path.relative(root, r.name), Math.round((r.endTime - r.startTime) / 100) / 10] as const);
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const reportFile = process.argv[2];
  if (!reportFile) throw new Error("usage: node --import tsx scripts/test-sequencer.ts <vitest JSON report>");
  const files = durationsOf(JSON.parse(readFileSync(reportFile, "utf8")) as Report);
  const note = "seconds per test file in a whole run (scripts/test-sequencer.ts writes it from a JSON report)";
  writeFileSync(DURATIONS_FILE, `${JSON.stringify({ note, files }, null, 1)}\n`);
  console.log(`${Object.keys(files).length} files written to ${path.relative(ROOT, DURATIONS_FILE)}`);
}
