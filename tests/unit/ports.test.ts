// The test servers' ports: outside the kernel's ephemeral range (where another file's outgoing connection could
// take a port between its pick and its listen), and held until let go.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { reservePort } from "../helpers/ports.js";

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

describe("reservePort", () => {
  it("picks below the ephemeral range, holds the port until released", async () => {
    const [first] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    const reserved = await Promise.all(Array.from({ length: 20 }, () => reservePort()));
    for (const { port } of reserved) expect(port).toBeLessThan(first!);
    expect(new Set(reserved.map((r) => r.port)).size).toBe(20);
    expect(await listens(reserved[0]!.port)).toBe(false);
    await Promise.all(reserved.map((r) => r.release()));
    expect(await listens(reserved[0]!.port)).toBe(true);
  });
});
