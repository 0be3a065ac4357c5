// Customer sessions: the seller makes one for a customer (POST /v1/customer-sessions/, or the confirm does at
// the end of a checkout) and the customer's browser presents its token to /v1/customer-portal. The token is
// random, shown once and kept as its SHA-256; a session lasts an hour.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { and, eq, gt, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { customer, customerSession } from "../../db/schema/index.js";
import { findCustomerRow, type CustomerRef } from "../customers/service.js";
import { toCustomerWire, type CustomerRow } from "../customers/wire.js";
import { ApiError, invalid, isUuid, notFound } from "../http.js";

export type CustomerSessionRow = typeof customerSession.$inferSelect;

/** How long a customer session lasts (Polar: one hour). */
export const CUSTOMER_SESSION_TTL_MS = 60 * 60 * 1000;
const TOKEN_PREFIX = "till_cst_";

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** A new session's row and its token (the only time the token exists in clear). */
export function newCustomerSession(organizationId: string, customerId: string, returnUrl: string | null, now: Date) {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row: CustomerSessionRow = {
    id: randomUUID(),
    organizationId,
    customerId,
    tokenHash: hashToken(token),
    expiresAt: new Date(now.getTime() + CUSTOMER_SESSION_TTL_MS),
    returnUrl,
    createdAt: now,
    modifiedAt: null,
  };
  return { row, token };
}

/** Where the customer goes with the token: the web app's portal page. */
export const portalUrl = (baseURL: string, token: string) => `${baseURL}/portal?customer_session_token=${encodeURIComponent(token)}`;

const returnUrl = z
  .url({ protocol: /^https?$/, message: "Input should be a valid URL" })
  .max(2048)
  .nullish();

/** CustomerSessionCustomerIDCreate | CustomerSessionCustomerExternalIDCreate (member ids are accepted and ignored: no team customers). */
export const CustomerSessionCreateInput = z
  .object({
    customer_id: z.string().refine(isUuid, { message: "Input should be a valid UUID" }).optional(),
    external_customer_id: z.string().min(1).max(256).optional(),
    return_url: returnUrl,
    member_id: z.string().nullish(),
    external_member_id: z.string().nullish(),
  })
  .superRefine((v, ctx) => {
    if ((v.customer_id === undefined) === (v.external_customer_id === undefined)) {
      ctx.addIssue({ code: "custom", path: ["customer_id"], message: "Give either customer_id or external_customer_id" });
    }
  });

export function toCustomerSessionWire(row: CustomerSessionRow, token: string, c: CustomerRow, baseURL: string) {
  return {
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    id: row.id,
    token,
    expires_at: row.expiresAt.toISOString(),
    return_url: row.returnUrl,
    customer_portal_url: portalUrl(baseURL, token),
    customer_id: row.customerId,
    customer: toCustomerWire(c),
  };
}

export async function createCustomerSession(db: Db, organizationId: string, input: z.output<typeof CustomerSessionCreateInput>, baseURL: string) {
  const ref: CustomerRef = input.customer_id ? { id: input.customer_id.toLowerCase() } : { externalId: input.external_customer_id ?? "" };
  // a missing customer is the body's fault here, as Polar answers
  const missing = () => invalid(["body", input.customer_id ? "customer_id" : "external_customer_id"], "Customer does not exist.");
  const c = await findCustomerRow(db, organizationId, ref).catch((err: unknown) => {
    throw err instanceof ApiError && err.status === 404 ? missing() : err;
  });
  if (c.deletedAt) throw missing();
  const { row, token } = newCustomerSession(organizationId, c.id, input.return_url ?? null, new Date());
  await db.insert(customerSession).values(row);
  return toCustomerSessionWire(row, token, c, baseURL);
}

export interface PortalCaller {
  organizationId: string;
  customer: CustomerRow;
  session: CustomerSessionRow;
}

/** The live session and (not deleted) customer a bearer token names, or null. */
export async function resolvePortalToken(db: Queryable, token: string): Promise<PortalCaller | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const [row] = await db
    .select({ session: customerSession, customer })
    .from(customerSession)
    .innerJoin(customer, eq(customer.id, customerSession.customerId))
    .where(and(eq(customerSession.tokenHash, hashToken(token)), gt(customerSession.expiresAt, new Date()), isNull(customer.deletedAt)));
  return row ? { organizationId: row.session.organizationId, customer: row.customer, session: row.session } : null;
}

export const noSuchCustomer = () => notFound("Customer not found");
