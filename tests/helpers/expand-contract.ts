// The expand-then-contract rule for migrations (docs/decisions.md, "Migrations expand, a later release contracts"):
// within a release a migration only adds, so the previous release's processes keep working on the new schema
// during a rolling upgrade. A statement that takes away what running code may use is a contract step: allowed
// only when its statement carries a `-- contract: <reason>` comment (the reason says why no running code uses it).

export interface Destructive {
  /** What the statement does, in words. */
  rule: string;
  /** The statement, shortened, as written. */
  statement: string;
}

const RULES: Array<{ rule: string; test: (s: string) => boolean }> = [
  { rule: "drops a table, view, type, schema or sequence", test: (s) => /\bDROP\s+(TABLE|VIEW|MATERIALIZED\s+VIEW|TYPE|SCHEMA|SEQUENCE|DOMAIN)\b/.test(s) },
  { rule: "drops a column", test: (s) => /\bDROP\s+(COLUMN\b|(?!CONSTRAINT|DEFAULT|NOT|IDENTITY|EXPRESSION)"?\w)/.test(s) && /\bALTER\s+TABLE\b/.test(s) },
  // an index may back the old code's ON CONFLICT, a constraint its inserts' assumptions; both its query plans
  { rule: "drops an index or a constraint", test: (s) => /\bDROP\s+(INDEX|CONSTRAINT)\b/.test(s) },
  { rule: "drops a trigger or a function the old code's writes may rely on", test: (s) => /\bDROP\s+(TRIGGER|FUNCTION|PROCEDURE)\b/.test(s) },
  { rule: "renames", test: (s) => /\bRENAME\b/.test(s) },
  { rule: "changes a column's type", test: (s) => /\bALTER\s+COLUMN\s+("[^"]+"|\w+)\s+(SET\s+DATA\s+)?TYPE\b/.test(s) },
  { rule: "sets NOT NULL on an existing column", test: (s) => /\bSET\s+NOT\s+NULL\b/.test(s) },
  { rule: "drops a default", test: (s) => /\bDROP\s+DEFAULT\b/.test(s) },
  { rule: "adds a NOT NULL column without a default (the old code's inserts do not set it)", test: addsRequiredColumn },
  { rule: "truncates", test: (s) => /^\s*TRUNCATE\b/.test(s) },
];

/** `ADD COLUMN … NOT NULL` with neither DEFAULT nor GENERATED, clause by clause of an ALTER TABLE. */
function addsRequiredColumn(s: string): boolean {
  if (!/\bALTER\s+TABLE\b/.test(s)) return false;
  return s
    .split(/\bADD\s+COLUMN\b/)
    .slice(1)
    .map((clause) => clause.split(/,\s*(?=ADD|ALTER|DROP)\b/)[0] ?? "")
    .some((clause) => /\bNOT\s+NULL\b/.test(clause) && !/\b(DEFAULT|GENERATED)\b/.test(clause));
}

/** The statement's text without comments, string literals and dollar-quoted bodies, upper-cased on one line. */
function normalized(statement: string): string {
  return statement
    .replace(/\$(\w*)\$[\s\S]*?\$\1\$/g, " ")
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/\s+/g, " ")
    .toUpperCase();
}

/** Statements split the way the migrator runs them (drizzle's breakpoints), then at semicolons outside bodies. */
function statements(sql: string): string[] {
  const out: string[] = [];
  for (const chunk of sql.split("--> statement-breakpoint")) {
    // a comment directly above a statement belongs to it: split after each `;` that ends a line outside a body
    let rest = chunk;
    let current = "";
    while (rest.length > 0) {
      const dollar = /\$(\w*)\$/.exec(rest);
      const semi = rest.search(/;[ \t]*(\r?\n|$)/);
      if (dollar && (semi < 0 || dollar.index < semi)) {
        const close = rest.indexOf(dollar[0], dollar.index + dollar[0].length);
        const end = close < 0 ? rest.length : close + dollar[0].length;
        current += rest.slice(0, end);
        rest = rest.slice(end);
      } else if (semi >= 0) {
        out.push(current + rest.slice(0, semi + 1));
        current = "";
        rest = rest.slice(semi + 1);
      } else {
        current += rest;
        rest = "";
      }
    }
    if (current.trim() !== "") out.push(current);
  }
  return out.filter((s) => normalized(s).trim() !== "");
}

const CONTRACT = /--[ \t]*contract:[ \t]*\S/i;

/** Every statement of `sql` that takes something away and is not marked as a contract step. */
export function destructiveStatements(sql: string): Destructive[] {
  const found: Destructive[] = [];
  for (const statement of statements(sql)) {
    if (CONTRACT.test(statement)) continue;
    const text = normalized(statement);
    for (const { rule, test } of RULES) {
      if (test(text)) found.push({ rule, statement: statement.trim().replace(/\s+/g, " ").slice(0, 160) });
    }
  }
  return found;
}
