// The server's last net (server/process-guard.ts): an unhandled rejection is logged and the process goes on; an
// uncaught exception is logged as fatal, the server is stopped, and the process exits with code 1.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const run = (failure: string) => execa(process.execPath, ["--import", "tsx", "tests/helpers/process-guard-child.ts", failure], { cwd: ROOT, reject: false });

describe("the process's last net", () => {
  it("logs an unhandled rejection and keeps running", { timeout: 60_000 }, async () => {
    const { exitCode, stdout } = await run("rejection");
    expect(stdout).toContain('"level":"error","msg":"unhandled promise rejection (logged; the server keeps serving)","err":"Error: nobody awaited this"');
    expect(stdout).toContain("alive");
    expect(exitCode).toBe(0);
  });

  it("logs an uncaught exception as fatal, stops the server and exits 1", { timeout: 60_000 }, async () => {
    const { exitCode, stdout } = await run("exception");
    expect(stdout).toContain('"level":"fatal","msg":"uncaught exception: stopping the server (exit code 1)","err":"Error: thrown from a listener"');
    expect(stdout).toContain("stopping");
    expect(exitCode).toBe(1);
  });
});
