// One rule for "is this CI" in till and in Ink: Ink decides with is-in-ci at import (whether it draws its
// screens), till with cli/env.ts; where they differed, `CI= till login` drew nothing and waited for a person.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { readEnv } from "../../cli/env.js";

const VALUES = [undefined, "", " ", "0", "false", "FALSE", "False", "1", "true", "no", "github"];

/** What is-in-ci (Ink's own copy, as Ink imports it) says under `env`. */
function inkSays(env: Record<string, string>): boolean {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", "import isInCi from 'is-in-ci'; process.stdout.write(String(isInCi))"], {
    env: { PATH: process.env.PATH ?? "", ...env },
    cwd: new URL("../../node_modules/ink/", import.meta.url),
  });
  return out.toString() === "true";
}

describe("CI", () => {
  it("till and Ink agree for every value of CI and CONTINUOUS_INTEGRATION, an empty one included", () => {
    const cases: Record<string, string>[] = [];
    for (const v of VALUES) {
      cases.push(v === undefined ? {} : { CI: v });
      if (v !== undefined) cases.push({ CONTINUOUS_INTEGRATION: v }, { CI: "false", CONTINUOUS_INTEGRATION: v });
    }
    const seen = cases.map((env) => [JSON.stringify(env), readEnv(env).ci, inkSays(env)] as const);
    for (const [env, till, ink] of seen) expect(till, env).toBe(ink);
    // the case that made `till login` wait: set but empty is CI, for both
    expect(readEnv({ CI: "" }).ci).toBe(true);
    expect(readEnv({ CI: "0" }).ci).toBe(false);
  });
});
