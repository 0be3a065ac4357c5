// The suite's file order (scripts/test-sequencer.ts): longest first by tests/durations.json, unknown files first.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { durationsOf, longestFirst, readDurations } from "../../scripts/test-sequencer.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("the suite's file order", () => {
  it("starts the longest files first; a file without a measured duration counts as the median; ties keep the order", () => {
    const durations = { "tests/a.test.ts": 3, "tests/b.test.ts": 40.5, "tests/c.test.ts": 3, "tests/d.test.ts": 0.2, "tests/e.test.ts": 10 };
    const files = ["tests/d.test.ts", "tests/new.test.ts", "tests/c.test.ts", "tests/a.test.ts", "tests/b.test.ts", "tests/e.test.ts"];
    expect(longestFirst(files, (f) => f, durations)).toEqual([
      "tests/b.test.ts",
      "tests/e.test.ts",
      "tests/new.test.ts",
      "tests/c.test.ts",
      "tests/a.test.ts",
      "tests/d.test.ts",
    ]);
    expect(longestFirst(["tests/y.test.ts", "tests/x.test.ts"], (f) => f, {})).toEqual(["tests/y.test.ts", "tests/x.test.ts"]);
  });

  it("reads a JSON report's per-file durations as seconds from the repository's root, leaving out files that ran nothing", () => {
    const report = {
      testResults: [
        { name: path.join(ROOT, "tests/e2e/b.test.ts"), startTime: 1_000, endTime: 62_449, assertionResults: [{}] },
        { name: "/elsewhere/checkout/tests/api/a.test.ts", startTime: 5_000, endTime: 5_730, assertionResults: [{}, {}] },
        { name: path.join(ROOT, "tests/api/broken.test.ts"), startTime: 0, endTime: 0, assertionResults: [] },
      ],
    };
    expect(durationsOf(report, ROOT)).toEqual({ "tests/api/a.test.ts": 0.7, "tests/e2e/b.test.ts": 61.4 });
  });

  it("has measured durations of the suite's files (tests/durations.json)", () => {
    const durations = Object.entries(readDurations());
    expect(durations.length).toBeGreaterThan(0);
    for (const [file, seconds] of durations) {
      expect(file).toMatch(/^tests\/.+\.test\.tsx?$/);
      expect(seconds).toBeGreaterThanOrEqual(0);
    }
  });
});
