// withoutCallSite (server/payments/stripe/client.ts): the `stripe` client's request is made with no stack frames
// captured, and the process's stack trace limit is back as it was afterwards, whether the call returned or threw.
import { describe, expect, it } from "vitest";
import { withoutCallSite } from "../../server/payments/stripe/client.js";

describe("withoutCallSite", () => {
  it("captures no frames during the call and restores the limit after it", async () => {
    const before = Error.stackTraceLimit;
    const stack = await withoutCallSite(() => Promise.resolve(new Error("inside").stack ?? ""));
    expect(stack.split("\n")).toHaveLength(1);
    expect(Error.stackTraceLimit).toBe(before);
    expect((new Error("after").stack ?? "").split("\n").length).toBeGreaterThan(1);
  });

  it("restores the limit when the call throws", () => {
    const before = Error.stackTraceLimit;
    expect(() =>
      withoutCallSite(() => {
        throw new TypeError("bad parameters");
      }),
    ).toThrow("bad parameters");
    expect(Error.stackTraceLimit).toBe(before);
  });
});
