// `npm test` on a machine without Chromium, zsh or fish: the tests that need one are left out with one line
// saying which and how to include them (scripts/test-prereqs.ts, read by vitest.config.ts).
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { leftOutLine, missingTestTools } from "../../scripts/test-prereqs.js";

describe("the test suite's tools", () => {
  it("names the shells missing from PATH", () => {
    const saved = process.env.PATH;
    try {
      process.env.PATH = mkdtempSync(path.join(tmpdir(), "till-path-"));
      expect(missingTestTools().filter((t) => t !== "chromium")).toEqual(["zsh", "fish"]);
    } finally {
      process.env.PATH = saved;
    }
  });

  it("says in one line what is left out and the command that includes it", () => {
    expect(leftOutLine(["chromium", "zsh", "fish"])).toBe(
      "npm test: leaving out the page tests (tests/e2e: no /usr/bin/chromium) and the zsh and fish completion tests " +
        "(no zsh, no fish); include them with: sudo apt-get install -y chromium zsh fish",
    );
    expect(leftOutLine(["fish"])).toBe(
      "npm test: leaving out the fish completion tests (no fish); include them with: sudo apt-get install -y fish",
    );
  });

  it("vitest leaves out the shell tests when the shells are missing, saying so once", async () => {
    // a PATH with node alone: no zsh, no fish
    const bin = mkdtempSync(path.join(tmpdir(), "till-bin-"));
    symlinkSync(process.execPath, path.join(bin, "node"));
    const r = await execa("node", ["node_modules/vitest/vitest.mjs", "list", "tests/cli/seller-tools.test.ts", "--filesOnly"], {
      env: { PATH: bin, TILL_TEST_ALL: "" },
      reject: false,
    });
    expect(r.stdout.match(/npm test: leaving out/g) ?? []).toHaveLength(1);
    expect(r.stdout).toContain("the zsh and fish completion tests (no zsh, no fish)");
  }, 60_000);
});
