// The retry schedule of a delivery that failed transiently — 30 s, 2 m, 10 m, 30 m, 1 h, 2 h, 4 h, then
// every 8 h — and the give-up once the next try would come a day or more after the delivery was made.
import { describe, expect, it } from "vitest";
import { GIVE_UP_AFTER_MS, retryDelay } from "../../server/billing/benefit-delivery/service.js";

const minute = 60_000;
const hour = 60 * minute;

describe("retryDelay", () => {
  const made = new Date("2026-01-01T00:00:00Z");
  const t0 = made.getTime();

  it("backs off after each failure, then waits 8 hours between tries", () => {
    const waits = [0, 1, 2, 3, 4, 5, 6, 7, 8, 12].map((attempts) => retryDelay(attempts, made, t0));
    expect(waits).toEqual([30_000, 2 * minute, 10 * minute, 30 * minute, hour, 2 * hour, 4 * hour, 8 * hour, 8 * hour, 8 * hour]);
  });

  it("the attempts along the schedule stay within a day, the one past it gives up", () => {
    let now = t0;
    const tries: number[] = [];
    for (let attempts = 0; ; attempts++) {
      const wait = retryDelay(attempts, made, now);
      if (wait === null) break;
      now += wait;
      tries.push(now - t0);
    }
    // 30 s + 2 m + 10 m + 30 m + 1 h + 2 h + 4 h + 8 h + 8 h = 23 h 42 m 30 s; 8 h more would end past 24 h
    expect(tries).toHaveLength(9);
    expect(tries.at(-1)).toBe(30_000 + 2 * minute + 10 * minute + 30 * minute + hour + 2 * hour + 4 * hour + 8 * hour + 8 * hour);
    expect(tries.at(-1)! + 8 * hour).toBeGreaterThanOrEqual(GIVE_UP_AFTER_MS);
  });

  it("gives up when the wait would end a day or more after the delivery was made", () => {
    expect(retryDelay(0, made, t0 + GIVE_UP_AFTER_MS - 30_001)).toBe(30_000);
    expect(retryDelay(0, made, t0 + GIVE_UP_AFTER_MS - 30_000)).toBeNull();
    expect(retryDelay(1, new Date(t0 - GIVE_UP_AFTER_MS), t0)).toBeNull();
  });
});
