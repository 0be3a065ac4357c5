// Writes tests/durations.json — each test file's wall time (seconds) in a vitest JSON report — which the suite's
// sequencer (tests/sequencer.ts) reads to start the longest files first in a clean clone. Run after a whole run:
//   node scripts/test-durations.mjs .tmp/vitest-node24-postgres.json
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const [report] = process.argv.slice(2);
if (!report) {
  console.error("usage: node scripts/test-durations.mjs <vitest JSON report>");
  process.exit(2);
}
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
// the report names files by absolute path in the checkout that ran them (a CI clone, say): kept from `tests/` on
const ofTests = (file) => file.slice(file.lastIndexOf(`${path.sep}tests${path.sep}`) + 1).split(path.sep).join("/");
const { testResults } = JSON.parse(readFileSync(report, "utf8"));
const durations = {};
for (const file of testResults) {
  const relative = ofTests(file.name);
  if (typeof file.startTime === "number" && typeof file.endTime === "number") durations[relative] = Math.round((file.endTime - file.startTime) / 100) / 10;
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(path.join(root, "tests", "durations.json"), `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`tests/durations.json: ${Object.keys(sorted).length} files`);
