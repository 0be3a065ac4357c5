// Rate limits hold across replicas: two servers on one PostgreSQL database — one in this
// process, one its own process — count every client address and every account together, because the
// counters live in the database (table rate_limit), not in each process's memory.
// PostgreSQL only: PGlite lives inside one process.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, uniqueEmail } from "../helpers/client.js";
import { freshDatabase, usingPostgres } from "../helpers/db.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { freePort, START_TIMEOUT_MS, startTill, type Till } from "../helpers/till-process.js";

const MAX = 3;
const LIMITS = { TILL_RATE_LIMIT: "true", TILL_RATE_LIMIT_MAX: String(MAX), TILL_RATE_LIMIT_WINDOW: "60", TILL_RATE_LIMIT_ACCOUNT_MAX: String(MAX) };

describe.skipIf(!usingPostgres)("rate limits across two replicas on one database (PostgreSQL only)", () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let inProcess: TestServer;
  let other: Till;
  let otherUrl: string;

  beforeAll(async () => {
    database = await freshDatabase();
    inProcess = await startServer(LIMITS, { database });
    const port = await freePort();
    otherUrl = `http://127.0.0.1:${port}`;
    other = await startTill({
      ...LIMITS,
      DATABASE_URL: database.url!,
      PORT: String(port),
      HOST: "127.0.0.1",
      TILL_BASE_URL: otherUrl,
      TILL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "till-replica-")),
      TILL_AUTH_SECRET: "test-secret-".padEnd(40, "x"),
      TILL_LOG_LEVEL: "warn",
    });
  }, 60_000 + START_TIMEOUT_MS); // a fresh database and the in-process server, then the other replica's process
  afterAll(async () => {
    other?.child.kill("SIGTERM");
    await other?.exited;
    await inProcess?.close();
    await database?.close();
  });

  /** The two replicas in turn, as a load balancer would send them. */
  const replica = (i: number) => (i % 2 === 0 ? inProcess.url : otherUrl);

  it("one client address: the (max+1)-th request over both replicas is 429", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < MAX + 2; i++) {
      statuses.push((await new Client(replica(i)).get("/api/auth/ok", { "x-forwarded-for": "203.0.113.90" })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it("one account: failed sign-ins from many addresses over both replicas add up", async () => {
    const email = uniqueEmail("replicas");
    const signUp = await new Client(inProcess.url).post("/api/auth/sign-up/email", { email, password: "correct-horse-battery", name: "R" }, { "x-forwarded-for": "198.51.100.200" });
    expect(signUp.status, signUp.text).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < MAX + 2; i++) {
      const res = await new Client(replica(i)).post("/api/auth/sign-in/email", { email, password: `wrong-${i}-wrong` }, { "x-forwarded-for": `198.51.100.${210 + i}` });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});
