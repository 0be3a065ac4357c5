// Customer sessions: the seller makes one for a customer (POST /v1/customer-sessions/, or the confirm does at
// the end of a checkout) and the customer's browser presents its token to /v1/customer-portal. The token is
// random, shown once and kept as its SHA-256; a session lasts an hour.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { and, count, eq, gt, gte, isNull, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { billingOrganization, customer, customerSession, customerSessionCode, organization } from "../../db/schema/index.js";
import type { Mailer } from "../../mail/mailer.js";
import { renderPortalCodeEmail } from "../../mail/render.js";
import { mailSpeaker } from "../../mail/i18n/index.js";
import { resolveLocale } from "../../../shared/i18n/locales.js";
import { findCustomerRow, type CustomerRef } from "../customers/service.js";
import { findMember, memberByEmail, memberOfCustomer, ownerOf } from "../members/service.js";
import type { MemberRow } from "../members/wire.js";
import { toCustomerWire, type CustomerRow } from "../customers/wire.js";
import { emailInput, isUuid } from "../http.js";
import { ApiError, invalid, notFound } from "../errors.js";
import { invalidSessionCode } from "./errors.js";

export type CustomerSessionRow = typeof customerSession.$inferSelect;

/** How long a customer session lasts (Polar: one hour). */
export const CUSTOMER_SESSION_TTL_MS = 60 * 60 * 1000;
const TOKEN_PREFIX = "till_cst_";

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** A new session's row and its token (the only time the token exists in clear). */
export function newCustomerSession(organizationId: string, customerId: string, returnUrl: string | null, now: Date, memberId: string | null = null) {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row: CustomerSessionRow = {
    id: randomUUID(),
    organizationId,
    customerId,
    memberId,
    tokenHash: hashToken(token),
    expiresAt: new Date(now.getTime() + CUSTOMER_SESSION_TTL_MS),
    returnUrl,
    createdAt: now,
    modifiedAt: null,
  };
  return { row, token };
}

/** Opens a session for the customer (a team's: for `memberId`) now; answers its token. */
export async function startCustomerSession(db: Queryable, organizationId: string, customerId: string, now: Date, memberId: string | null = null): Promise<string> {
  const { row, token } = newCustomerSession(organizationId, customerId, null, now, memberId);
  await db.insert(customerSession).values(row);
  return token;
}

/** Where the customer goes with the token: the web app's portal page. */
export const portalUrl = (baseURL: string, token: string) => `${baseURL}/portal?customer_session_token=${encodeURIComponent(token)}`;

const returnUrl = z
  .url({ protocol: /^https?$/, message: "Input should be a valid URL" })
  .max(2048)
  .nullish();

/**
 * CustomerSessionCustomerIDCreate | CustomerSessionCustomerExternalIDCreate (a team's session is a member's: the one
 * named, else the owner).
 */
export const CustomerSessionCreateInput = z
  .object({
    customer_id: z.string().refine(isUuid, { message: "Input should be a valid UUID" }).optional(),
    external_customer_id: z.string().min(1).max(256).optional(),
    return_url: returnUrl,
    member_id: z.string().refine(isUuid, { message: "Input should be a valid UUID" }).nullish(),
    external_member_id: z.string().min(1).max(256).nullish(),
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
  const member = await sessionMember(db, c, input);
  const { row, token } = newCustomerSession(organizationId, c.id, input.return_url ?? null, new Date(), member?.id ?? null);
  await db.insert(customerSession).values(row);
  return toCustomerSessionWire(row, token, c, baseURL);
}

/** The member a team customer's session is for: the one named (422 when not of this customer), else the owner. */
async function sessionMember(db: Queryable, c: CustomerRow, input: z.output<typeof CustomerSessionCreateInput>): Promise<MemberRow | null> {
  const named = input.member_id ? { id: input.member_id.toLowerCase() } : input.external_member_id ? { externalId: input.external_member_id } : null;
  if (!named) return c.type === "team" ? ((await ownerOf(db, c.organizationId, c.id)) ?? null) : null;
  const m = await memberOfCustomer(db, c.organizationId, c.id, named);
  if (!m) throw invalid(["body", input.member_id ? "member_id" : "external_member_id"], "Member does not exist.");
  return m;
}

export interface PortalCaller {
  organizationId: string;
  customer: CustomerRow;
  session: CustomerSessionRow;
  /** The team member signed in (null: an individual customer, or a team session made before members). */
  member: MemberRow | null;
}

/** The live session and (not deleted) customer a bearer token names, or null. */
export async function resolvePortalToken(db: Queryable, token: string): Promise<PortalCaller | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const [row] = await db
    .select({ session: customerSession, customer })
    .from(customerSession)
    .innerJoin(customer, eq(customer.id, customerSession.customerId))
    .where(and(eq(customerSession.tokenHash, hashToken(token)), gt(customerSession.expiresAt, new Date()), isNull(customer.deletedAt)));
  if (!row) return null;
  const member = row.session.memberId ? await findMember(db, row.session.organizationId, row.session.memberId) : undefined;
  // a member removed from the team: their session ends with it (the foreign key deletes it too)
  if (row.session.memberId && !member) return null;
  return { organizationId: row.session.organizationId, customer: row.customer, session: row.session, member: member ?? null };
}

