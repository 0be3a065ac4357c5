// `till webhooks …` and `till trigger <event-type>`, end to end: the CLI as a child process against the real
// server (webhook worker running, private targets allowed) and one loopback receiver. Endpoints are managed
// through the CLI; every triggered event must reach the receiver signed so that `validateEvent` of the SDK
// accepts it (0.47.1 and 0.49.0), its data naming the objects the trigger printed.
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { validateEvent as validateEvent049 } from "polar-sdk-049/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAYMENT_EVENT_TYPES } from "../../shared/webhook-events.js";
import { Receiver, type Hit } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parseJson, tempConfigDir, till, TRACE_HOOK, type TillOptions, type TillResult } from "./till.js";

let server: TestServer;
let seller: Seller;
let receiver: Receiver;
let cli: TillOptions;

const run = (args: string[], extra: Partial<TillOptions> = {}): Promise<TillResult> => till(args, { ...cli, ...extra });
const ok = (r: TillResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
};

interface Endpoint {
  id: string;
  url: string;
  name: string | null;
  format: string;
  secret?: string;
  events: string[];
  enabled: boolean;
}

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  server = await startServer({ TILL_WEBHOOKS_ALLOW_PRIVATE: "true" });
  await server.worker.start();
  seller = await createSeller(server, "cli-webhooks");
  // live, said explicitly: trigger works in the sandbox unless told otherwise (tests/cli/sandbox.test.ts)
  cli = { configDir: tempConfigDir(), env: { TILL_API_KEY: await seller.createKey(), TILL_SERVER: server.url, TILL_SANDBOX: "0" } };
});
afterAll(async () => {
  await server?.close();
  await receiver?.stop();
});

const SPEC_TYPES: readonly string[] = PAYMENT_EVENT_TYPES;

/** Which object the trigger printed that the event's `data` is about (`data.id`, or the grant's benefit). */
function subjectOf(type: string, created: Record<string, string>): { key: "id" | "benefitId"; id: string | undefined } {
  const noun = type.split(".")[0] ?? "";
  if (noun === "benefit_grant") return { key: "benefitId", id: created.benefit };
  return { key: "id", id: created[noun] };
}

