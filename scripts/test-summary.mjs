// Prints vitest's JSON reports (--outputFile) as plain lines, one per run ("<label>: N passed, N failed"), then,
// with more than one run, a closing line over all of them ("tests: N passed, N failed").
// Usage: node scripts/test-summary.mjs <report.json> [label] [<report.json> <label>]...
// Exits non-zero when a test failed or a report is missing or unreadable (the run did not finish).
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const runs = [];
for (let i = 0; i < args.length; i += 2) runs.push({ file: args[i], label: args[i + 1] ?? "tests" });

const total = { passed: 0, failed: 0, skipped: 0 };
let broken = false;
const line = (label, { passed, failed, skipped }) =>
  `${label}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`;
for (const { file, label } of runs) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    broken = true;
    console.log(`${label}: no report (${err.code === "ENOENT" ? `${file} missing: the run did not finish` : err.message})`);
    continue;
  }
  const counts = {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
  // a file that failed to load (a syntax error, a setup hook that threw) counts no failed test but fails the run
  if (report.success === false && counts.failed === 0) broken = true;
  for (const k of Object.keys(total)) total[k] += counts[k];
  console.log(line(label, counts));
}
if (runs.length > 1) console.log(line("tests", total));
process.exit(broken || total.failed > 0 ? 1 : 0);