export const noSuchCustomer = () => notFound("Customer not found");

// ---- by email: a one-time code ------------------------------------------------------------------

/** How long a mailed code works, and how many a customer may ask for in that time. */
export const SESSION_CODE_TTL_MS = 30 * 60 * 1000;
const MAX_CODES_PER_WINDOW = 5;
/** Eight characters of A–Z and 2–9 without look-alikes (O/0, I/1): about 2^39 codes. */
const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 8;
/**
 * The first three characters select the code a guess is aimed at: a wrong code that begins like a live one is
 * a wrong try at it, and a code takes five, so guessing one (25 bits after its selector) succeeds with odds of
 * 5 in 2^25 however many addresses try. A guess the portal cannot attribute still counts against its address.
 */
const SELECTOR_LENGTH = 3;
export const MAX_CODE_ATTEMPTS = 5;

export const CustomerSessionCodeRequestInput = z.object({
  email: emailInput,
  organization_id: z.string().refine(isUuid, { message: "Input should be a valid UUID" }),
});

export const CustomerSessionCodeAuthenticateInput = z.object({ code: z.string().trim().min(1).max(64) });

const normalizeCode = (code: string) => code.replace(/[\s-]/g, "").toUpperCase();

function newCode(): string {
  const bytes = randomBytes(CODE_LENGTH);
  return Array.from(bytes, (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join("");
}

/**
 * Mails the customer of that email (in that organization) a code that opens their portal, at most five live
 * codes at a time. The answer is the same whether or not such a customer exists (or was mailed), so the
 * endpoint tells nobody who bought what.
 */
export async function requestSessionCode(db: Db, mailer: Mailer, baseURL: string, input: z.output<typeof CustomerSessionCodeRequestInput>): Promise<void> {
  const organizationId = input.organization_id.toLowerCase();
  const [found] = await db
    .select({ customer, organization: { name: organization.name, slug: organization.slug, logo: organization.logo }, details: billingOrganization.details })
    .from(customer)
    .innerJoin(organization, eq(organization.id, customer.organizationId))
    .leftJoin(billingOrganization, eq(billingOrganization.organizationId, customer.organizationId))
    .where(and(eq(customer.organizationId, organizationId), eq(customer.email, input.email.toLowerCase()), isNull(customer.deletedAt)))
    .limit(1);
  // not a customer's email: a team member's signs them into their team's portal
  const member = found ? undefined : await memberByEmail(db, organizationId, input.email);
  const team = member ? await teamOf(db, organizationId, member.customerId) : undefined;
  const to = found ?? team;
  if (!to) return;
  const memberId = member?.id ?? null;
  const recipient = member?.email ?? to.customer.email;
  const now = new Date();
  const code = newCode();
  const sent = await db.transaction(async (tx) => {
    // one customer at a time: the count and the insert must not interleave with another request's
    await tx.select({ id: customer.id }).from(customer).where(eq(customer.id, to.customer.id)).for("update");
    const [recent] = await tx
      .select({ n: count() })
      .from(customerSessionCode)
      .where(and(eq(customerSessionCode.customerId, to.customer.id), gt(customerSessionCode.expiresAt, now)));
    // past the limit nothing more is mailed (an error would tell that the customer exists)
    if ((recent?.n ?? 0) >= MAX_CODES_PER_WINDOW) return false;
    await tx.insert(customerSessionCode).values({
      organizationId,
      customerId: to.customer.id,
      memberId,
      codeHash: hashToken(code),
      selector: code.slice(0, SELECTOR_LENGTH),
      expiresAt: new Date(now.getTime() + SESSION_CODE_TTL_MS),
      createdAt: now,
    });
    return true;
  });
  if (!sent) return;
  const url = `${baseURL}/portal?organization=${encodeURIComponent(to.organization.slug)}`;
  // from the seller, as the receipts are (their name, the Layout's footer)
  // in the customer's language: their stored locale, else the organization's default
  const defaultLocale = to.details?.default_locale;
  const locale = resolveLocale({ customer: to.customer.locale, organization: typeof defaultLocale === "string" ? defaultLocale : null });
  const ctx = { sender: { name: to.organization.name, logo: to.organization.logo }, portalUrl: url, baseUrl: baseURL, i18n: mailSpeaker(locale) };
  const rendered = await renderPortalCodeEmail(code, ctx);
  await mailer.send({
    to: recipient,
    fromName: to.organization.name,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    links: [url],
    devNote: `(portal code ${code})`,
  });
}

/** The live customer of a member, with its organization's name for the code's email. */
async function teamOf(db: Queryable, organizationId: string, customerId: string) {
  const [row] = await db
    .select({ customer, organization: { name: organization.name, slug: organization.slug, logo: organization.logo }, details: billingOrganization.details })
    .from(customer)
    .innerJoin(organization, eq(organization.id, customer.organizationId))
    .leftJoin(billingOrganization, eq(billingOrganization.organizationId, customer.organizationId))
    .where(and(eq(customer.organizationId, organizationId), eq(customer.id, customerId), isNull(customer.deletedAt)));
  return row;
}


/**
 * Exchanges a live code for a customer session (the code is spent; the email counts as verified). A wrong code
 * is a wrong try at each live code with its selector; a code at MAX_CODE_ATTEMPTS tries is deleted.
 */
export async function authenticateSessionCode(db: Db, code: string): Promise<{ token: string }> {
  const normalized = normalizeCode(code);
  if (normalized.length !== CODE_LENGTH) throw invalidSessionCode();
  const session = await db.transaction(async (tx) => {
    const [spent] = await tx
      .delete(customerSessionCode)
      .where(
        and(
          eq(customerSessionCode.codeHash, hashToken(normalized)),
          gt(customerSessionCode.expiresAt, new Date()),
          lt(customerSessionCode.failedAttempts, MAX_CODE_ATTEMPTS),
        ),
      )
      .returning();
    if (!spent) return null;
    const liveCustomer = and(eq(customer.id, spent.customerId), isNull(customer.deletedAt));
    // a member's code verifies the member's address, not the customer's
    const [c] = spent.memberId
      ? await tx.select({ id: customer.id }).from(customer).where(liveCustomer)
      : await tx.update(customer).set({ emailVerified: true }).where(liveCustomer).returning({ id: customer.id });
    if (!c) return null;
    const { row, token } = newCustomerSession(spent.organizationId, spent.customerId, null, new Date(), spent.memberId);
    await tx.insert(customerSession).values(row);
    return { token };
  });
  if (session) return session;
  await countWrongTry(db, normalized.slice(0, SELECTOR_LENGTH));
  throw invalidSessionCode();
}

async function countWrongTry(db: Db, selector: string): Promise<void> {
  const aimedAt = and(eq(customerSessionCode.selector, selector), gt(customerSessionCode.expiresAt, new Date()));
  await db
    .update(customerSessionCode)
    .set({ failedAttempts: sql`${customerSessionCode.failedAttempts} + 1` })
    .where(aimedAt);
  await db.delete(customerSessionCode).where(and(eq(customerSessionCode.selector, selector), gte(customerSessionCode.failedAttempts, MAX_CODE_ATTEMPTS)));
}
