// `till meters` and `till events ingest`, end to end: the CLI as a child process against the real server with an
// organization API key; what it changed is read back through the Polar SDK.
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson, TRACE_HOOK } from "./till.js";
import { sellerCliFixture, ok, idOf } from "./seller-cli-fixtures.js";

const fx = sellerCliFixture("cli-resources");

const tmp = (name: string) => path.join(os.tmpdir(), `till-cli-${process.pid}-${name}`);

describe("till meters and till events ingest", () => {
  let meterId: string;
  const ndjson = (n: number, from = 0, extra: (i: number) => Record<string, unknown> = () => ({})) =>
    Array.from({ length: n }, (_, k) => JSON.stringify({ name: "api_call", external_customer_id: "svc_1", external_id: `ev-${from + k}`, ...extra(from + k) })).join("\n") + "\n";
  const total = async () => {
    const q = await fx.seller.sdk.meters.quantities({
      id: meterId,
      startTimestamp: new Date(Date.now() - 86_400_000),
      endTimestamp: new Date(Date.now() + 86_400_000),
      interval: "day",
    });
    return q.total;
  };

  it("meters: create with --event-name or --filter and an aggregation; update; list; archive", async () => {
    const [count, sum] = await Promise.all([
      fx.run(["meters", "create", "API calls", "--event-name", "api_call", "--count", "--json"]),
      fx.run([
        "meters", "create", "Tokens",
        "--filter", JSON.stringify({ conjunction: "or", clauses: [{ property: "name", operator: "eq", value: "llm" }, { property: "name", operator: "eq", value: "chat" }] }),
        "--sum", "metadata.tokens", "--unit", "token", "--json",
      ]),
    ]);
    meterId = idOf(count);
    const tokens = idOf(sum);
    expect(await fx.seller.sdk.meters.get({ id: meterId })).toMatchObject({
      name: "API calls",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
      aggregation: { func: "count" },
    });
    expect(await fx.seller.sdk.meters.get({ id: tokens })).toMatchObject({ unit: "token", aggregation: { func: "sum", property: "metadata.tokens" } });

    ok(await fx.run(["meters", "update", tokens, "--name", "LLM tokens", "--max", "metadata.tokens"]));
    expect(await fx.seller.sdk.meters.get({ id: tokens })).toMatchObject({ name: "LLM tokens", aggregation: { func: "max", property: "metadata.tokens" } });
    const list = ok(await fx.run(["meters", "list"]));
    expect(list.stdout).toContain(`${meterId}\tAPI calls\tcount\tname = "api_call"\n`);
    expect(list.stdout).toContain(`${tokens}\tLLM tokens\tmax(metadata.tokens)\tname = "llm" or name = "chat"\n`);
    ok(await fx.run(["meters", "archive", tokens]));
    expect((await fx.run(["meters", "list", "--json"])).stdout).not.toContain(tokens);

    const refused = await Promise.all([
      fx.run(["meters", "create", "X", "--event-name", "a", "--count", "--sum", "x"]),
      fx.run(["meters", "create", "X", "--count"]),
      fx.run(["meters", "create", "X", "--event-name", "a"]),
      fx.run(["meters", "create", "X", "--filter", "[1]", "--count"]),
    ]);
    expect(refused.map((r) => [r.exitCode, r.stderr])).toEqual([
      [2, "error: --count and --sum: a meter has one aggregation\n"],
      [2, "error: a meter needs the events it counts: --event-name <name> or --filter <json>\n"],
      [2, "error: a meter needs an aggregation: --count, --sum <property>, --max, --min, --avg or --unique <property>\n"],
      [2, "error: --filter: expected a JSON object\n"],
    ]);
  });

  it("ingest from a file: batches of 1000 with a progress line per batch, duplicates counted; again: all duplicates", async () => {
    await fx.seller.sdk.customers.create({ email: "svc@example.com", externalId: "svc_1" });
    const file = tmp("events.ndjson");
    // 2500 lines, the last 100 repeating earlier external ids
    writeFileSync(file, ndjson(2400) + ndjson(100));
    const r = ok(await fx.run(["events", "ingest", file]));
    expect(r.stdout).toBe("Ingested 2500 events in 3 batches: 2400 inserted, 100 duplicates.\n");
    expect(r.stderr).toBe(
      "Batch 1/3: 1000/2500 events sent, 1000 inserted, 0 duplicates\n" +
        "Batch 2/3: 2000/2500 events sent, 2000 inserted, 0 duplicates\n" +
        "Batch 3/3: 2500/2500 events sent, 2400 inserted, 100 duplicates\n",
    );
    expect(await total()).toBe(2400);
    const again = ok(await fx.run(["events", "ingest", file, "--json"]));
    expect(again.stderr).toBe("");
    expect(parseJson(again.stdout)).toEqual({ events: 2500, batches: 3, inserted: 0, duplicates: 2500 });
  });

  it("ingest from stdin (`-` or no file), blank lines skipped, --batch-size", async () => {
    const input = ndjson(3, 5000) + "\n\n" + ndjson(2, 5003);
    const [dash, bare] = await Promise.all([
      fx.run(["events", "ingest", "-", "--batch-size", "2", "--json"], { input }),
      fx.run(["events", "ingest", "--json"], { input: ndjson(1, 6000) }),
    ]);
    const a = parseJson<{ events: number; batches: number; inserted: number; duplicates: number }>(ok(dash).stdout);
    const b = parseJson<{ inserted: number }>(ok(bare).stdout);
    expect(a).toEqual({ events: 5, batches: 3, inserted: 5, duplicates: 0 });
    expect(b).toEqual({ events: 1, batches: 1, inserted: 1, duplicates: 0 });
    expect(await total()).toBe(2406);
  });

  it("ingest refuses bad lines before sending anything, names the line; unreadable files; the server's refusal names the line too", async () => {
    const before = await total();
    const bad = ndjson(1500, 7000) + '{"name":"api_call"}\n' + ndjson(1, 9000) + "not json\n";
    const [lines, missing, directory] = await Promise.all([
      fx.run(["events", "ingest"], { input: bad }),
      fx.run(["events", "ingest", tmp("no-such-file.ndjson")]),
      fx.run(["events", "ingest", os.tmpdir(), "--json"]),
    ]);
    expect(lines.exitCode).toBe(2);
    expect(lines.stdout).toBe("");
    expect(lines.stderr).toBe(
      'error: stdin: line 1501: needs "customer_id" or "external_customer_id" (and 1 more bad line)\n' +
        "hint: nothing was sent: fix the input and run the command again\n",
    );
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(`error: ${tmp("no-such-file.ndjson")}: cannot read it (ENOENT)\n`);
    expect(directory.exitCode).toBe(2);
    expect(JSON.parse(directory.stderr)).toMatchObject({ error: { message: `${os.tmpdir()}: cannot read it (EISDIR)`, code: "usage" } });
    expect(await total()).toBe(before);

    // what only the server knows (an unknown customer) refuses that batch alone, named by its line (the first
    // batch repeats an external_id: one duplicate)
    const unknown = ndjson(1, 9100) + ndjson(1, 9100) + JSON.stringify({ name: "api_call", customer_id: "00000000-0000-4000-8000-000000000000" }) + "\n";
    const refused = await fx.run(["events", "ingest", "--batch-size", "2"], { input: unknown });
    expect(refused.exitCode).toBe(2); // the server's 422 is invalid input: exit 2
    expect(refused.stderr).toBe(
      "Batch 1/2: 2/3 events sent, 1 inserted, 1 duplicate\n" +
        "error: the server refused batch 2: line 3: customer_id: Customer not found.\n" +
        "hint: lines before 3 are in (1 inserted, 1 duplicate); nothing of this batch or after it was sent. Events with an external_id are deduplicated: fix the lines and send the file again.\n",
    );
    expect(await total()).toBe(before + 1);
  });

  it("quantities: --json is the API's answer, a pipe gets tab-separated buckets, a terminal a bar chart (Ink)", async () => {
    const day = new Date().toISOString().slice(0, 10);
    const start = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const end = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const args = ["meters", "quantities", meterId, "--start", start, "--end", end, "--interval", "day"];
    const [json, plain, tty] = await Promise.all([
      fx.run([...args, "--json"]),
      fx.run(args),
      fx.run(args, { env: { ...fx.cli.env, TILL_FORCE_TTY: "1", NO_COLOR: "1" } }),
    ]);
    const q = parseJson<{ quantities: { timestamp: string; quantity: number }[]; total: number }>(ok(json).stdout);
    const expected = await total();
    expect(q.total).toBe(expected);
    expect(q.quantities.map((b) => b.timestamp.slice(0, 10))).toContain(day);
    expect(q.quantities.find((b) => b.timestamp.startsWith(day))?.quantity).toBe(expected);

    expect(ok(plain).stdout).toBe(q.quantities.map((b) => `${b.timestamp}\t${b.quantity}`).join("\n") + "\n");
    const lines = ok(tty).stdout.trimEnd().split("\n");
    const today = lines.find((l) => l.startsWith(day));
    expect(today).toMatch(new RegExp(`^${day} +${expected.toLocaleString("en")} █+$`));
    expect(lines.at(-1)).toMatch(new RegExp(`^Total +${expected.toLocaleString("en")}$`));
    expect(tty.stdout).not.toContain("\u001B[");
  });

  it("--json never loads Ink or React; the chart on a terminal does", async () => {
    const trace = async (name: string, args: string[], env: Record<string, string> = {}) => {
      const file = tmp(`trace-${name}.txt`);
      writeFileSync(file, "");
      ok(await fx.run(args, { nodeArgs: ["--import", TRACE_HOOK], env: { ...fx.cli.env, TILL_TRACE_FILE: file, ...env } }));
      return readFileSync(file, "utf8").split("\n");
    };
    // Ink and React from node_modules, or bundled into the CLI's Ink screens (dist/cli/ui-*)
    const loadsUi = (urls: string[]) => urls.some((u) => /\/node_modules\/(ink|react)\/|\/dist\/cli\/ui-/.test(u));
    const [json, list, chart] = await Promise.all([
      trace("json", ["meters", "quantities", meterId, "--json"]),
      trace("list", ["products", "list", "--json"]),
      trace("chart", ["meters", "quantities", meterId], { TILL_FORCE_TTY: "1" }),
    ]);
    expect(json.some((u) => u.includes("/node_modules/commander/") || u.includes("/dist/cli/") || u.endsWith("/bin/till.js"))).toBe(true);
    expect(loadsUi(json)).toBe(false);
    expect(loadsUi(list)).toBe(false);
    expect(loadsUi(chart)).toBe(true);
  });
});
