// Where webhooks may go. A seller's URL is fetched by the server, so a URL naming (or resolving to) a private,
// loopback or link-local address would let a seller probe till's own network: refused unless
// TILL_WEBHOOKS_ALLOW_PRIVATE is on. Checked when an endpoint is saved and again on every delivery (DNS can change).
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/** What a log line or a mail subject may say of an endpoint: its origin only (paths and queries may carry tokens). */
export function originOf(url: string): string {
  try {
    const { origin } = new URL(url);
    return origin === "null" ? "(unparsable url)" : origin;
  } catch {
    return "(unparsable url)";
  }
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.88.99.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15],
  ["198.51.100.0", 24], ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128], ["::1", 128], ["64:ff9b:1::", 48], ["100::", 64], ["2001:db8::", 32], ["fc00::", 7], ["fe80::", 10],
  ["fec0::", 10], ["ff00::", 8],
] as const) blocked.addSubnet(net, prefix, "ipv6");

/** The 8 groups of an IPv6 address (a trailing dotted IPv4 counts as two). */
function ipv6Groups(ip: string): number[] {
  let text = ip.split("%")[0] ?? ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (s: string) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const ipv4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/** Private, loopback, link-local, reserved, documentation or multicast (IPv4 carried in IPv6 counts as that IPv4). */
export function isPrivateAddress(ip: string): boolean {
  const family = isIP(ip.split("%")[0] ?? ip);
  if (family === 4) return blocked.check(ip, "ipv4");
  if (family !== 6) return true;
  const g = ipv6Groups(ip);
  // IPv4-mapped/-compatible (::ffff:a.b.c.d, ::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) embed an IPv4
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0) && (g[6] !== 0 || g[7]! > 1)) {
    return blocked.check(ipv4Of(g[6]!, g[7]!), "ipv4");
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return blocked.check(ipv4Of(g[6]!, g[7]!), "ipv4");
  if (g[0] === 0x2002) return blocked.check(ipv4Of(g[1]!, g[2]!), "ipv4");
  return blocked.check(ip.split("%")[0] ?? ip, "ipv6");
}

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1");

function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) {
    const g = ipv6Groups(h);
    return g.slice(0, 7).every((x) => x === 0) && g[7] === 1;
  }
  return false;
}

export const MAX_URL_LENGTH = 2048;

/** Why a webhook URL is not acceptable by its shape alone, or null. */
export function urlShapeError(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Input should be a valid URL";
  }
  if (raw.length > MAX_URL_LENGTH) return `URL should have at most ${MAX_URL_LENGTH} characters`;
  if (url.username || url.password) return "The URL must not contain credentials.";
  if (url.protocol === "https:") return hostOf(url) ? null : "Input should be a valid URL";
  if (url.protocol === "http:" && allowPrivate && isLoopbackHost(hostOf(url))) return null;
  if (url.protocol === "http:") {
    return allowPrivate
      ? "The URL must use https (http is accepted for loopback addresses only)."
      : "The URL must use https.";
  }
  return "URL scheme should be 'https'";
}

export const PRIVATE_TARGET = "The URL points to a private or loopback address; webhooks are not sent there.";

/**
 * Why a webhook URL may not be used, or null: its shape, then (unless private targets are allowed) the addresses
 * it names or resolves to. A name that does not resolve now is accepted: delivery checks again.
 */
export async function targetError(raw: string, allowPrivate: boolean): Promise<string | null> {
  const shape = urlShapeError(raw, allowPrivate);
  if (shape || allowPrivate) return shape;
  const host = hostOf(new URL(raw));
  if (isIP(host)) return isPrivateAddress(host) ? PRIVATE_TARGET : null;
  if (isLoopbackHost(host)) return PRIVATE_TARGET;
  const addresses = await new Promise<LookupAddress[]>((resolve) =>
    dnsLookup(host, { all: true }, (err, list) => resolve(err ? [] : list)),
  );
  return addresses.some((a) => isPrivateAddress(a.address)) ? PRIVATE_TARGET : null;
}

export class PrivateTargetError extends Error {
  readonly code = "EPRIVATETARGET";
  constructor() {
    super(PRIVATE_TARGET);
  }
}

/**
 * A `lookup` for http.request that refuses names resolving to private addresses: the check and the connection use
 * the same answer, so a name cannot pass the check and then rebind to an internal address.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true } as LookupAllOptions, (err, addresses) => {
    if (err) return callback(err, "", 0);
    if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))) {
      return callback(new PrivateTargetError(), "", 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    return callback(null, first.address, first.family);
  });
};
