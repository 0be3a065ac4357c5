// GET /v1/cli/listen (the stream behind `till listen`): live events as server-sent events with the webhook body,
// replay after a Last-Event-ID (header or query), the event type filter, tenancy, scopes and malformed ids.
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outbox } from "../../server/db/schema/index.js";
import { createProduct, pay } from "../helpers/checkout.js";
import { usingPostgres } from "../helpers/db.js";
import { eventually } from "../helpers/receiver.js";
import { createSeller, type Seller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let seller: Seller;
let other: Seller;

beforeAll(async () => {
  server = await startServer();
  await server.worker.start();
  seller = await createSeller(server, "listen");
  other = await createSeller(server, "listen-other");
});
afterAll(async () => {
  await server?.close();
});

interface Message {
  id: string;
  event: string;
  data: string;
}

function parseMessages(text: string): Message[] {
  const out: Message[] = [];
  for (const block of text.split("\n\n")) {
    const m: Partial<Message> = {};
    for (const line of block.split("\n")) {
      const i = line.indexOf(": ");
      if (line.startsWith(":") || i < 0) continue;
      const key = line.slice(0, i);
      if (key === "id" || key === "event" || key === "data") m[key] = line.slice(i + 2);
    }
    if (m.id && m.event && m.data) out.push(m as Message);
  }
  return out;
}

const listenUrl = (query = "") => `${server.url}/v1/cli/listen${query ? `?${query}` : ""}`;

/** A live stream: messages accumulate while it is open. */
async function open(token: string, query = "", headers: Record<string, string> = {}) {
  const ctrl = new AbortController();
  const res = await fetch(listenUrl(query), { headers: { authorization: `Bearer ${token}`, ...headers }, signal: ctrl.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  let text = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    } catch {
      // aborted
    }
  })();
  return {
    messages: () => parseMessages(text),
    async until(predicate: (ms: Message[]) => boolean, timeoutMs = 10_000) {
      return eventually(async () => predicate(parseMessages(text)) && parseMessages(text), timeoutMs);
    },
    async close() {
      ctrl.abort();
      await reading;
    },
  };
}

/** Replay only (follow=false): what comes after the cursor, then the end of the stream. */
async function replay(token: string, query: string, headers: Record<string, string> = {}) {
  const res = await fetch(listenUrl(`follow=false${query ? `&${query}` : ""}`), { headers: { authorization: `Bearer ${token}`, ...headers } });
  return { status: res.status, text: await res.text() };
}

const body = (m: Message) => JSON.parse(m.data) as { type: string; timestamp: string; data: Record<string, unknown> };

