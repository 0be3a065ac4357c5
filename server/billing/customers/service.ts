// Rules for customers: one live customer per email and per external id in an organization, billing
// addresses and tax ids (validated per country), the lookups other domains use (soft deletion is delete.ts), and the
// state view (benefits granted now, usage per meter). The request bodies and the stored address are input.ts.
import type { Db, Queryable } from "../../db/client.js";
import { matchTaxId } from "../../../shared/tax-ids.js";
import { isUuid } from "../http.js";
import { notFound, validationError, type ValidationIssue } from "../errors.js";
import type { SortKey } from "../listing.js";
import type { CsvExport } from "../csv.js";
import { enqueue } from "../../db/outbox.js";
import { storedAddress, type CustomerCreateInput, type CustomerUpdateInput } from "./input.js";
import * as repo from "./repository.js";
import { toCustomerWire, type AddressWire, type CustomerRow, type CustomerWire } from "./wire.js";
import { patchTerms } from "../terms.js";

const NOT_FOUND = "Customer not found.";
const EMAIL_TAKEN = "A customer with this email address already exists.";
const EXTERNAL_ID_TAKEN = "A customer with this external ID already exists.";

// ---- checks (the request bodies are input.ts) -------------------------------------------------------

/**
 * Runs in the transaction that created a team customer, or made an individual one a team (billing/members' addOwner).
 */
export type BecameTeam = (tx: Queryable, row: CustomerRow) => Promise<void>;

const issue = (field: string, msg: string, input: unknown, type = "value_error"): ValidationIssue => ({
  loc: ["body", field],
  msg,
  type,
  ...(input === undefined ? {} : { input }),
});

/** [value, format] for a tax id in the billing country, or the 422 issue explaining why not. */
function validatedTaxId(taxId: string, address: { country: string } | null | undefined): [string, string] | ValidationIssue {
  if (!address) return { ...issue("billing_address", "Country is required to validate tax ID.", null, "missing"), code: "tax_id_country" };
  return matchTaxId(taxId, address.country) ?? { ...issue("tax_id", "Invalid tax ID.", taxId, "invalid"), code: "tax_id_invalid" };
}

/**
 * The check-then-insert above leaves a window for two writers; the partial unique indexes close it, and
 * their violation is reported like the check would have (422 on the field), not as a conflict.
 */
async function uniquely<T>(write: () => Promise<T>, values: { email?: string | null; externalId?: string | null }): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const constraint = uniqueViolation(err);
    if (constraint === "customer_org_email_uq") throw validationError([issue("email", EMAIL_TAKEN, values.email ?? undefined)]);
    if (constraint === "customer_org_external_uq") {
      throw validationError([issue("external_id", EXTERNAL_ID_TAKEN, values.externalId ?? undefined)]);
    }
    throw err;
  }
}

/** The constraint a unique violation names (postgres.js: constraint_name, PGlite: constraint), if any. */
function uniqueViolation(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const o = e as { code?: unknown; constraint_name?: unknown; constraint?: unknown };
    if (o.code === "23505") return String(o.constraint_name ?? o.constraint ?? "");
  }
  return undefined;
}

// ---- reads --------------------------------------------------------------------------------------

async function ownCustomer(db: Queryable, organizationId: string, id: string): Promise<CustomerRow> {
  const row = await repo.findCustomer(db, organizationId, id);
  if (!row) throw notFound(NOT_FOUND);
  return row;
}

async function ownExternalCustomer(db: Queryable, organizationId: string, externalId: string): Promise<CustomerRow> {
  const row = await repo.findCustomerByExternalId(db, organizationId, externalId);
  if (!row) throw notFound(NOT_FOUND);
  return row;
}

export type CustomerRef = { id: string } | { externalId: string };

const resolve = (db: Queryable, organizationId: string, ref: CustomerRef) =>
  "id" in ref ? ownCustomer(db, organizationId, ref.id) : ownExternalCustomer(db, organizationId, ref.externalId);

export async function getCustomer(db: Db, organizationId: string, ref: CustomerRef): Promise<CustomerWire> {
  return toCustomerWire(await resolve(db, organizationId, ref));
}

export async function listCustomers(
  db: Db,
  organizationId: string,
  filter: repo.CustomerListFilter,
  sorting: Array<SortKey<repo.CustomerSortKey>>,
  pageNo: number,
  limit: number,
) {
  const { rows, total } = await repo.listCustomers(db, organizationId, filter, sorting, pageNo, limit);
  return { items: rows.map(toCustomerWire), total };
}

