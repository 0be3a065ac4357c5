// The previous release (ops/upgrade/previous-release, a commit of main's history): its migrations, read from git,
// and its sources unpacked into .tmp/ to run its server against today's schema. Needs the repository's history
// (CI's full `git clone` has it; a shallow clone does not).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const PREVIOUS_RELEASE_FILE = path.join(ROOT, "ops/upgrade/previous-release");
const MIGRATIONS = "server/db/migrations";

const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

/** The commit named in ops/upgrade/previous-release (its first line that is not a comment). */
export function previousRelease(): string {
  const line = readFileSync(PREVIOUS_RELEASE_FILE, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "" && !l.startsWith("#"));
  if (!line || !/^[0-9a-f]{40}$/.test(line)) throw new Error(`${PREVIOUS_RELEASE_FILE}: expected one full commit SHA, found ${line ?? "nothing"}`);
  try {
    git("cat-file", "-e", `${line}^{commit}`);
  } catch {
    throw new Error(`the previous release ${line} is not in this repository's history (a shallow clone? fetch the full history)`);
  }
  return line;
}

/** Whether `commit` is an ancestor of HEAD (the previous release must be one of main's commits before this one). */
export function isAncestorOfHead(commit: string): boolean {
  try {
    git("merge-base", "--is-ancestor", commit, "HEAD");
    return true;
  } catch {
    return false;
  }
}

interface Journal {
  entries: Array<{ tag: string; when: number }>;
}

/** The migration tags of the journal at `commit` (or of the working tree without one), in order. */
export function migrationTags(commit?: string): string[] {
  const file = `${MIGRATIONS}/meta/_journal.json`;
  const text = commit ? git("show", `${commit}:${file}`) : readFileSync(path.join(ROOT, file), "utf8");
  return (JSON.parse(text) as Journal).entries.map((e) => e.tag);
}

/** A migration's SQL at `commit` (or in the working tree). */
export function migrationSql(tag: string, commit?: string): string {
  const file = `${MIGRATIONS}/${tag}.sql`;
  return commit ? git("show", `${commit}:${file}`) : readFileSync(path.join(ROOT, file), "utf8");
}

/**
 * The previous release's sources in .tmp/previous-release/<commit> (`git archive`, unpacked once and kept), with a
 * link to today's node_modules: dependencies added since are fine as long as the old code's imports resolve.
 */
export function unpackPreviousRelease(commit: string): string {
  const dir = path.join(ROOT, ".tmp/previous-release", commit);
  const done = path.join(dir, ".unpacked");
  if (existsSync(done)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync("git", ["archive", "--format=tar", commit], { cwd: ROOT, maxBuffer: 512 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  symlinkSync(realpathSync(path.join(ROOT, "node_modules")), path.join(dir, "node_modules"));
  writeFileSync(done, `${commit}\n`);
  return dir;
}
