// The size rules of the house (DESIGN.md, STYLE.md): no source file over 400 lines outside bench/ (server, cli,
// shared, web/src, scripts, tests — test files too —, packages and ops, their built dist/ aside) and no function over
// 120 lines — function declarations and expressions, arrow functions, methods, constructors and accessors, read with
// TypeScript's parser and counted from the line the function starts on to the line it ends on. In a test file
// (*.test.ts) the functions are describe and it callbacks, groupings of tests that the file's limit bounds: the
// function limit holds for the tests' helpers and fixtures, not for those callbacks.
//
// PENDING lists the files and functions still over the limit while another branch splits them; the list may only
// shrink. An entry that no longer exceeds the limit fails the test too, so the list cannot outlive its reason.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FOLDERS = ["server", "cli", "shared", "web/src", "scripts", "tests", "packages", "ops"];
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|jsx|css|sh)$/;
const PARSED = /\.(ts|tsx|mts|cts|js|mjs|cjs|jsx)$/;
/** Test files: held to the file limit; their describe and it callbacks are not held to the function limit. */
const TEST_FILE = /\.test\.(ts|tsx)$/;
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 120;

/**
 * Over a limit today and being split on another branch: a file by its name, a function as `file:line`. The lead
 * empties this list at merge.
 */
const PENDING: string[] = [];

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== "node_modules" && name !== "migrations" && name !== "dist") sources(file, out);
    } else if (SOURCE.test(name)) out.push(file);
  }
  return out;
}

const files = FOLDERS.flatMap((folder) => sources(path.join(ROOT, folder))).map((file) => ({
  name: path.relative(ROOT, file).split(path.sep).join("/"),
  text: readFileSync(file, "utf8"),
}));

const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

/** Every function of a file longer than the limit, as `file:line (N lines)`. */
function longFunctions(name: string, text: string): Array<{ at: string; lines: number }> {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ at: string; lines: number }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_FUNCTION_LINES) found.push({ at: `${name}:${start + 1}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("source sizes", () => {
  it("reads the source folders", () => {
    expect(files.length).toBeGreaterThan(300);
  });

  it(`no source file is over ${MAX_FILE_LINES} lines`, () => {
    const over = files.filter((f) => lineCount(f.text) > MAX_FILE_LINES);
    expect(over.filter((f) => !PENDING.includes(f.name)).map((f) => `${f.name} (${lineCount(f.text)} lines)`)).toEqual([]);
    const pendingFiles = PENDING.filter((entry) => !entry.includes(":"));
    expect(pendingFiles.filter((name) => !over.some((f) => f.name === name))).toEqual([]);
  });

  it(`no function is over ${MAX_FUNCTION_LINES} lines (but PENDING)`, () => {
    const long = files.filter((f) => PARSED.test(f.name) && !TEST_FILE.test(f.name)).flatMap((f) => longFunctions(f.name, f.text));
    expect(long.filter((f) => !PENDING.includes(f.at)).map((f) => `${f.at} (${f.lines} lines)`)).toEqual([]);
    // a PENDING entry that is short now (or moved) leaves the list
    expect(PENDING.filter((at) => at.includes(":") && !long.some((f) => f.at === at))).toEqual([]);
  });
});
