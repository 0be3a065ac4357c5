// A kill -9 of the server process loses no reservation and counts none twice. The real server
// (`node --import tsx server/main.ts`) holds units, is killed with SIGKILL and started again on the same data: the
// hold is still held and counted, its commit records once; killed again and restarted, the retried commit records
// nothing twice. Killed during a stream of commits, the events recorded are exactly the reservations committed, and
// committing the rest again makes every one once. On PostgreSQL (a fresh database) and on PGlite (its data folder,
// which the restarted process opens again).
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../server/db/client.js";
import { Client, uniqueEmail } from "../helpers/client.js";
import { freshDatabase, usingPostgres } from "../helpers/db.js";
import { freePort, START_TIMEOUT_MS, startTill, type Till } from "../helpers/till-process.js";
import { balanceOf, call, commit, eventsOf, externalIdsOf, plan, reserve, subscriber, sumMeter, type Api, type ReservationBody } from "./reservations-fixtures.js";

/** Reservations committed one unit each in the stream the kill interrupts, and how many commit at once. */
const STREAM = 40;
const WIDTH = 4;
/** The kill comes once this many commits of the stream have been answered. */
const KILL_AFTER = 12;

let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
let env: Record<string, string>;
let till: Till | undefined;
let api: Api = { url: "", token: "" };

const running = (t: Till | undefined): t is Till => t !== undefined && t.child.exitCode === null && t.child.signalCode === null;

/** Starts the server process on the test's data, on a new port (the token stays the seller's). */
async function start(): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  till = await startTill({ ...env, PORT: String(port), TILL_BASE_URL: url });
  api = { ...api, url };
}

async function kill(): Promise<void> {
  if (!running(till)) return;
  till.child.kill("SIGKILL");
  await till.exited;
}

beforeAll(async () => {
  database = usingPostgres ? await freshDatabase() : undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "till-resv-kill-"));
  // PGlite's data folder made and migrated here, so the process's start is only its own (as on PostgreSQL)
  if (!database) await (await openDatabase({ dataDir: path.join(dataDir, "pglite") })).close();
  env = {
    ...(database?.url ? { DATABASE_URL: database.url } : {}),
    HOST: "127.0.0.1",
    TILL_DATA_DIR: dataDir,
    TILL_AUTH_SECRET: "reservations-kill-secret-".padEnd(40, "x"),
    TILL_RATE_LIMIT: "false",
    TILL_TEST_PAYMENTS: "live",
    TILL_LOG_LEVEL: "warn",
  };
  await start();
  const client = new Client(api.url);
  const { token } = await client.signUp(uniqueEmail("resv-kill"));
  const org = await client.post<{ id: string }>("/api/auth/organization/create", { name: "kill org", slug: `resv-kill-${Date.now().toString(36)}` });
  expect(org.status).toBe(200);
  expect((await client.post("/api/auth/organization/set-active", { organizationId: org.body.id })).status).toBe(200);
  api = { ...api, token };
}, START_TIMEOUT_MS + 240_000);

afterAll(async () => {
  if (running(till)) {
    till.child.kill("SIGTERM");
    await Promise.race([till.exited, new Promise((r) => setTimeout(r, 10_000))]);
    await kill();
  }
  await database?.close();
});

const body = (res: { body: Record<string, unknown> }) => res.body as unknown as ReservationBody;

describe(`kill -9 of the server between reserve and commit (${usingPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  it("keeps the hold held and counted, and its commit records once across two kills", { timeout: 3 * START_TIMEOUT_MS + 120_000 }, async () => {
    const meter = await sumMeter(api, "llm");
    const { customerId } = await subscriber(api, await plan(api, "Hundred tokens", meter, { credits: 100, overage: null }));
    const hold = await reserve(api, customerId, "llm", 30, { expires_in: 3600 });
    expect(hold.status).toBe(201);
    const id = body(hold).id;

    await kill();
    await start();
    expect((await call(api, "GET", `/v1/reservations/${id}`)).body).toMatchObject({ status: "held", units: 30 });
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 70, held: 30 });
    // still counted: 71 more cannot be held
    expect((await reserve(api, customerId, "llm", 71)).status).toBe(409);
    const done = await commit(api, id, 25);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "committed", used_units: 25 });

    await kill();
    await start();
    const retried = await commit(api, id, 25);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(done.body);
    const events = await eventsOf(api, customerId);
    expect(events.map((e) => e.metadata)).toEqual([{ tokens: 25 }]);
    if (database) expect(await externalIdsOf(database.db, events)).toEqual([`reservation:${id}`]);
    expect(await balanceOf(api, customerId, "llm")).toMatchObject({ balance: 75, held: 0 });
  });

  it("killed during a stream of commits: the events recorded are the reservations committed", { timeout: 2 * START_TIMEOUT_MS + 180_000 }, async () => {
    const meter = await sumMeter(api, "batch");
    const { customerId } = await subscriber(api, await plan(api, "Batch tokens", meter, { credits: 100, overage: null }));
    const ids: string[] = [];
    for (let i = 0; i < STREAM; i++) {
      const res = await reserve(api, customerId, "batch", 1, { expires_in: 3600 });
      expect(res.status).toBe(201);
      ids.push(body(res).id);
    }
    // WIDTH clients commit the reservations in turn until the connection dies with the process
    const answered = new Set<string>();
    let next = 0;
    let killing: Promise<void> | undefined;
    await Promise.all(
      Array.from({ length: WIDTH }, async () => {
        while (next < ids.length && running(till)) {
          const id = ids[next++]!;
          try {
            const res = await commit(api, id, 1);
            if (res.status === 200) answered.add(id);
          } catch {
            return; // the process died under this request
          }
          if (answered.size >= KILL_AFTER) killing ??= kill();
        }
      }),
    );
    await killing;
    expect(answered.size).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(answered.size).toBeLessThan(STREAM);

    await start();
    const states = await Promise.all(ids.map(async (id) => body(await call(api, "GET", `/v1/reservations/${id}`))));
    const committed = states.filter((s) => s.status === "committed");
    // every commit answered is committed; one in flight at the kill may be either, never half
    for (const id of answered) expect(states.find((s) => s.id === id)?.status).toBe("committed");
    expect(states.every((s) => s.status === "committed" || s.status === "held")).toBe(true);
    const events = await eventsOf(api, customerId);
    expect(events).toHaveLength(committed.length);
    expect(await balanceOf(api, customerId, "batch")).toMatchObject({ balance: 100 - STREAM, held: STREAM - committed.length });
    if (database) expect(await externalIdsOf(database.db, events)).toEqual(committed.map((s) => `reservation:${s.id}`).sort());

    // the seller commits everything again: the rest once, the committed ones not twice
    for (const id of ids) expect((await commit(api, id, 1)).status).toBe(200);
    expect(await eventsOf(api, customerId)).toHaveLength(STREAM);
    expect(await balanceOf(api, customerId, "batch")).toMatchObject({ balance: 100 - STREAM, held: 0 });
  });
});
