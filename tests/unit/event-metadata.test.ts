// Ingest metadata scalars are checked without zod (server/billing/events/service.ts: zod's failure path made a
// batch of 1,000 bad events dear); the answers must stay those the zod union gave.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { EventInput } from "../../server/billing/events/ingest/input.js";

const metadataScalar = z.union([z.string().max(500), z.number(), z.boolean()]);

describe("ingest metadata scalars", () => {
  it("pass and fail as the zod union does, with its messages", () => {
    for (const value of [1, -2.5, 0, true, false, "", "x".repeat(500), "x".repeat(501), null, { a: 1 }, [1], []]) {
      const expected = metadataScalar.safeParse(value);
      const got = EventInput.safeParse({ name: "n", external_customer_id: "c", metadata: { k: value } });
      expect(got.success, JSON.stringify(value)).toBe(expected.success);
      if (got.success) expect(got.data.metadata).toEqual({ k: value });
      else expect(got.error.issues.map((i) => [i.path, i.message])).toEqual(expected.error!.issues.map((i) => [["metadata", "k"], i.message]));
    }
  });
});
