// The order the suite's files start in: the longest first, so that no long file starts last while the other
// workers have nothing left to run. How long a file takes comes from vitest's own cache of this checkout's
// earlier runs when it has one, else from tests/durations.json — the files' times in a whole run on PostgreSQL,
// written by `node scripts/test-durations.mjs <vitest JSON report>` — which is what a clean clone (CI) has.
// A file in neither starts first, as vitest does with unknown files.
import { readFileSync } from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

function recorded(root: string): Map<string, number> {
  try {
    const json = JSON.parse(readFileSync(path.join(root, "tests", "durations.json"), "utf8")) as Record<string, number>;
    return new Map(Object.entries(json).map(([file, seconds]) => [file, seconds * 1000]));
  } catch {
    return new Map();
  }
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const durations = recorded(root);
    const msOf = (spec: TestSpecification): number => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join("/");
      return this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`)?.duration ?? durations.get(file) ?? Number.POSITIVE_INFINITY;
    };
    const ms = new Map(files.map((spec) => [spec, msOf(spec)]));
    // Array.prototype.sort is stable: files of equal (or unknown) time keep vitest's order
    return [...(await super.sort(files))].sort((a, b) => (ms.get(b) ?? 0) - (ms.get(a) ?? 0));
  }
}
