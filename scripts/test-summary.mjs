// Prints vitest's JSON reports (--outputFile) as plain lines, one per run ("<label>: N passed, N failed"); then
// each failed test (its file, name and the start of its error) and each test that passed only on a retry (read
// from the flaky report next to its JSON report: vitest-<name>.json → flaky-<name>.json, written by
// scripts/flaky-reporter.mjs), so that the tail of CI's output names them; then, with more than one run, a
// closing line over all of them ("tests: N passed, N failed").
// Usage: node scripts/test-summary.mjs <report.json> [label] [<report.json> <label>]...
// Exits non-zero when a test failed or a report is missing or unreadable (the run did not finish).
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";

const args = process.argv.slice(2);
const runs = [];
for (let i = 0; i < args.length; i += 2) runs.push({ file: args[i], label: args[i + 1] ?? "tests" });

const total = { passed: 0, failed: 0, skipped: 0 };
let broken = false;
const failures = [];
const flakes = [];
const excerpt = (text) => text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "").split("\n").slice(0, 8).map((l) => `      ${l.slice(0, 300)}`).join("\n");
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
  for (const file of report.testResults ?? []) {
    const where = relative(process.cwd(), file.name);
    if (file.status === "failed" && (file.assertionResults ?? []).every((a) => a.status !== "failed")) {
      failures.push(`   ${label} · ${where}: ${excerpt(file.message ?? "the file failed")}`);
    }
    for (const a of file.assertionResults ?? []) {
      if (a.status === "failed") failures.push(`   ${label} · ${where} · ${a.fullName}\n${excerpt((a.failureMessages ?? []).join("\n"))}`);
    }
  }
  const flakyFile = join(dirname(file), basename(file).replace(/^vitest-/, "flaky-"));
  if (flakyFile !== file && existsSync(flakyFile)) {
    try {
      for (const f of JSON.parse(readFileSync(flakyFile, "utf8"))) {
        flakes.push(`   ${label} · ${relative(process.cwd(), f.file)} · ${f.name} (passed on retry ${f.retries})\n${excerpt(f.errors.join("\n"))}`);
      }
    } catch (err) {
      console.log(`${label}: flaky report unreadable (${err.message})`);
    }
  }
}
if (failures.length > 0) console.log(`failed:\n${failures.join("\n")}`);
if (flakes.length > 0) console.log(`passed only on a retry (flaky: to fix):\n${flakes.join("\n")}`);
if (runs.length > 1) console.log(line("tests", total));
process.exit(broken || total.failed > 0 ? 1 : 0);
