// An unpaid order's pay link: `/pay/<token>` opens a hosted page where anyone holding the link pays that one order
// by card, without signing in to the portal. The token is stateless: the organization, the order and an expiry,
// signed with an HMAC under a key derived from the server secret (nothing is stored, so nothing leaks from a dump);
// it pays only its order and nothing else, and a new one is made each time a link is shown.
import { timingSafeEqual } from "node:crypto";
import { storedLookup } from "../seal.js";

/** How long a link stays valid after it is made (an email is often read days later). */
export const PAY_LINK_DAYS = 30;
const DAY_MS = 86_400_000;

const hex = (uuid: string) => uuid.replace(/-/g, "").toLowerCase();
const uuidOf = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;

export interface PayLinkScope {
  organizationId: string;
  orderId: string;
  expiresAt: Date;
}

/**
 * The token of the order's link made at `now`: it expires PAY_LINK_DAYS later, at the end of that UTC day, so the
 * links shown on one day are the same link.
 */
export function payLinkToken(organizationId: string, orderId: string, now: Date): string {
  const expires = Math.ceil((now.getTime() + PAY_LINK_DAYS * DAY_MS) / DAY_MS) * (DAY_MS / 1000);
  const body = Buffer.concat([Buffer.from(hex(organizationId), "hex"), Buffer.from(hex(orderId), "hex"), uint32(expires)]).toString("base64url");
  return `${body}.${storedLookup("pay-link", body)}`;
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** What a token pays, or null when it is malformed, signed with another secret, or expired at `now`. */
export function readPayLinkToken(token: string, now: Date): PayLinkScope | null {
  const [body = "", mac = "", ...rest] = token.split(".");
  if (rest.length > 0 || body.length !== 48 || mac.length === 0 || mac.length > 64) return null;
  const expected = Buffer.from(storedLookup("pay-link", body));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const raw = Buffer.from(body, "base64url");
  if (raw.length !== 36) return null;
  const expiresAt = new Date(raw.readUInt32BE(32) * 1000);
  if (expiresAt.getTime() <= now.getTime()) return null;
  return { organizationId: uuidOf(raw.subarray(0, 16).toString("hex")), orderId: uuidOf(raw.subarray(16, 32).toString("hex")), expiresAt };
}

/** The hosted page that pays the order. */
export const payLinkUrl = (baseURL: string, organizationId: string, orderId: string, now: Date) =>
  `${baseURL.replace(/\/+$/, "")}/pay/${payLinkToken(organizationId, orderId, now)}`;

/** Whether an order is owed and payable by its link: pending, with something to pay. */
export const payable = (o: { status: string; due_amount: number }) => o.status === "pending" && o.due_amount > 0;