describe("till webhooks endpoints", () => {
  it("create prints the secret once; list, get and update never do; reset-secret makes a new one; delete", async () => {
    const url = `${receiver.url}/crud`;
    const made = parseJson<Endpoint>(ok(await run(["webhooks", "endpoints", "create", url, "--events", "order.paid,refund.created", "--name", "crm", "--json"])).stdout);
    expect(made).toMatchObject({ url, name: "crm", format: "raw", enabled: true, events: ["order.paid", "refund.created"] });
    expect(made.secret).toMatch(/^polar_whs_|^whsec_|.{20,}/);

    const [listed, got, plain] = await Promise.all([
      run(["webhooks", "endpoints", "list", "--json"]),
      run(["webhooks", "endpoints", "get", made.id, "--json"]),
      run(["webhooks", "endpoints", "get", made.id]),
    ]);
    const row = parseJson<Endpoint[]>(ok(listed).stdout).find((e) => e.id === made.id);
    expect(row).toMatchObject({ url, name: "crm" });
    expect(row).not.toHaveProperty("secret");
    expect(parseJson<Endpoint>(ok(got).stdout)).not.toHaveProperty("secret");
    expect(ok(plain).stdout).toBe(`ID: ${made.id}\nURL: ${url}\nName: crm\nFormat: raw\nEnabled: yes\nEvents: order.paid, refund.created\n`);
    for (const r of [listed, got, plain]) expect(r.stdout).not.toContain(made.secret);

    const upd = ok(await run(["webhooks", "endpoints", "update", made.id, "--all-events", "--format", "slack", "--disable"]));
    expect(upd.stdout).toBe(`Updated webhook endpoint ${made.id} (disabled, all).\n`);
    expect(upd.stdout + upd.stderr).not.toContain(made.secret);
    const back = await seller.sdk.webhooks.getWebhookEndpoint({ id: made.id });
    expect(back).toMatchObject({ format: "slack", enabled: false });
    expect(back.events.length).toBeGreaterThanOrEqual(27);
    const enabled = parseJson<Endpoint>(ok(await run(["webhooks", "endpoints", "update", made.id, "--enable", "--events", "order.paid", "--json"])).stdout);
    expect(enabled).toMatchObject({ enabled: true, events: ["order.paid"] });
    expect(enabled).not.toHaveProperty("secret");

    // a pipe gets the record with the new secret on stdout, the note on stderr
    const reset = ok(await run(["webhooks", "endpoints", "reset-secret", made.id]));
    const secret = /^Secret: (.+)$/m.exec(reset.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(secret).not.toBe(made.secret);
    expect((await seller.sdk.webhooks.getWebhookEndpoint({ id: made.id })).secret).toBe(secret);
    expect(reset.stderr).toContain("Save the signing secret now");

    expect(ok(await run(["webhooks", "endpoints", "delete", made.id])).stdout).toBe(`Deleted webhook endpoint ${made.id}.\n`);
    const gone = await run(["webhooks", "endpoints", "get", made.id]);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toBe(`error: Webhook endpoint not found\n`);
  });

  it("refuses malformed flags with one line, exit 2, before sending anything", async () => {
    const cases: Array<[string[], string]> = [
      [
        ["webhooks", "endpoints", "create", "https://example.com/h", "--events", "order.pay"],
        "error: option '--events <types>' argument 'order.pay' is invalid. unknown event type \"order.pay\" (`till webhooks endpoints create --help` lists them).\n",
      ],
      [
        ["webhooks", "endpoints", "create", "https://example.com/h", "--all-events", "--format", "xml"],
        "error: option '--format <format>' argument 'xml' is invalid. expected one of raw, discord, slack.\n",
      ],
      [["webhooks", "endpoints", "create", "https://example.com/h"], "error: an endpoint needs the events it gets: --events order.paid,refund.created or --all-events\n"],
      [["webhooks", "endpoints", "create", "https://example.com/h", "--events", "order.paid", "--all-events"], "error: --events and --all-events: pass one of them\n"],
      [["webhooks", "endpoints", "create", "ftp://example.com/h", "--all-events"], 'error: <url>: expected an http(s) URL such as https://example.com/webhooks, got "ftp://example.com/h"\n'],
      [
        ["webhooks", "endpoints", "update", "not-an-id", "--enable"],
        "error: command-argument value 'not-an-id' is invalid for argument 'id'. expected an id (a UUID such as 0b5c1d2e-…), see the list command.\n",
      ],
      [["webhooks", "endpoints", "update", "0b5c1d2e-0000-4000-8000-000000000000"], "error: nothing to update: pass --url, --events, --all-events, --format, --name, --enable or --disable\n"],
      [["webhooks", "deliveries", "--succeeded", "--failed"], "error: --succeeded and --failed: pass one of them\n"],
      [["webhooks", "deliveries", "--limit", "500"], "error: option '--limit <n>' argument '500' is invalid. expected a page size from 1 to 100.\n"],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    results.forEach((r, i) => {
      expect([r.exitCode, r.stderr], cases[i]?.[0].join(" ")).toEqual([2, cases[i]?.[1]]);
      expect(r.stdout).toBe("");
    });
    const none = await seller.sdk.webhooks.listWebhookEndpoints({});
    expect(none.result.items.filter((e) => e.url === "https://example.com/h")).toEqual([]);
  });

  it("a target the server refuses is its error, naming the argument: exit 2", async () => {
    const r = await run(["webhooks", "endpoints", "create", "http://example.com/h", "--all-events"]);
    expect([r.exitCode, r.stderr]).toEqual([
      2,
      "error: <url>: The URL must use https (http is accepted for loopback addresses only).\n",
    ]);
  });
});

describe("till trigger", () => {
  let endpoint: Endpoint;
  const hitsFor = (p: string) => receiver.hits.filter((h) => h.path === p);

  beforeAll(async () => {
    endpoint = parseJson<Endpoint>(ok(await run(["webhooks", "endpoints", "create", `${receiver.url}/trigger`, "--all-events", "--json"])).stdout);
  });

  it("--list and the help name the 27 types of the spec", async () => {
    const [list, json, help] = await Promise.all([run(["trigger", "--list"]), run(["trigger", "--list", "--json"]), run(["trigger", "--help"])]);
    // a line per type with what it makes (tests/cli/seller-tools.test.ts checks the descriptions)
    expect(ok(list).stdout.trimEnd().split("\n").map((l) => l.split(/ {2,}/)[0])).toEqual(SPEC_TYPES);
    expect(parseJson<{ type: string }[]>(ok(json).stdout).map((r) => r.type)).toEqual(SPEC_TYPES);
    for (const t of SPEC_TYPES) expect(ok(help).stdout).toContain(`\n  ${t}\n`);
  });

  it("an unknown type, one it cannot cause, or none is exit 2 with the list hint", async () => {
    const [unknown, expired, missing, json] = await Promise.all([
      run(["trigger", "order.pay"]),
      run(["trigger", "checkout.expired"]),
      run(["trigger"]),
      run(["trigger", "nope", "--json"]),
    ]);
    const hint = "hint: `till trigger --list` shows the event types it can make happen\n";
    expect([unknown.exitCode, unknown.stderr]).toEqual([2, `error: unknown event type "order.pay"\n${hint}`]);
    expect([expired.exitCode, expired.stderr]).toEqual([2, `error: till trigger cannot make checkout.expired happen\n${hint}`]);
    expect([missing.exitCode, missing.stderr]).toEqual([2, `error: missing the event type, such as order.paid\n${hint}`]);
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { message: 'unknown event type "nope"', code: "usage", hint: "`till trigger --list` shows the event types it can make happen" },
    });
    expect(unknown.stdout + missing.stdout).toBe("");
  });

  it("causes each of the 27 types with real objects; each delivery passes validateEvent", async () => {
    const results = await Promise.all(SPEC_TYPES.map((t) => run(["trigger", t, "--json"])));
    const made = new Map<string, Record<string, string>>();
    results.forEach((r, i) => {
      const type = SPEC_TYPES[i] as string;
      expect(r.exitCode, `${type}: ${r.stderr}`).toBe(0);
      const out = parseJson<{ event: string; created: Record<string, string> }>(r.stdout);
      expect(out.event).toBe(type);
      made.set(type, out.created);
    });

    const delivered = (hits: Hit[]) =>
      [...made].every(([type, created]) => {
        const subject = subjectOf(type, created);
        return hits.some((h) => {
          const body = JSON.parse(h.body) as { type: string; data: Record<string, unknown> };
          const value = subject.key === "benefitId" ? body.data.benefit_id : body.data.id;
          return body.type === type && value === subject.id;
        });
      });
    await receiver.until(() => delivered(hitsFor("/trigger")), 60_000);
    for (const hit of hitsFor("/trigger")) {
      const event = validateEvent(hit.body, hit.headers, endpoint.secret ?? "");
      validateEvent049(hit.body, hit.headers, endpoint.secret ?? "");
      expect(SPEC_TYPES).toContain(event.type);
    }
  }, 120_000);

  it("the human output names what was created, one line each", async () => {
    const r = ok(await run(["trigger", "order.paid"]));
    const lines = r.stdout.trimEnd().split("\n");
    const id = "[0-9a-f-]{36}";
    expect(lines.map((l) => l.replace(new RegExp(id, "g"), "<id>"))).toEqual([
      "created benefit <id>",
      "created product <id>",
      "attached benefit <id> to product <id>",
      "created checkout <id>",
      "paid checkout <id> with the test card 4242",
      "created customer <id>",
      "created order <id>",
      "created subscription <id>",
    ]);
    expect(r.stderr).toBe("Triggered order.paid live: your live webhook endpoints and `till listen --live` get it in a moment.\n");
  });
});

