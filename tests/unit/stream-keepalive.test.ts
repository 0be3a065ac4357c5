// TILL_STREAM_KEEPALIVE (docs/self-hosting.md): how often an open event stream carries a keep-alive, named to the
// client in the `till-keep-alive` header so `till listen` knows when a silent stream is dead (three missed).
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";

describe("TILL_STREAM_KEEPALIVE", () => {
  it("is 15 s by default, takes 1s to 5m, and refuses anything else by name", () => {
    expect(loadConfig({}).streamKeepAliveMs).toBe(15_000);
    expect(loadConfig({ TILL_STREAM_KEEPALIVE: "1s" }).streamKeepAliveMs).toBe(1_000);
    expect(loadConfig({ TILL_STREAM_KEEPALIVE: "5m" }).streamKeepAliveMs).toBe(300_000);
    for (const bad of ["0s", "6m", "1h", "15", "fast"]) {
      expect(() => loadConfig({ TILL_STREAM_KEEPALIVE: bad }), bad).toThrow(/TILL_STREAM_KEEPALIVE/);
    }
  });
});