/** The live customer a reference names (404 when it is missing, foreign or deleted). */
export async function findCustomerRow(db: Queryable, organizationId: string, ref: CustomerRef): Promise<CustomerRow> {
  return resolve(db, organizationId, ref);
}

// ---- writes -------------------------------------------------------------------------------------

export async function createCustomer(db: Db, organizationId: string, input: CustomerCreateInput, becameTeam?: BecameTeam): Promise<CustomerWire> {
  const write = () => db.transaction(async (tx) => {
    const issues: ValidationIssue[] = [];
    if (await repo.emailTaken(tx, organizationId, input.email)) issues.push(issue("email", EMAIL_TAKEN, input.email));
    if (input.external_id && (await repo.externalIdTaken(tx, organizationId, input.external_id))) {
      issues.push(issue("external_id", EXTERNAL_ID_TAKEN, input.external_id));
    }
    let taxId: [string, string] | null = null;
    if (input.tax_id) {
      const checked = validatedTaxId(input.tax_id, input.billing_address);
      if (Array.isArray(checked)) taxId = checked;
      else issues.push(checked);
    }
    const terms = patchTerms({ collectionMethod: null, daysUntilDue: null }, input);
    if ("loc" in terms) issues.push(terms);
    if (issues.length > 0 || "loc" in terms) throw validationError(issues);
    const row = await repo.insertCustomer(tx, {
      organizationId,
      email: input.email,
      externalId: input.external_id ?? null,
      type: input.type,
      name: input.name ?? null,
      billingName: input.billing_name ?? null,
      billingAddress: input.billing_address ? storedAddress(input.billing_address) : null,
      taxId,
      locale: input.locale ?? null,
      ...terms,
      metadata: input.metadata ?? {},
    });
    const wire = toCustomerWire(row);
    await enqueue(tx, { type: "customer.created", organizationId, data: { ...wire } });
    if (row.type === "team") await becameTeam?.(tx, row);
    return wire;
  });
  return uniquely(write, { email: input.email, externalId: input.external_id });
}

export async function updateCustomer(
  db: Db,
  organizationId: string,
  ref: CustomerRef,
  input: CustomerUpdateInput,
  becameTeam?: BecameTeam,
): Promise<CustomerWire> {
  const write = () => db.transaction(async (tx) => {
    const current = await resolve(tx, organizationId, ref);
    const issues: ValidationIssue[] = [];
    const patch: Parameters<typeof repo.updateCustomer>[3] = { modifiedAt: new Date() };

    if (input.email && input.email !== current.email) {
      if (await repo.emailTaken(tx, organizationId, input.email, current.id)) issues.push(issue("email", EMAIL_TAKEN, input.email));
      patch.email = input.email;
      patch.emailVerified = false;
    }
    if (input.billing_address === null && current.billingAddress) {
      issues.push(issue("billing_address", "Customer billing address cannot be reset to null once set.", null));
    }
    const address = input.billing_address ?? (current.billingAddress as AddressWire | null);
    if (input.billing_address) patch.billingAddress = storedAddress(input.billing_address);

    if (input.external_id !== undefined && input.external_id !== current.externalId) {
      if (current.externalId !== null) {
        issues.push(issue("external_id", "Customer external ID cannot be updated.", input.external_id));
      } else if (input.external_id !== null) {
        if (await repo.externalIdTaken(tx, organizationId, input.external_id, current.id)) {
          issues.push(issue("external_id", EXTERNAL_ID_TAKEN, input.external_id));
        }
        patch.externalId = input.external_id;
      }
    }

    // a new tax id, or the stored one checked again against a new billing country
    const taxIdValue = input.tax_id === null ? null : (input.tax_id ?? current.taxId?.[0] ?? null);
    if (input.tax_id === null) patch.taxId = null;
    else if (taxIdValue !== null && (input.tax_id !== undefined || input.billing_address)) {
      const checked = validatedTaxId(taxIdValue, address);
      if (Array.isArray(checked)) patch.taxId = checked;
      else issues.push(checked);
    }

    // Polar's rule: an individual may become a team, never the other way
    if (input.type === "individual" && current.type === "team") issues.push(issue("type", "A team customer cannot become an individual customer.", input.type));
    if (input.type === "team" && current.type !== "team") patch.type = "team";
    const terms = patchTerms(current, input);
    if ("loc" in terms) issues.push(terms);
    else Object.assign(patch, terms);
    if (issues.length > 0) throw validationError(issues);
    if (input.name !== undefined) patch.name = input.name;
    if (input.billing_name !== undefined) patch.billingName = input.billing_name;
    if (input.locale !== undefined) patch.locale = input.locale;
    if (input.metadata !== undefined) patch.metadata = input.metadata;
    const row = await repo.updateCustomer(tx, organizationId, current.id, patch);
    if (!row) throw notFound(NOT_FOUND);
    const wire = toCustomerWire(row);
    await enqueue(tx, { type: "customer.updated", organizationId, data: { ...wire } });
    if (patch.type === "team") await becameTeam?.(tx, row);
    return wire;
  });
  return uniquely(write, { email: input.email, externalId: input.external_id });
}

