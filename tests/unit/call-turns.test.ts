// db/call-turns.ts: at most `turns` holders at once, the others served first come first served, a wait bounded
// (CallTurnsBusy, the work not run), a turn given back whether the work succeeded or threw.
import { describe, expect, it } from "vitest";
import { CallTurns, CallTurnsBusy, withCallTurn } from "../../server/db/call-turns.js";

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};

describe("CallTurns", () => {
  it("lets `turns` run at once and the others in the order they came", async () => {
    const turns = new CallTurns(2, 5_000);
    const order: string[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const runs = gates.map((g, i) =>
      turns.run(async () => {
        order.push(`start ${i}`);
        await g.opened;
        order.push(`end ${i}`);
        return i;
      }),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(["start 0", "start 1"]);
    expect(turns.state).toEqual({ held: 2, waiting: 2 });
    gates[1]!.open();
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(["start 0", "start 1", "end 1", "start 2"]);
    for (const g of gates) g.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(order.indexOf("start 3")).toBeGreaterThan(order.indexOf("start 2"));
    expect(turns.state).toEqual({ held: 0, waiting: 0 });
  });

  it("refuses with CallTurnsBusy after the wait, without running the work; the next waiter still gets its turn", async () => {
    const turns = new CallTurns(1, 50);
    const first = gate();
    const holding = turns.run(() => first.opened);
    let ran = false;
    await expect(
      turns.run(async () => {
        ran = true;
      }),
    ).rejects.toBeInstanceOf(CallTurnsBusy);
    expect(ran).toBe(false);
    expect(turns.state).toEqual({ held: 1, waiting: 0 });
    const next = turns.run(async () => "next");
    first.open();
    await holding;
    expect(await next).toBe("next");
    expect(turns.state).toEqual({ held: 0, waiting: 0 });
  });

  it("takes a turn without waiting only when one is free and no one waits for it (the early INSERT's way)", async () => {
    const turns = new CallTurns(2, 5_000);
    expect(turns.tryTake()).toBe(true);
    const first = gate();
    const holding = turns.run(() => first.opened);
    expect(turns.tryTake()).toBe(false);
    expect(turns.state).toEqual({ held: 2, waiting: 0 });
    const waiting = turns.run(async () => "waited");
    turns.give();
    // the freed turn went to the waiter, not to a taker that came later
    expect(turns.tryTake()).toBe(false);
    expect(await waiting).toBe("waited");
    expect(turns.tryTake()).toBe(true);
    first.open();
    await holding;
    turns.give();
    expect(turns.state).toEqual({ held: 0, waiting: 0 });
  });

  it("gives the turn back when the work throws", async () => {
    const turns = new CallTurns(1, 1_000);
    await expect(turns.run(() => Promise.reject(new Error("declined")))).rejects.toThrow("declined");
    expect(turns.state).toEqual({ held: 0, waiting: 0 });
    expect(await turns.run(async () => 1)).toBe(1);
  });

  it("runs at once for a handle without turns (PGlite)", async () => {
    expect(await withCallTurn({}, async () => "ran")).toBe("ran");
  });
});