describe("till webhooks deliveries and redeliver", () => {
  it("lists attempts with status, timing and attempt number; redeliver sends the event again with its webhook-id", async () => {
    const made = parseJson<Endpoint>(ok(await run(["webhooks", "endpoints", "create", `${receiver.url}/log`, "--events", "customer.created", "--json"])).stdout);
    const created = parseJson<{ created: { customer: string } }>(ok(await run(["trigger", "customer.created", "--json"])).stdout).created.customer;
    const first = await receiver.until((hits) => hits.find((h) => h.path === "/log" && h.body.includes(created)));

    type Delivery = { id: string; http_code: number; succeeded: boolean; attempt: number; duration_ms: number; webhook_event: { id: string; type: string } };
    // this test's event only: under load an earlier test's customer.created, fanned out late, may reach the new
    // endpoint too
    const list = async () =>
      parseJson<Delivery[]>(ok(await run(["webhooks", "deliveries", "--endpoint", made.id, "--event-type", "customer.created", "--json"])).stdout).filter(
        (d) => d.webhook_event.id === first.headers["webhook-id"],
      );
    const [one] = await eventuallyList(list, 1);
    expect(one).toMatchObject({ http_code: 200, succeeded: true, attempt: 1, webhook_event: { type: "customer.created", id: first.headers["webhook-id"] } });
    expect(typeof one?.duration_ms).toBe("number");

    const plain = ok(await run(["webhooks", "deliveries", "--endpoint", made.id, "--succeeded"]));
    const line = plain.stdout.split("\n").find((l) => l.includes(one?.webhook_event.id ?? "-")) ?? "";
    const cells = line.trimEnd().split("\t");
    expect(cells.slice(1, 6)).toEqual(["customer.created", one?.webhook_event.id, "1", "ok 200", `${one?.duration_ms} ms`]);
    const failed = ok(await run(["webhooks", "deliveries", "--endpoint", made.id, "--failed", "--json"]));
    expect(parseJson(failed.stdout)).toEqual([]);

    const eventId = one?.webhook_event.id ?? "";
    const again = ok(await run(["webhooks", "redeliver", eventId]));
    expect(again.stdout).toBe(`Queued event ${eventId} for redelivery (same webhook-id: receivers can deduplicate).\n`);
    await receiver.until((hits) => hits.filter((h) => h.path === "/log" && h.headers["webhook-id"] === eventId).length >= 2);
    const twice = await eventuallyList(list, 2);
    expect(twice.map((d) => d.webhook_event.id)).toEqual([eventId, eventId]);

    const missing = await run(["webhooks", "redeliver", "0b5c1d2e-0000-4000-8000-000000000000"]);
    expect([missing.exitCode, missing.stderr]).toEqual([1, "error: Webhook event not found\n"]);
  });
});

