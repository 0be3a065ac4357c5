// The webhook receiver of the delivery benches: a seller's app that checks nothing and answers 200 "ok" once the
// body is read, on a free loopback port, counting what it received — in all and, when the bench names the
// processes that may connect, by the process whose socket each connection is (from /proc, Linux).
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { ownerOf, socketInode } from "./sockets.js";

export interface Receiver {
  url: string;
  /** Requests answered so far. */
  readonly hits: number;
  /** Requests answered so far by the process that sent them (a pid of `senders`, or 0 for any other). */
  hitsBy(pid: number): number;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1. `senders`: the pids of the processes expected to connect (on the same machine); each
 * connection is attributed to one of them when it opens (keep-alive: a sender opens few).
 */
export async function startReceiver(senders: number[] = []): Promise<Receiver> {
  let hits = 0;
  const byPid = new Map<number, number>();
  const senderOf = new WeakMap<Socket, number>();
  const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    req.resume();
    req.on("end", () => {
      hits += 1;
      const pid = senderOf.get(req.socket);
      if (pid !== undefined) byPid.set(pid, (byPid.get(pid) ?? 0) + 1);
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
  });
  if (senders.length > 0) {
    server.on("connection", (socket) => {
      const inode = socketInode(socket.remotePort ?? 0, (server.address() as AddressInfo).port);
      senderOf.set(socket, inode === undefined ? 0 : ownerOf(inode, senders));
    });
  }
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    get hits() {
      return hits;
    },
    hitsBy: (pid) => byPid.get(pid) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
