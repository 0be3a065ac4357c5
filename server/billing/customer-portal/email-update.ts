// The customer portal's email update (Polar's customerPortal.customers.requestEmailUpdate / checkEmailUpdate /
// verifyEmailUpdate): the customer asks for a new address; a link with a token is mailed to that address (a
// customer email row written in the request's transaction, sent by the worker, the token dropped from the row
// once sent); following it checks the token (public) and verifies it (public), which changes the customer's
// email, marks it verified and answers a new customer session.
//
// The token is signed, not stored: an HMAC under the server secret of (organization, customer, current email,
// new email, expiry). It works once because it names the email it replaces: once changed, it no longer matches.
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { Db } from "../../db/client.js";
import { requestEmail } from "../customer-emails/service.js";
import { changeVerifiedEmail, findCustomerRow } from "../customers/service.js";
import { invalid } from "../errors.js";
import { createCustomerSession, type PortalCaller } from "../customer-sessions/service.js";

/** How long a mailed link works. */
export const EMAIL_UPDATE_TTL_MS = 60 * 60_000;

export const EmailUpdateRequestInput = z.object({ email: z.email({ message: "value is not a valid email address" }).max(320) });
export const EmailUpdateVerifyInput = z.object({ token: z.string().min(1).max(2048) });
export const EmailUpdateCheckQuery = z.object({ token: z.string().min(1).max(2048) });

interface Claim {
  /** organization, customer, the email it replaces, the new email, expiry (ms since the epoch) */
  o: string;
  c: string;
  f: string;
  t: string;
  e: number;
}
const ClaimShape = z.object({ o: z.string(), c: z.string(), f: z.string(), t: z.string(), e: z.number() });

const mac = (secret: string, payload: string) => createHmac("sha256", secret).update(`customer-email-update.${payload}`).digest();

function sign(secret: string, claim: Claim): string {
  const payload = Buffer.from(JSON.stringify(claim)).toString("base64url");
  return `${payload}.${mac(secret, payload).toString("base64url")}`;
}

/** The token's claim when its signature holds and it has not expired; else null. */
function read(secret: string, token: string, now: number): Claim | null {
  const [payload, signature, ...rest] = token.split(".");
  if (!payload || !signature || rest.length > 0) return null;
  const given = Buffer.from(signature, "base64url");
  const expected = mac(secret, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  const claim = ClaimShape.safeParse(parsed);
  return claim.success && claim.data.e > now ? claim.data : null;
}

export interface EmailUpdateDeps {
  db: Db;
  secret: string;
  baseURL: string;
}

/** Mails the link to the new address (the request's answer is the same whether or not that address is free). */
export async function requestEmailUpdate(deps: EmailUpdateDeps, p: PortalCaller, email: string): Promise<void> {
  const to = email.trim().toLowerCase();
  if (to === p.customer.email.toLowerCase()) throw invalid(["body", "email"], "This is already your email address.");
  const expiresAt = new Date(Date.now() + EMAIL_UPDATE_TTL_MS);
  const token = sign(deps.secret, { o: p.organizationId, c: p.customer.id, f: p.customer.email, t: to, e: expiresAt.getTime() });
  await deps.db.transaction(async (tx) => {
    await requestEmail(tx, {
      organizationId: p.organizationId,
      causeId: randomUUID(),
      type: "email_update",
      recipient: to,
      data: { email: to, token, expires_at: expiresAt.toISOString() },
      customerId: p.customer.id,
    });
  });
}

const badToken = (where: "query" | "body") => invalid([where, "token"], "This email update link is invalid, was used already or has expired.", "value_error", "email_link_invalid");

/** The claim of a token that can still be used: signed, live, and its customer's email still the one it replaces. */
async function liveClaim(deps: EmailUpdateDeps, token: string, where: "query" | "body"): Promise<Claim> {
  const claim = read(deps.secret, token, Date.now());
  if (!claim) throw badToken(where);
  const row = await findCustomerRow(deps.db, claim.o, { id: claim.c }).catch(() => null);
  if (!row || row.deletedAt !== null || row.email !== claim.f) throw badToken(where);
  return claim;
}

/** 204 when the link can be used (the portal page asks before it confirms); else the 422. */
export async function checkEmailUpdate(deps: EmailUpdateDeps, token: string): Promise<void> {
  await liveClaim(deps, token, "query");
}

/** Changes the email (verified) and answers a new customer session's token for the portal. */
export async function verifyEmailUpdate(deps: EmailUpdateDeps, token: string): Promise<{ token: string }> {
  const claim = await liveClaim(deps, token, "body");
  const changed = await changeVerifiedEmail(deps.db, claim.o, claim.c, { from: claim.f, to: claim.t }, ["body", "token"]);
  if (!changed) throw badToken("body");
  const session = await createCustomerSession(deps.db, claim.o, { customer_id: claim.c }, deps.baseURL);
  return { token: session.token };
}
