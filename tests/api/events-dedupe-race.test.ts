// Concurrent ingest batches sharing external ids: each key is claimed once (event_external_id), and the claims
// of two batches never deadlock (PostgreSQL's "deadlock detected" was a 500 before the keys were claimed in order).
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSeller } from "../helpers/seller.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server?.close());

it("six batches at once, each sharing half its external ids with another, fifteen times: all 200, each id stored once", async () => {
  const seller = await createSeller(server, "dedupe-race");
  const key = await seller.createKey();
  const statuses: number[] = [];
  let inserted = 0;
  for (let round = 0; round < 15; round++) {
    const batches = Array.from({ length: 6 }, (_, b) =>
      Array.from({ length: 40 }, (_, i) => ({ name: "race", external_customer_id: `ext-${i % 4}`, external_id: `r${round}-${(b * 20 + i) % 140}` })),
    );
    const answers = await Promise.all(
      batches.map((events) =>
        fetch(`${server.url}/v1/events/ingest`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ events }),
        }),
      ),
    );
    statuses.push(...answers.map((r) => r.status));
    for (const a of answers) if (a.ok) inserted += ((await a.json()) as { inserted: number }).inserted;
  }
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  expect(inserted).toBe(15 * 140);
}, 120_000);
