// The house's width: prose (docs/*.md) and comments wrap at 120 columns. Code is wrapped by hand before 200 — an
// object literal a property group per line, long call arguments on lines of their own — so the one-line
// form of a route declaration (`app.get("/x", route({ ... }), async (req) => ...`) is accepted up to there and no
// further. In server, cli, shared, web/src, scripts, tests, packages and ops (.ts, .tsx, .mjs; not the generated
// migrations nor a package's built dist/), a comment line (its first non-blank characters are `//`, `/*` or `*`)
// over 120 columns fails, and so does any other line over 200. There is no exception list: a line that does not fit
// is wrapped.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FOLDERS = ["server", "cli", "shared", "web/src", "scripts", "tests", "packages", "ops"];
const SOURCE = /\.(ts|tsx|mjs)$/;
const SKIPPED = new Set(["node_modules", "server/db/migrations", "dist"]);
const COMMENT_WIDTH = 120;
const CODE_WIDTH = 200;

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    const relative = path.relative(ROOT, file).split(path.sep).join("/");
    if (statSync(file).isDirectory()) {
      if (!SKIPPED.has(name) && !SKIPPED.has(relative)) sources(file, out);
    } else if (SOURCE.test(name)) out.push(file);
  }
  return out;
}

const files = FOLDERS.flatMap((folder) => sources(path.join(ROOT, folder))).map((file) => ({
  name: path.relative(ROOT, file).split(path.sep).join("/"),
  lines: readFileSync(file, "utf8").split("\n"),
}));

const isComment = (line: string) => /^\s*(\/\/|\/\*|\*)/.test(line);

/** Every line of the files wider than its limit, as `file:line (N columns)`. */
function over(limit: number, comment: boolean): string[] {
  return files.flatMap((f) =>
    f.lines.flatMap((line, i) =>
      isComment(line) === comment && line.length > limit ? [`${f.name}:${i + 1} (${line.length} columns)`] : [],
    ),
  );
}

describe("line width", () => {
  it("reads the source folders", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files.some((f) => f.name.startsWith("server/db/migrations/"))).toBe(false);
  });

  it(`no comment line is over ${COMMENT_WIDTH} columns`, () => {
    expect(over(COMMENT_WIDTH, true)).toEqual([]);
  });

  it(`no code line is over ${CODE_WIDTH} columns`, () => {
    expect(over(CODE_WIDTH, false)).toEqual([]);
  });
});
