// Customer emails (the organization's customer_email_settings): the worker subscribes to the outbox, turns each event
// that calls for an email into a row (in the fan-out's transaction, once per event, type and recipient), and
// sends due rows with retries. A row's id is its Message-ID, so a message sent again after a crash between
// the send and its record carries the same Message-ID and the receiver can drop the copy.
//
// Functions taking `Db` open their own transaction; `Queryable` joins the caller's.
import type { Db, Queryable } from "../../db/client.js";
import type { OutboxSubscriber } from "../../db/outbox.js";
import type { Mailer } from "../../mail/mailer.js";
import { renderCustomerEmail, type MailContext, type RenderedEmail } from "../../mail/render.js";
import { mailSpeaker } from "../../mail/i18n/index.js";
import { DEFAULT_LOCALE } from "../../../shared/i18n/locales.js";
import { DEFAULT_CUSTOMER_EMAIL_SETTINGS } from "../organizations/wire.js";
import { emailFor, type OutboxEventView } from "./plan.js";
import * as repo from "./repository.js";
import { previewData } from "./preview.js";
import { ALWAYS_SENT_EMAIL_TYPES, type CustomerEmailType } from "./types.js";
import { payLinkUrl } from "../pay-links.js";

/** Waits before the attempts after a failed one; then the email is given up. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 6 * 3600_000, 12 * 3600_000];

interface OutboxRowView extends OutboxEventView {
  id: string;
  organizationId: string;
}

function enabled(settings: Record<string, boolean> | undefined, type: CustomerEmailType): boolean {
  if (ALWAYS_SENT_EMAIL_TYPES.includes(type) || !(type in DEFAULT_CUSTOMER_EMAIL_SETTINGS)) return true;
  return settings?.[type] ?? DEFAULT_CUSTOMER_EMAIL_SETTINGS[type as keyof typeof DEFAULT_CUSTOMER_EMAIL_SETTINGS];
}

/**
 * An email a domain asks for directly, in its own transaction, when the outbox event cannot carry what the
 * message needs (a seat invitation's token must never reach a webhook). `causeId` names the cause (one email
 * per cause, type and recipient, like an outbox event's). The worker's mail loop sends it like the others.
 */
export async function requestEmail(
  tx: Queryable,
  email: {
    organizationId: string;
    causeId: string;
    type: CustomerEmailType;
    recipient: string;
    data: Record<string, unknown>;
    /** The customer it is written for (their language), when the recipient's address is not yet theirs. */
    customerId?: string;
  },
): Promise<boolean> {
  if (!enabled((await repo.emailSettingsOf(tx, [email.organizationId])).get(email.organizationId), email.type)) return false;
  const [locale] = await localesFor(tx, [{ organizationId: email.organizationId, customerId: email.customerId ?? null, recipient: email.recipient, type: email.type, data: email.data }]);
  const data = { ...email.data, [LOCALE_KEY]: locale };
  const n = await repo.insertEmails(tx, [{ organizationId: email.organizationId, outboxId: email.causeId, type: email.type, recipient: email.recipient, data }]);
  return n > 0;
}

/**
 * Where an email's language is kept: in its data, resolved once when it is recorded, so a message retried (or
 * sent after the customer changed their locale) renders exactly as the first attempt did.
 */
export const LOCALE_KEY = "mail_locale";

/**
 * The seller's own notices (disputes, a failed refund, a usage alert to the owners) stay English, as the seller side
 * does.
 */
const forSeller = (type: CustomerEmailType, data: Record<string, unknown>) => type.startsWith("dispute_") || type === "refund_failed" || data.audience === "seller";

const text = (v: unknown) => (typeof v === "string" ? v : null);

async function localesFor(tx: Queryable, emails: Array<repo.LocaleSubject & { type: CustomerEmailType; data: Record<string, unknown> }>): Promise<string[]> {
  const resolved = await repo.localesOf(tx, emails);
  return emails.map((e, i) => (forSeller(e.type, e.data) ? DEFAULT_LOCALE : resolved[i]!));
}

/**
 * The outbox subscriber: records the emails these events call for that their organizations enable. Run in the
 * transaction that marks the events processed, so an event's emails exist exactly when it counts as handled.
 * Returns how many new emails it recorded.
 */