async function eventuallyList<T>(list: () => Promise<T[]>, n: number): Promise<T[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const items = await list();
    if (items.length >= n || Date.now() > deadline) return items;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("help and output modes", () => {
  it("--help on every new command shows examples", async () => {
    const commands = [
      ["webhooks"], ["webhooks", "endpoints"], ["webhooks", "endpoints", "list"], ["webhooks", "endpoints", "get"],
      ["webhooks", "endpoints", "create"], ["webhooks", "endpoints", "update"], ["webhooks", "endpoints", "delete"],
      ["webhooks", "endpoints", "reset-secret"], ["webhooks", "deliveries"], ["webhooks", "redeliver"], ["trigger"],
    ];
    const results = await Promise.all(commands.map((c) => run([...c, "--help"])));
    results.forEach((r, i) => {
      expect(r.exitCode, commands[i]?.join(" ")).toBe(0);
      expect(r.stdout, commands[i]?.join(" ")).toContain("\nExamples:\n  $ till ");
    });
  });

  it("--json never loads Ink or React", async () => {
    const trace = (name: string) => path.join(os.tmpdir(), `till-trace-${process.pid}-webhooks-${name}.txt`);
    const traced = async (name: string, args: string[]) => {
      const file = trace(name);
      writeFileSync(file, "");
      ok(await run(args, { nodeArgs: ["--import", TRACE_HOOK], env: { ...cli.env, TILL_TRACE_FILE: file } }));
      return readFileSync(file, "utf8").split("\n");
    };
    const loadsUi = (urls: string[]) => urls.some((u) => /\/node_modules\/(ink|react|ink-spinner)\//.test(u));
    const list = await traced("list", ["webhooks", "endpoints", "list", "--json"]);
    expect(list.some((u) => u.endsWith("/bin/till.js"))).toBe(true); // the trace works
    expect(loadsUi(list)).toBe(false);
    expect(loadsUi(await traced("trigger", ["trigger", "product.created", "--json"]))).toBe(false);
    expect(loadsUi(await traced("deliveries", ["webhooks", "deliveries", "--json"]))).toBe(false);
  });
});
