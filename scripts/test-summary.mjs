// Prints vitest's JSON report (--outputFile) as one plain closing line: "tests: N passed, N failed".
import { readFileSync } from "node:fs";

const [file, label = "tests"] = process.argv.slice(2);
const report = JSON.parse(readFileSync(file, "utf8"));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${label}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ""}`);
