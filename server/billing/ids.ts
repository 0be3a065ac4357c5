// Name-based UUIDs (RFC 4122 version 5, SHA-1) for rows till derives instead of storing (a subscription's
// meters, a grant's downloadable files): the same inputs always give the same id.
import { createHash } from "node:crypto";

export function uuidV5(namespace: string, name: string): string {
  const b = createHash("sha1").update(Buffer.from(namespace.replaceAll("-", ""), "hex")).update(name.toLowerCase()).digest().subarray(0, 16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x50;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
