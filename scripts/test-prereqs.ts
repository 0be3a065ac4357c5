// What the test suite needs beyond `npm install`: Chromium at /usr/bin/chromium for the page tests
// (tests/e2e), zsh and fish for the shell-completion tests, PgBouncer for the pooler test
// (tests/api/pgbouncer.test.ts). `npm test` runs this file first (its `pretest`): whatever is missing is installed with
// apt-get when that is possible (root on Debian/Ubuntu). What is still missing then is left out by vitest.config.ts
// (through `missingTestTools`), which prints one line saying what and how to include it; with TILL_TEST_ALL=1 (set by
// .ci/run) nothing is left out.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CHROMIUM = "/usr/bin/chromium";

/** Where Debian puts PgBouncer (/usr/sbin is not on every PATH). */
export const PGBOUNCER_PATHS = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"];

/** Debian package names of what is missing: chromium, zsh, fish, pgbouncer. */
export function missingTestTools(): string[] {
  const missing: string[] = [];
  if (!existsSync(CHROMIUM)) missing.push("chromium");
  for (const shell of ["zsh", "fish"]) if (!onPath(shell)) missing.push(shell);
  if (!PGBOUNCER_PATHS.some((p) => existsSync(p))) missing.push("pgbouncer");
  return missing;
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir && existsSync(path.join(dir, command)));
}

/** The one line naming what a run leaves out, and how to include it. */
export function leftOutLine(missing: string[]): string {
  const parts: string[] = [];
  if (missing.includes("chromium")) parts.push(`the page tests (tests/e2e: no ${CHROMIUM})`);
  if (missing.includes("pgbouncer")) parts.push("the PgBouncer test (tests/api/pgbouncer.test.ts: no pgbouncer)");
  const shells = missing.filter((m) => m === "zsh" || m === "fish");
  if (shells.length > 0) parts.push(`the ${shells.join(" and ")} completion tests (no ${shells.join(", no ")})`);
  return `npm test: leaving out ${parts.join(" and ")}; include them with: sudo apt-get install -y ${missing.join(" ")}`;
}

function canInstall(): boolean {
  return process.platform === "linux" && process.getuid?.() === 0 && onPath("apt-get");
}

function main(): void {
  const missing = missingTestTools();
  if (missing.length === 0) return;
  if (canInstall()) {
    console.log(`npm test: installing ${missing.join(", ")} with apt-get (the page and shell-completion tests need them)`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    try {
      execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
      execFileSync("apt-get", ["install", "-y", "-qq", ...missing], { stdio: ["ignore", "ignore", "inherit"], env });
    } catch (err) {
      console.warn(`npm test: apt-get failed (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`);
    }
  }
  // what is still missing is left out by vitest.config.ts, which prints the line saying so
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
