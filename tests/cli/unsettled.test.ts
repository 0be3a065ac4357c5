// A command whose work never settles must not pass for a success: with a socket that never answers and holds nothing
// open, the run's event loop empties before the command returns, and `till` exits 1 saying it stopped unfinished
// (Node alone would exit 0). A command that finishes is not touched by it.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempConfigDir, till } from "./till.js";

const STALLED = fileURLToPath(new URL("./stalled-socket.mjs", import.meta.url));

describe("a command that never settles", () => {
  it("exits 1 with a line saying it stopped unfinished, not 0", async () => {
    const env = { TILL_API_KEY: "till_test_unsettled", TILL_SERVER: "http://127.0.0.1:9" };
    const r = await till(["products", "list"], { configDir: tempConfigDir(), env, nodeArgs: ["--import", STALLED] });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("the command stopped before it finished");
    expect(r.stdout).toBe("");
  });

  it("a finished command exits as it says", async () => {
    const r = await till(["--version"], { configDir: tempConfigDir() });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toContain("stopped before it finished");
  });
});