/**
 * A verified change of email (the customer portal's email update): applied only while the customer's email is
 * still `from` (else null: the link was used, or the email changed since), marked verified, with its
 * customer.updated event. An address another customer has is the 422 of `loc`.
 */
export async function changeVerifiedEmail(
  db: Db,
  organizationId: string,
  customerId: string,
  change: { from: string; to: string },
  loc: Array<string | number>,
): Promise<CustomerWire | null> {
  const taken = () => validationError([{ loc, msg: EMAIL_TAKEN, type: "value_error" }]);
  const write = () =>
    db.transaction(async (tx) => {
      const current = await repo.lockLiveCustomer(tx, organizationId, customerId);
      if (!current || current.email !== change.from) return null;
      if (await repo.emailTaken(tx, organizationId, change.to, current.id)) throw taken();
      const row = await repo.updateCustomer(tx, organizationId, current.id, { email: change.to, emailVerified: true, modifiedAt: new Date() });
      if (!row) return null;
      const wire = toCustomerWire(row);
      await enqueue(tx, { type: "customer.updated", organizationId, data: { ...wire } });
      return wire;
    });
  try {
    return await write();
  } catch (err) {
    if (uniqueViolation(err) === "customer_org_email_uq") throw taken();
    throw err;
  }
}

// ---- for other domains --------------------------------------------------------------------------

const uniqueUuids = (ids: string[]) => [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];

/** The ids among `ids` that are not live customers of this organization. */
export async function missingCustomerIds(db: Queryable, organizationId: string, ids: string[]): Promise<string[]> {
  const found = new Set(await repo.liveCustomerIds(db, organizationId, uniqueUuids(ids)));
  return ids.filter((id) => !isUuid(id) || !found.has(id.toLowerCase()));
}

/** Customers to embed in rows that refer to them by id (deleted ones included) or by external id (live). */
export async function loadCustomers(
  db: Queryable,
  organizationId: string,
  refs: { ids: string[]; externalIds: string[] },
): Promise<{ byId: Map<string, CustomerWire>; byExternalId: Map<string, CustomerWire> }> {
  const [byIdRows, byExternalRows] = await Promise.all([
    repo.findCustomersByIds(db, organizationId, uniqueUuids(refs.ids)),
    repo.findCustomersByExternalIds(db, organizationId, [...new Set(refs.externalIds)]),
  ]);
  return {
    byId: new Map(byIdRows.map((r) => [r.id, toCustomerWire(r)])),
    byExternalId: new Map(byExternalRows.map((r) => [r.externalId ?? "", toCustomerWire(r)])),
  };
}

/**
 * Both names of a set of customers, for reading usage: events name a customer by id or by the external id
 * the seller uses, so a filter on either must match both. Unknown ids and external ids stay as given.
 */
export async function customerAliases(
  db: Queryable,
  organizationId: string,
  refs: { ids?: string[] | undefined; externalIds?: string[] | undefined },
): Promise<{ ids: string[]; externalIds: string[] }> {
  const ids = uniqueUuids(refs.ids ?? []);
  const externalIds = [...new Set(refs.externalIds ?? [])];
  const [byId, byExternal] = await Promise.all([
    repo.findCustomersByIds(db, organizationId, ids),
    repo.findCustomersByExternalIds(db, organizationId, externalIds),
  ]);
  return {
    ids: [...new Set([...ids, ...byExternal.map((r) => r.id)])],
    externalIds: [...new Set([...externalIds, ...byId.flatMap((r) => (r.externalId ? [r.externalId] : []))])],
  };
}

/** Live customers matching a search text (id, external id, name, email), for event search. */
export const searchCustomerIds = (db: Queryable, organizationId: string, text: string) =>
  repo.searchCustomerIds(db, organizationId, text, 1000);

/** What a confirmed checkout knows about its customer. */
export interface CheckoutCustomerInput {
  /** The customer the checkout was opened for, if any. */
  customerId: string | null;
  externalId: string | null;
  email: string;
  name: string | null;
  /** The name the invoices are made out to (a business buyer's), when the checkout collected one. */
  billingName: string | null;
  billingAddress: Record<string, string | null> | null;
  /** [value, format], already validated against the billing country. */
  taxId: [string, string] | null;
  /** Merged into the customer's metadata. */
  metadata: Record<string, string | number | boolean>;
  /**
   * The checkout's `locale` when till speaks it: stored on the customer, replacing a different one —
   * the language they just bought in is the one they read best.
   */
  locale?: string | null;
}

