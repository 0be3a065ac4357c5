// Migrations expand within a release and contract only in a later one: every migration after the previous
// release's last one (ops/upgrade/previous-release) is additive unless a statement is marked `-- contract: <reason>`,
// and the previous release's own migrations are unchanged (a database that ran them never runs them again).
import { describe, expect, it } from "vitest";
import { destructiveStatements } from "../helpers/expand-contract.js";
import { isAncestorOfHead, migrationSql, migrationTags, previousRelease } from "../helpers/previous-release.js";

describe("migrations since the previous release", () => {
  it("the previous release is a commit of this history, and its migrations are a prefix of today's, unchanged", () => {
    const release = previousRelease();
    expect(isAncestorOfHead(release), `${release} is not an ancestor of HEAD`).toBe(true);
    const before = migrationTags(release);
    const now = migrationTags();
    expect(now.slice(0, before.length)).toEqual(before);
    const changed = before.filter((tag) => migrationSql(tag, release) !== migrationSql(tag));
    expect(changed, "a released migration was edited: write a new one instead").toEqual([]);
  });

  it("every later migration only adds, unless a statement is marked as a contract step", () => {
    const release = previousRelease();
    const released = new Set(migrationTags(release));
    const violations = migrationTags()
      .filter((tag) => !released.has(tag))
      .flatMap((tag) => destructiveStatements(migrationSql(tag)).map((d) => `${tag}: ${d.rule}: ${d.statement}`));
    expect(violations, "expand now, contract in a later release (docs/operations.md, \"Upgrading while it runs\")").toEqual([]);
  });
});

describe("the expand-then-contract check itself", () => {
  const rules = (sql: string) => destructiveStatements(sql).map((d) => d.rule);

  it("finds what takes away", () => {
    const cases = [
      `DROP TABLE "old_thing";`,
      `ALTER TABLE "order" DROP COLUMN "legacy";`,
      `ALTER TABLE "order" DROP COLUMN IF EXISTS "legacy";`,
      `ALTER TABLE "order" RENAME COLUMN "a" TO "b";`,
      `ALTER TABLE "order" RENAME TO "orders";`,
      `ALTER TABLE "order" ALTER COLUMN "amount" SET DATA TYPE bigint;`,
      `ALTER TABLE "order" ALTER COLUMN amount TYPE bigint USING amount::bigint;`,
      `ALTER TABLE "order" ALTER COLUMN "note" SET NOT NULL;`,
      `ALTER TABLE "order" ALTER COLUMN "note" DROP DEFAULT;`,
      `ALTER TABLE "order" ADD COLUMN "required" text NOT NULL;`,
      `DROP INDEX "order_idx";`,
      `ALTER TABLE "order" DROP CONSTRAINT "order_uq";`,
      `DROP TRIGGER "t" ON "order";`,
      `TRUNCATE "order";`,
    ];
    for (const sql of cases) expect(rules(sql), sql).not.toEqual([]);
  });

  it("lets additions through, and bodies, strings and comments are not read as statements", () => {
    const sql = [
      `-- renames nothing: DROP TABLE in a comment`,
      `CREATE TABLE "t" ("id" uuid PRIMARY KEY, "n" bigint DEFAULT 0 NOT NULL);`,
      `--> statement-breakpoint`,
      `ALTER TABLE "order" ADD COLUMN "note" text;`,
      `ALTER TABLE "order" ADD COLUMN "n" integer DEFAULT 0 NOT NULL, ADD COLUMN "m" text;`,
      `ALTER TABLE "order" ALTER COLUMN "note" DROP NOT NULL;`,
      `ALTER TABLE "order" ALTER COLUMN "note" SET DEFAULT 'DROP TABLE x';`,
      `CREATE INDEX IF NOT EXISTS "order_note_idx" ON "order" ("note");`,
      `CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM t; DROP TABLE IF EXISTS x; RETURN NULL; END $$;`,
      `CREATE OR REPLACE TRIGGER "t" AFTER INSERT ON "order" FOR EACH ROW EXECUTE FUNCTION f();`,
      `CREATE TRIGGER "t_trunc" AFTER TRUNCATE ON "order" FOR EACH STATEMENT EXECUTE FUNCTION f();`,
    ].join("\n");
    expect(destructiveStatements(sql)).toEqual([]);
  });

  it("a statement marked as a contract step passes; the mark covers its own statement only", () => {
    const sql = [
      `-- contract: nothing reads "legacy" since the release that stopped writing it`,
      `ALTER TABLE "order" DROP COLUMN "legacy";`,
      `ALTER TABLE "order" DROP COLUMN "other";`,
    ].join("\n");
    expect(destructiveStatements(sql).map((d) => d.statement)).toEqual([`ALTER TABLE "order" DROP COLUMN "other";`]);
    expect(rules(`-- contract:\nDROP TABLE "x";`)).not.toEqual([]);
  });
});