describe("GET /v1/cli/listen", () => {
  it("streams the organization's events live with the webhook body, and replays after a Last-Event-ID", async () => {
    const stream = await open(seller.token);
    const first = await createProduct(seller, "fixed");
    const second = await createProduct(seller, "free");
    const customer = await seller.sdk.customers.create({ email: `listen-${Date.now()}@example.com` });
    const got = await stream.until((ms) => ms.some((m) => m.event === "customer.created"));
    await stream.close();

    expect(got.map((m) => m.event)).toEqual(["product.created", "product.created", "customer.created"]);
    expect(got.map((m) => body(m).data.id)).toEqual([first.id, second.id, customer.id]);
    const b = body(got[0]!);
    expect(Object.keys(b)).toEqual(["type", "timestamp", "data"]);
    expect(b.type).toBe("product.created");
    expect(new Date(b.timestamp).toISOString()).toBe(b.timestamp);
    expect(b.data).toMatchObject({ id: first.id, name: first.name, organization_id: seller.organizationId });
    expect(got[0]!.id).toMatch(/^\d+-\d+-[0-9a-f-]{36}$/);
    expect(new Set(got.map((m) => m.id)).size).toBe(3);

    // everything after the first, by header and by query; the last id leaves nothing to replay
    const byHeader = await replay(seller.token, "", { "last-event-id": got[0]!.id });
    expect(byHeader.status).toBe(200);
    expect(parseMessages(byHeader.text)).toEqual(got.slice(1));
    const byQuery = await replay(seller.token, `last_event_id=${encodeURIComponent(got[0]!.id)}`);
    expect(parseMessages(byQuery.text)).toEqual(got.slice(1));
    expect(parseMessages((await replay(seller.token, `last_event_id=${encodeURIComponent(got[2]!.id)}`)).text)).toEqual([]);

    // a resumed live stream replays first, then goes on live
    const resumed = await open(seller.token, "", { "last-event-id": got[1]!.id });
    const third = await createProduct(seller, "fixed");
    const after = await resumed.until((ms) => ms.length >= 2);
    await resumed.close();
    expect(after.map((m) => body(m).data.id)).toEqual([customer.id, third.id]);
  });

  it("filters by event type (repeated or comma-separated)", async () => {
    const stream = await open(seller.token, "events=customer.created,customer.updated");
    const all = await open(seller.token, "events=product.created&events=customer.created");
    await createProduct(seller, "fixed");
    const c = await seller.sdk.customers.create({ email: `filter-${Date.now()}@example.com` });
    await seller.sdk.customers.update({ id: c.id, customerUpdate: { name: "Renamed" } });
    const got = await stream.until((ms) => ms.some((m) => m.event === "customer.updated"));
    const both = await all.until((ms) => ms.some((m) => m.event === "customer.created"));
    await stream.close();
    await all.close();
    expect(got.map((m) => m.event)).toEqual(["customer.created", "customer.updated"]);
    expect(both.map((m) => m.event)).toEqual(["product.created", "customer.created"]);
  });

  it("sends customer.state_changed with the state the worker computed", async () => {
    const stream = await open(seller.token, "events=customer.state_changed");
    const product = await createProduct(seller, "monthly");
    const checkout = await seller.sdk.checkouts.create({ products: [product.id] });
    await pay(server, checkout);
    const [m] = await stream.until((ms) => ms.length > 0, 15_000);
    await stream.close();
    expect(body(m!).data).toMatchObject({ email: expect.any(String), active_subscriptions: [expect.objectContaining({ product_id: product.id })] });
  });

  it("never shows another organization's events, even with its event ids", async () => {
    const mine = await open(other.token);
    const theirs = await open(seller.token);
    const p = await createProduct(seller, "fixed");
    const own = await createProduct(other, "fixed");
    const got = await mine.until((ms) => ms.length > 0);
    const seen = await theirs.until((ms) => ms.length > 0);
    await new Promise((r) => setTimeout(r, 300));
    await mine.close();
    await theirs.close();
    expect(got.map((m) => body(m).data.id)).toEqual([own.id]);
    expect(seen.map((m) => body(m).data.id)).toEqual([p.id]);

    // the seller's cursor replays nothing of the seller's to the other organization
    const before = (await replay(seller.token, "")).text;
    expect(parseMessages(before)).toEqual([]);
    const all = await replay(other.token, `last_event_id=${encodeURIComponent(`1-0-${"0".repeat(8)}-0000-0000-0000-${"0".repeat(12)}`)}`);
    expect(all.text).not.toContain(p.id);
    expect(all.text).not.toContain(seller.organizationId);
    expect(parseMessages(all.text).every((m) => body(m).data.organization_id === other.organizationId)).toBe(true);
  });

  it("streams the events one transaction processed in the order they happened, live and on replay", async () => {
    const stream = await open(seller.token);
    const later = new Date(Date.now() + 3_600_000);
    const base = Date.now();
    const rows = await server.database.db
      .insert(outbox)
      .values(
        Array.from({ length: 30 }, (_, i) => ({
          organizationId: seller.organizationId,
          type: "product.updated",
          payload: { id: `ordered-${i}` },
          createdAt: new Date(base + i),
          availableAt: later,
        })),
      )
      .returning({ id: outbox.id });
    await server.database.db.update(outbox).set({ processedAt: sql`now()` }).where(inArray(outbox.id, rows.map((r) => r.id)));
    const got = await stream.until((ms) => ms.filter((m) => m.data.includes("ordered-")).length >= 30);
    await stream.close();
    const ordered = got.filter((m) => m.data.includes("ordered-"));
    expect(ordered.map((m) => body(m).data.id)).toEqual(Array.from({ length: 30 }, (_, i) => `ordered-${i}`));
    const rest = await replay(seller.token, `last_event_id=${encodeURIComponent(ordered[9]!.id)}`);
    expect(parseMessages(rest.text).map((m) => body(m).data.id)).toEqual(Array.from({ length: 20 }, (_, i) => `ordered-${i + 10}`));
  });

  it("pages through more events than one batch, live and on replay", async () => {
    const stream = await open(seller.token);
    const later = new Date(Date.now() + 3_600_000);
    const rows = await server.database.db
      .insert(outbox)
      .values(Array.from({ length: 450 }, (_, i) => ({ organizationId: seller.organizationId, type: "product.updated", payload: { id: `bulk-${i}` }, availableAt: later })))
      .returning({ id: outbox.id });
    // one transaction processes them all (as the worker's fan-out does, up to 500 at a time)
    await server.database.db.update(outbox).set({ processedAt: sql`now()` }).where(inArray(outbox.id, rows.map((r) => r.id)));
    const got = await stream.until((ms) => ms.length >= 450, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    await stream.close();
    expect(stream.messages()).toHaveLength(450);
    const ids = got.map((m) => m.id.slice(-36));
    expect(ids).toEqual(rows.map((r) => r.id).sort());
    const rest = await replay(seller.token, `last_event_id=${encodeURIComponent(got[199]!.id)}`);
    expect(parseMessages(rest.text)).toEqual(got.slice(200));
  });

  it("refuses malformed or unknown Last-Event-IDs and event types with 422, changing nothing", async () => {
    for (const [query, headers, loc] of [
      ["", { "last-event-id": "nonsense" }, ["header", "last-event-id"]],
      ["last_event_id=12", {}, ["query", "last_event_id"]],
      [`last_event_id=${encodeURIComponent(`99999999999-0-${crypto.randomUUID()}`)}`, {}, ["query", "last_event_id"]],
      ["", { "last-event-id": `99999999999999999999-${crypto.randomUUID()}` }, ["header", "last-event-id"]],
      ["events=order.paid,nope", {}, ["query", "events"]],
    ] as const) {
      const res = await replay(seller.token, query, headers);
      expect(res.status, `${query} ${JSON.stringify(headers)}`).toBe(422);
      expect(JSON.parse(res.text)).toMatchObject({ detail: [{ loc }] });
    }
  });

  it("needs a token with webhooks:read", async () => {
    expect((await fetch(listenUrl("follow=false"))).status).toBe(401);
    const productsOnly = await seller.createKey({ products: ["read"] });
    const denied = await fetch(listenUrl("follow=false"), { headers: { authorization: `Bearer ${productsOnly}` } });
    expect(denied.status).toBe(403);
    const key = await seller.createKey({ webhooks: ["read"] });
    expect((await replay(key, "")).status).toBe(200);
  });
});

describe.skipIf(!usingPostgres)("the cursor under concurrent workers (PostgreSQL only: PGlite has one connection)", () => {
  it("holds back events behind a processing transaction still open, then sends both in order: a resume skips nothing", async () => {
    const db = server.database.db;
    // two events the worker leaves alone (not due yet); two transactions mark them processed, as workers would
    const later = new Date(Date.now() + 3_600_000);
    const [a, b] = await db
      .insert(outbox)
      .values(["a", "b"].map((name) => ({ organizationId: seller.organizationId, type: "product.updated", payload: { id: name }, availableAt: later })))
      .returning({ id: outbox.id });
    const stream = await open(seller.token);
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let marked = () => {};
    const first = new Promise<void>((r) => (marked = r));
    const slow = db.transaction(async (tx) => {
      await tx.update(outbox).set({ processedAt: sql`now()` }).where(eq(outbox.id, a!.id));
      marked();
      await held;
    });
    await first;
    await db.update(outbox).set({ processedAt: sql`now()` }).where(eq(outbox.id, b!.id));
    await new Promise((r) => setTimeout(r, 1_500)); // notifications and a poll or two
    expect(stream.messages()).toEqual([]);
    release();
    await slow;
    const got = await stream.until((ms) => ms.length >= 2);
    await stream.close();
    expect(got.map((m) => body(m).data.id)).toEqual(["a", "b"]);
    expect(parseMessages((await replay(seller.token, `last_event_id=${encodeURIComponent(got[0]!.id)}`)).text)).toEqual([got[1]]);
  });
});