/**
 * The customer of a confirmed checkout, in the caller's transaction: the checkout's customer, else the live
 * customer with its external id, else with its email, else a new one. What the checkout collected (name,
 * billing address, tax id, metadata) is written onto it. A new customer costs one statement: the insert is
 * tried first and skipped by the unique indexes when a live customer has the email or external id (also when
 * a concurrent checkout created it a moment ago), and then that customer is read.
 */
export async function upsertCheckoutCustomer(
  tx: Queryable,
  organizationId: string,
  input: CheckoutCustomerInput,
): Promise<{ customer: CustomerRow; created: boolean }> {
  const email = input.email.trim().toLowerCase();
  let current = input.customerId ? await repo.findCustomer(tx, organizationId, input.customerId) : undefined;
  if (!current) {
    const inserted = await repo.insertCustomerIfAbsent(tx, {
      organizationId,
      email,
      externalId: input.externalId,
      type: "individual",
      name: input.name,
      billingName: input.billingName,
      billingAddress: input.billingAddress,
      taxId: input.taxId,
      metadata: input.metadata,
      locale: input.locale ?? null,
    });
    if (inserted) return { customer: inserted, created: true };
    current =
      (input.externalId ? await repo.findCustomerByExternalId(tx, organizationId, input.externalId) : undefined) ??
      (await repo.findCustomerByEmail(tx, organizationId, email));
    if (!current) throw new Error("customer insert conflicted but no customer was found");
  }
  const patch: Parameters<typeof repo.updateCustomer>[3] = { modifiedAt: new Date() };
  if (input.name) patch.name = input.name;
  if (input.billingName) patch.billingName = input.billingName;
  if (input.billingAddress) patch.billingAddress = input.billingAddress;
  if (input.taxId) patch.taxId = input.taxId;
  if (input.locale && input.locale !== current.locale) patch.locale = input.locale;
  if (Object.keys(input.metadata).length > 0) patch.metadata = { ...current.metadata, ...input.metadata };
  if (input.externalId && !current.externalId && !(await repo.externalIdTaken(tx, organizationId, input.externalId, current.id))) {
    patch.externalId = input.externalId;
  }
  const updated = await repo.updateCustomer(tx, organizationId, current.id, patch);
  return { customer: updated ?? current, created: false };
}

/** The organization's customers as CSV (`GET /v1/customers/export`), oldest first; deleted ones left out. */
export function customerExport(organizationId: string): CsvExport {
  return repo.customersExport(organizationId);
}

// ---- rows for other domains (they read this domain through its service, never its repository) ----------

/** A live customer's row by id, or undefined. */
export const findCustomer: typeof repo.findCustomer = (...args) => repo.findCustomer(...args);
/** The live customers among `ids`, as SQL (events' early INSERT reads it in its own transaction). */
export const liveCustomerIdsSql: typeof repo.liveCustomerIdsSql = (...args) => repo.liveCustomerIdsSql(...args);

// ---- rows for the orchestrators above (customer-state/: a customer's deletion, its meters) -----------

/** The live customer's row locked FOR UPDATE until the caller's transaction ends, or undefined. */
export const lockLiveCustomer: typeof repo.lockLiveCustomer = (...args) => repo.lockLiveCustomer(...args);
/** The columns writeCustomerRow sets. */
export type CustomerRowPatch = Parameters<typeof repo.updateCustomer>[3];
/** Writes the customer's columns as given (a deletion's deleted_at and anonymized data). */
export const writeCustomerRow: typeof repo.updateCustomer = (...args) => repo.updateCustomer(...args);
/** The customers among `ids` (deleted ones too). */
export const findCustomersByIds: typeof repo.findCustomersByIds = (...args) => repo.findCustomersByIds(...args);
/** The customers among these external ids (deleted ones too). */
export const findCustomersByExternalIds: typeof repo.findCustomersByExternalIds = (...args) => repo.findCustomersByExternalIds(...args);
/** The newest live customers, at most `limit`. */
export const newestLiveCustomerRows: typeof repo.newestLiveCustomerRows = (...args) => repo.newestLiveCustomerRows(...args);
/** Live customer ids after `after` in id order, at most `limit` (a scan in chunks). */
export const liveCustomerIdsAfter: typeof repo.liveCustomerIdsAfter = (...args) => repo.liveCustomerIdsAfter(...args);
