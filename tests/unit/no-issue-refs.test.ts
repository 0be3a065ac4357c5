// Comments and docs say their reason in place: a reader of the repository cannot open the tracker's issues or the
// sections of a document kept outside it, so neither an issue number nor a bare section sign followed by a number
// may stand in for the reason. A section of an RFC is a public document and stays citable ("RFC 8628" then the
// section). Every text file of the source folders, the docs and the README is read; there is no exception list.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FOLDERS = ["server", "cli", "shared", "web/src", "scripts", "tests", "bench", "docs", "packages", "ops"];
const FILES = ["README.md"];
const TEXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|jsx|css|html|sh|sql|md|json|ya?ml)$/;

// Built from parts so that this file's own source does not match: "issue", "issues", "Issue #" before a digit, and
// the section sign (U+00A7) before a digit unless the reference belongs to an RFC.
const SECTION = "\u00a7";
const ISSUE = new RegExp("\\bissues?\\s?#?\\d", "i");
const RFC_SECTIONS = new RegExp(`RFC \\d+ ${SECTION}[\\d.]+(?:\\s*[/,]\\s*${SECTION}[\\d.]+)*`, "g");
const BARE_SECTION = new RegExp(`${SECTION}\\s?\\d`);

function texts(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== "node_modules" && name !== "dist") texts(file, out);
    } else if (TEXT.test(name)) out.push(file);
  }
  return out;
}

const files = [...FOLDERS.flatMap((folder) => texts(path.join(ROOT, folder))), ...FILES.map((f) => path.join(ROOT, f))].map(
  (file) => ({ name: path.relative(ROOT, file).split(path.sep).join("/"), text: readFileSync(file, "utf8") }),
);

/** Every line that cites an issue or a bare numbered section, as `file:line: text`. */
function references(name: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) => {
    const cited = ISSUE.test(line) || BARE_SECTION.test(line.replace(RFC_SECTIONS, ""));
    return cited ? [`${name}:${i + 1}: ${line.trim()}`] : [];
  });
}

describe("no issue references", () => {
  it("reads the source folders and the docs", () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files.some((f) => f.name === "docs/decisions.md")).toBe(true);
  });

  it("no comment or doc cites an issue number or a bare numbered section", () => {
    expect(files.flatMap((f) => references(f.name, f.text))).toEqual([]);
  });

  it("the patterns find what they are meant to find", () => {
    const section = (n: string) => `${SECTION}${n}`;
    expect(references("a.ts", `// wallets (issue ${29} ${section("3")})`)).toHaveLength(1);
    expect(references("a.ts", `-- Issue #${7}: why`)).toHaveLength(1);
    expect(references("a.ts", `// the spec's errors (${section("8")})`)).toHaveLength(1);
    expect(references("a.ts", `// RFC 8628 ${section("3.1")}/${section("3.4")}: unknown clients`)).toEqual([]);
    expect(references("a.ts", `// the issuer of a token; issues.push(x); 2 issues`)).toEqual([]);
  });
});
