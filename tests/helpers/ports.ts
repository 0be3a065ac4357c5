// Loopback ports for servers that must know their port before they listen (their base URL goes into their
// configuration). A port the kernel hands out (listen(0), or the source port of any outgoing connection: a
// database client, a webhook delivery) comes from ip_local_port_range. A port found that way, let go and listened
// on seconds later can be taken in between by another test file's connection: a CI run failed on
// `listen EADDRINUSE` so. These ports are picked below that range, where the kernel never assigns one, at
// random, and a probe holds each until its server is about to listen.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";

const LOWEST = 20_000;

/** The first port of the kernel's ephemeral range (32768 on Linux by default). */
function ephemeralStart(): number {
  try {
    const first = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
        .trim()
        .split(/\s+/)[0],
    );
    if (Number.isInteger(first) && first > LOWEST + 1_000) return first;
  } catch {
    // not Linux: its default
  }
  return 32_768;
}

const HIGHEST = ephemeralStart() - 1;

export interface ReservedPort {
  port: number;
  /** Lets the port go; call it just before the server listens on it. */
  release(): Promise<void>;
}

function bind(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(null));
    probe.listen({ port, host: "127.0.0.1", exclusive: true }, () =>
      resolve(probe),
    );
  });
}

/** A free loopback port outside the ephemeral range, held until `release()`. */
export async function reservePort(): Promise<ReservedPort> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1));
    const probe = await bind(port);
    if (!probe) continue;
    return {
      port,
      release: () => new Promise<void>((r) => probe.close(() => r())),
    };
  }
  throw new Error(
    `no free loopback port in ${LOWEST}–${HIGHEST} after 200 tries`,
  );
}

/** A free loopback port outside the ephemeral range, let go at once: for a server in another process. */
export async function freePort(): Promise<number> {
  const { port, release } = await reservePort();
  await release();
  return port;
}
