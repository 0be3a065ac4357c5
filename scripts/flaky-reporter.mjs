// A vitest reporter for CI: writes the tests that passed only on a retry (vitest's `--retry`) to the JSON file
// named by TILL_FLAKY_REPORT, with the errors of the attempts that failed, so that scripts/test-summary.mjs
// prints them. vitest's own JSON report counts such a test as passed and says nothing of its retries.
// A flaky test is a bug to fix, not a pass to forget (docs/decisions.md, "CI runs").
import { writeFileSync } from "node:fs";

/** @typedef {{ file: string; name: string; retries: number; errors: string[] }} Flaky */

export default class FlakyReporter {
  /** @type {Flaky[]} */
  flaky = [];

  /** @param {import("vitest/node").TestCase} testCase */
  onTestCaseResult(testCase) {
    const diagnostic = testCase.diagnostic();
    if (!diagnostic || diagnostic.retryCount === 0) return;
    const result = testCase.result();
    if (result.state !== "passed") return;
    this.flaky.push({
      file: testCase.module.moduleId,
      name: testCase.fullName,
      retries: diagnostic.retryCount,
      errors: (result.errors ?? []).map((e) => String(e.message ?? e).slice(0, 2000)),
    });
  }

  onTestRunEnd() {
    const out = process.env.TILL_FLAKY_REPORT;
    if (out) writeFileSync(out, JSON.stringify(this.flaky, null, 2));
  }
}
