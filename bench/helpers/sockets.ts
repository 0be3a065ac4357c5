// Which local process holds a loopback TCP connection, from /proc (Linux): the webhook receiver tells the sending
// process of each POST by it, bench:capacity the till process of each PostgreSQL connection.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** The inode of the IPv4 loopback socket from `localPort` to `remotePort` (/proc/net/tcp), or undefined. */
export function socketInode(localPort: number, remotePort: number): string | undefined {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    // f[1] local address, f[2] remote address (hex ip:port), f[9] inode
    if (f[1]?.endsWith(`:${hex(localPort)}`) && f[2]?.endsWith(`:${hex(remotePort)}`)) return f[9];
  }
  return undefined;
}

/** Which of `pids` holds the socket with this inode (its /proc/<pid>/fd), or 0. */
export function ownerOf(inode: string, pids: number[]): number {
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: "utf8" }) === `socket:[${inode}]`) return pid;
      }
    } catch {
      // an fd closed while read, or a process gone
    }
  }
  return 0;
}