export async function requestFromOutbox(tx: Queryable, rows: OutboxRowView[]): Promise<number> {
  const wanted = rows.flatMap((row) => {
    const email = emailFor(row);
    return email ? [{ row, ...email }] : [];
  });
  if (wanted.length === 0) return 0;
  const settings = await repo.emailSettingsOf(tx, [...new Set(wanted.map((w) => w.row.organizationId))]);
  const sent = wanted.filter((w) => enabled(settings.get(w.row.organizationId), w.type));
  const locales = await localesFor(
    tx,
    sent.map((w) => {
      const p = w.row.payload;
      const customerId = text(p.customer_id) ?? text((p.customer as Record<string, unknown> | undefined)?.id);
      return { organizationId: w.row.organizationId, customerId, recipient: w.recipient, checkoutId: text(p.checkout_id), type: w.type, data: p };
    }),
  );
  return repo.insertEmails(
    tx,
    sent.map((w, i) => ({ organizationId: w.row.organizationId, outboxId: w.row.id, type: w.type, recipient: w.recipient, data: { ...w.row.payload, [LOCALE_KEY]: locales[i] } })),
  );
}

/** The worker runs requestFromOutbox on every fanned-out batch (db/outbox.ts). */
export const outboxSubscriber: OutboxSubscriber<OutboxRowView> = { name: "customer-emails", receive: (tx, rows) => requestFromOutbox(tx, rows) };

export const claimDue = (db: Db, limit: number, leaseMs: number, token: string) => repo.claimDue(db, limit, leaseMs, token);
export const release = (db: Db, token: string, ids: string[]) => repo.release(db, token, ids);

/** Where a seller's customers sign in to their portal (a code by email; no credential in the message). */
export const portalUrl = (baseURL: string, slug: string) => `${baseURL}/portal?organization=${encodeURIComponent(slug)}`;

export const messageIdOf = (id: string, baseURL: string) => `<${id}@${new URL(baseURL).hostname || "till.localhost"}>`;

function contextOf(sender: repo.Sender, baseURL: string, locale: string | null | undefined): MailContext {
  return { sender: { name: sender.name, logo: sender.logo }, portalUrl: portalUrl(baseURL, sender.slug), baseUrl: baseURL, i18n: mailSpeaker(locale) };
}

/** The emails of an unpaid order that carry its pay link. */
const PAY_LINK_EMAILS: readonly CustomerEmailType[] = ["subscription_past_due", "invoice_issued", "invoice_reminder"];

/**
 * A failed renewal's email, an invoice's and its reminder carry the order's pay link, made when it is sent (a link
 * lives PAY_LINK_DAYS).
 */
function withPayLink(email: repo.ClaimedEmail, baseURL: string): Record<string, unknown> {
  const id = text(email.data.id);
  if (!PAY_LINK_EMAILS.includes(email.type as CustomerEmailType) || !id) return email.data;
  return { ...email.data, pay_url: payLinkUrl(baseURL, email.organizationId, id, new Date()) };
}

/** Renders and hands one claimed email to the mail transport; throws when that fails. */
export async function deliver(mailer: Mailer, email: repo.ClaimedEmail, baseURL: string): Promise<void> {
  const ctx = contextOf(email.sender, baseURL, text(email.data[LOCALE_KEY]));
  const rendered = await renderCustomerEmail(email.type as CustomerEmailType, withPayLink(email, baseURL), ctx);
  await mailer.send({
    to: email.recipient,
    fromName: email.sender.name,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    messageId: messageIdOf(email.id, baseURL),
    links: rendered.link ? [rendered.link, ctx.portalUrl] : [ctx.portalUrl],
  });
}

/** Records the outcome of an attempt made under `token`: sent, retried later, or given up. */
export async function record(db: Db, email: repo.ClaimedEmail, token: string, error: unknown): Promise<void> {
  if (error === undefined) return repo.markSent(db, email.id, token);
  const delay = RETRY_DELAYS_MS[email.attempts] ?? null;
  return repo.markFailed(db, email.id, token, error instanceof Error ? error.message : String(error), delay);
}

/**
 * One email of `type` as this organization's customers would get it, on sample data (the seller's preview), in `locale`
 * (English by default).
 */
export async function previewEmail(
  organization: { name: string; slug: string; avatar_url: string | null },
  type: CustomerEmailType,
  baseURL: string,
  locale?: string | null,
): Promise<RenderedEmail> {
  const ctx = contextOf({ name: organization.name, slug: organization.slug, logo: organization.avatar_url }, baseURL, locale);
  return renderCustomerEmail(type, previewData(type, organization.slug), ctx);
}
