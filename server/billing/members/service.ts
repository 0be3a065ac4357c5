// Rules for the members of team customers (Polar's members API and the customer portal's members routes):
// - only a customer of type "team" has members; it has exactly one owner at all times (a partial unique index
//   keeps it so under concurrent writers);
// - ownership moves by making another member the owner (the previous owner becomes a billing manager); the owner
//   cannot be demoted or removed otherwise;
// - emails (lower-cased) and external ids are unique within the customer;
// - in the portal, the owner and billing managers manage members; nobody changes their own role or removes
//   themselves; only the owner hands on ownership.
// Every write records its member.* webhook in the same transaction. Functions taking `Db` open their own.
import { z } from "zod";
import type { Db, Queryable } from "../../db/client.js";
import { enqueue, type OutboxEvent } from "../../db/outbox.js";
import { findCustomerRow, type CustomerRef } from "../customers/service.js";
import type { CustomerRow } from "../customers/wire.js";
import { emailInput, isUuid } from "../http.js";
import { invalid, notFound, notPermitted } from "../errors.js";
import * as repo from "./repository.js";
import { MEMBER_ROLES, toMemberWire, toPortalMemberWire, type MemberRole, type MemberRow, type MemberWire, type PortalMemberWire } from "./wire.js";

const NOT_FOUND = "Member not found.";
const EMAIL_TAKEN = "A member with this email address already exists for this customer.";
const EXTERNAL_ID_TAKEN = "A member with this external ID already exists for this customer.";
const ONE_OWNER = "A team has exactly one owner: make another member the owner to hand ownership on.";

// ---- inputs -------------------------------------------------------------------------------------

const uuid = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const email = emailInput.transform((e) => e.toLowerCase());
const name = z.string().max(256).nullish();
const externalId = z.string().min(1).max(256).nullish();
/** Roles a new member may get (ownership is handed on by an update, never created). */
const newRole = z.enum(["member", "billing_manager"]).default("member");
const role = z.enum(MEMBER_ROLES);

/** MemberCreateFromCustomer (0.49.0, the customer in the path). */
export const MemberCreateFromCustomerInput = z.object({ email, name, external_id: externalId, role: newRole });
export type MemberCreateFromCustomerInput = z.output<typeof MemberCreateFromCustomerInput>;
/** MemberCreate (0.47.1, POST /v1/members/). */
export const MemberCreateInput = MemberCreateFromCustomerInput.extend({ customer_id: uuid });
/** MemberUpdate. */
export const MemberUpdateInput = z.object({ name, role: role.nullish() });
export type MemberUpdateInput = z.output<typeof MemberUpdateInput>;
/** CustomerPortalMemberCreate. */
export const PortalMemberCreateInput = z.object({ email, name, role: role.default("member") });
/** CustomerPortalMemberUpdate. */
export const PortalMemberUpdateInput = z.object({ role: role.nullish() });

// ---- errors of unique indexes -------------------------------------------------------------------

function uniqueViolation(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const o = e as { code?: unknown; constraint_name?: unknown; constraint?: unknown };
    if (o.code === "23505") return String(o.constraint_name ?? o.constraint ?? "");
  }
  return undefined;
}

/** A concurrent writer that took the email, the external id or the owner's place first: the same 422 as the checks. */
async function uniquely<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const constraint = uniqueViolation(err);
    if (constraint === "customer_member_email_uq") throw invalid(["body", "email"], EMAIL_TAKEN, "value_error", "member_exists");
    if (constraint === "customer_member_external_uq") throw invalid(["body", "external_id"], EXTERNAL_ID_TAKEN);
    if (constraint === "customer_member_one_owner_uq") throw invalid(["body", "role"], ONE_OWNER);
    throw err;
  }
}

const event = (type: "member.created" | "member.updated" | "member.deleted", row: MemberRow): OutboxEvent => ({
  type,
  organizationId: row.organizationId,
  data: { ...toMemberWire(row) },
});

// ---- reads --------------------------------------------------------------------------------------

/** How a route names a member: by id; by id under a customer; by the seller's id under a customer. */
export type MemberRef = { id: string } | { customer: CustomerRef; id: string } | { customer: CustomerRef; externalId: string };

async function resolve(db: Queryable, organizationId: string, ref: MemberRef): Promise<MemberRow> {
  let row: MemberRow | undefined;
  if (!("customer" in ref)) row = await repo.findMember(db, organizationId, ref.id);
  else {
    const c = await findCustomerRow(db, organizationId, ref.customer);
    row = "id" in ref ? await repo.findMemberOf(db, organizationId, c.id, ref.id) : await repo.findMemberByExternalId(db, organizationId, c.id, ref.externalId);
  }
  if (!row) throw notFound(NOT_FOUND);
  return row;
}

export async function getMember(db: Db, organizationId: string, ref: MemberRef): Promise<MemberWire> {
  return toMemberWire(await resolve(db, organizationId, ref));
}

export async function listMembers(db: Db, organizationId: string, filter: repo.MemberListFilter, newestFirst: boolean, pageNo: number, limit: number) {
  const { rows, total } = await repo.listMembers(db, organizationId, filter, newestFirst, pageNo, limit);
  return { items: rows.map(toMemberWire), total };
}

/** The id of the live customer a route names (404 when missing or foreign). */
export async function customerIdOf(db: Queryable, organizationId: string, ref: CustomerRef): Promise<string> {
  return (await findCustomerRow(db, organizationId, ref)).id;
}

/** A member of this customer by id or by the seller's id (a customer session made for a member). */
export async function memberOfCustomer(db: Queryable, organizationId: string, customerId: string, ref: { id: string } | { externalId: string }) {
  return "id" in ref ? repo.findMemberOf(db, organizationId, customerId, ref.id) : repo.findMemberByExternalId(db, organizationId, customerId, ref.externalId);
}

export const ownerOf = (db: Queryable, organizationId: string, customerId: string) => repo.findOwner(db, organizationId, customerId);
export const memberByEmail = (db: Queryable, organizationId: string, email: string) => repo.memberByEmail(db, organizationId, email.toLowerCase());
export const findMember = (db: Queryable, organizationId: string, id: string) => repo.findMember(db, organizationId, id);
/** Member wires by id (the seats assigned to members show them). */
export async function memberWires(db: Queryable, organizationId: string, ids: string[]): Promise<Map<string, MemberWire>> {
  const rows = await repo.membersByIds(db, organizationId, [...new Set(ids)]);
  return new Map(rows.map((r) => [r.id, toMemberWire(r)]));
}

// ---- writes -------------------------------------------------------------------------------------

interface NewMember {
  email: string;
  name?: string | null;
  external_id?: string | null;
  role: MemberRole;
}

async function insert(tx: Queryable, c: CustomerRow, m: NewMember): Promise<MemberRow> {
  if (await repo.findMemberByEmail(tx, c.organizationId, c.id, m.email)) throw invalid(["body", "email"], EMAIL_TAKEN, "value_error", "member_exists");
  if (m.external_id && (await repo.findMemberByExternalId(tx, c.organizationId, c.id, m.external_id))) {
    throw invalid(["body", "external_id"], EXTERNAL_ID_TAKEN);
  }
  const row = await repo.insertMember(tx, {
    organizationId: c.organizationId,
    customerId: c.id,
    email: m.email,
    name: m.name ?? null,
    externalId: m.external_id ?? null,
    role: m.role,
  });
  await enqueue(tx, event("member.created", row));
  return row;
}

/**
 * The owner of a customer that just became a team (created as one, or changed from individual): the owner given,
 * else the customer's own email and name. Runs in the customer's transaction.
 */
export async function addOwner(tx: Queryable, c: CustomerRow, owner: { email: string; name?: string | null; external_id?: string | null } | null | undefined): Promise<void> {
  if (await repo.findOwner(tx, c.organizationId, c.id)) return;
  await insert(tx, c, { email: (owner?.email ?? c.email).toLowerCase(), name: owner ? (owner.name ?? null) : c.name, external_id: owner?.external_id ?? null, role: "owner" });
}

/** The live team customer members are added to (a foreign or missing one is a 404; an individual, a 403). */
async function teamCustomer(db: Queryable, organizationId: string, ref: CustomerRef): Promise<CustomerRow> {
  const c = await findCustomerRow(db, organizationId, ref);
  if (c.type !== "team") throw notPermitted("Members can only be added to team customers (type: team).");
  return c;
}

export async function createMember(db: Db, organizationId: string, ref: CustomerRef, input: MemberCreateFromCustomerInput): Promise<MemberWire> {
  return uniquely(() =>
    db.transaction(async (tx) => {
      const c = await teamCustomer(tx, organizationId, ref);
      return toMemberWire(await insert(tx, c, input));
    }),
  );
}

/**
 * A role change under the team's lock: to owner hands ownership on (the owner becomes a billing manager); the
 * owner's own role changes only that way.
 */
async function changeRole(tx: Queryable, current: MemberRow, to: MemberRole, now: Date): Promise<MemberRow> {
  if (to === current.role) return current;
  if (current.role === "owner") throw invalid(["body", "role"], ONE_OWNER);
  if (to === "owner") {
    const owner = await repo.findOwner(tx, current.organizationId, current.customerId);
    if (owner) {
      const demoted = await repo.updateMember(tx, owner.organizationId, owner.id, { role: "billing_manager", modifiedAt: now });
      if (demoted) await enqueue(tx, event("member.updated", demoted));
    }
  }
  const row = await repo.updateMember(tx, current.organizationId, current.id, { role: to, modifiedAt: now });
  if (!row) throw notFound(NOT_FOUND);
  return row;
}

async function update(tx: Queryable, current: MemberRow, input: { name?: string | null; role?: MemberRole | null }): Promise<MemberRow> {
  const now = new Date();
  let row = input.role ? await changeRole(tx, current, input.role, now) : current;
  if (input.name !== undefined && input.name !== row.name) {
    row = (await repo.updateMember(tx, row.organizationId, row.id, { name: input.name, modifiedAt: now })) ?? row;
  }
  if (row !== current) await enqueue(tx, event("member.updated", row));
  return row;
}

export async function updateMember(db: Db, organizationId: string, ref: MemberRef, input: MemberUpdateInput): Promise<MemberWire> {
  return uniquely(() =>
    db.transaction(async (tx) => {
      const found = await resolve(tx, organizationId, ref);
      await repo.lockMembersOf(tx, organizationId, found.customerId);
      const current = await resolve(tx, organizationId, { id: found.id });
      return toMemberWire(await update(tx, current, input));
    }),
  );
}

/**
 * What goes with a member removed, in the removal's transaction before the row goes (the routes give the seats
 * domain's: the member's seats and their grants revoked, with their webhooks). Members sit below seats, so the
 * removal is told what to do rather than calling up.
 */
export type OnMemberRemoved = (tx: Queryable, member: MemberRow) => Promise<void>;

async function remove(tx: Queryable, row: MemberRow, onRemoved: OnMemberRemoved | undefined): Promise<void> {
  if (row.role === "owner") throw notPermitted("The owner of a team cannot be removed: make another member the owner first.", "remove_owner");
  await onRemoved?.(tx, row);
  await repo.deleteMember(tx, row.organizationId, row.id);
  await enqueue(tx, event("member.deleted", { ...row, modifiedAt: new Date() }));
}

export async function deleteMember(db: Db, organizationId: string, ref: MemberRef, onRemoved?: OnMemberRemoved): Promise<void> {
  await db.transaction(async (tx) => {
    const found = await resolve(tx, organizationId, ref);
    await repo.lockMembersOf(tx, organizationId, found.customerId);
    await remove(tx, await resolve(tx, organizationId, { id: found.id }), onRemoved);
  });
}

// ---- the customer portal ------------------------------------------------------------------------

/**
 * Who acts in the portal: the customer, and the member whose session it is (a team session without one is the owner's).
 */
export interface PortalActor {
  organizationId: string;
  customer: CustomerRow;
  member: MemberRow | null;
}

/** The acting member when they may manage the team's members (owner or billing manager), else a 403. */
async function manager(db: Queryable, a: PortalActor): Promise<MemberRow> {
  if (a.customer.type !== "team") throw notPermitted("Members are only available to team customers.");
  const me = a.member ?? (await repo.findOwner(db, a.organizationId, a.customer.id));
  if (!me || (me.role !== "owner" && me.role !== "billing_manager")) throw notPermitted("Only the team's owner and billing managers can manage members.", "role_refused");
  return me;
}

export async function portalListMembers(db: Db, a: PortalActor, pageNo: number, limit: number): Promise<{ items: PortalMemberWire[]; total: number }> {
  await manager(db, a);
  const { rows, total } = await repo.listMembers(db, a.organizationId, { customerId: a.customer.id }, false, pageNo, limit);
  return { items: rows.map(toPortalMemberWire), total };
}

/** Adds a member (never an owner); an email already in the team answers that member, as Polar does. */
export async function portalAddMember(db: Db, a: PortalActor, input: z.output<typeof PortalMemberCreateInput>): Promise<PortalMemberWire> {
  if (input.role === "owner") throw invalid(["body", "role"], "A member cannot be added as owner: a team has exactly one owner.");
  return uniquely(() =>
    db.transaction(async (tx) => {
      await manager(tx, a);
      const existing = await repo.findMemberByEmail(tx, a.organizationId, a.customer.id, input.email);
      if (existing) return toPortalMemberWire(existing);
      return toPortalMemberWire(await insert(tx, a.customer, { email: input.email, name: input.name, role: input.role }));
    }),
  );
}

async function portalTarget(tx: Queryable, a: PortalActor, id: string): Promise<{ me: MemberRow; target: MemberRow }> {
  const me = await manager(tx, a);
  await repo.lockMembersOf(tx, a.organizationId, a.customer.id);
  const target = isUuid(id) ? await repo.findMemberOf(tx, a.organizationId, a.customer.id, id.toLowerCase()) : undefined;
  if (!target) throw notFound(NOT_FOUND);
  return { me, target };
}

export async function portalUpdateMember(db: Db, a: PortalActor, id: string, input: z.output<typeof PortalMemberUpdateInput>): Promise<PortalMemberWire> {
  return uniquely(() =>
    db.transaction(async (tx) => {
      const { me, target } = await portalTarget(tx, a, id);
      if (!input.role || input.role === target.role) return toPortalMemberWire(target);
      if (target.id === me.id) throw notPermitted("You cannot change your own role.", "own_role");
      if (input.role === "owner" && me.role !== "owner") throw notPermitted("Only the owner can hand ownership on.", "owner_only");
      return toPortalMemberWire(await update(tx, target, { role: input.role }));
    }),
  );
}

export async function portalRemoveMember(db: Db, a: PortalActor, id: string, onRemoved?: OnMemberRemoved): Promise<void> {
  await db.transaction(async (tx) => {
    const { me, target } = await portalTarget(tx, a, id);
    if (target.id === me.id) throw notPermitted("You cannot remove yourself from the team.", "remove_self");
    await remove(tx, target, onRemoved);
  });
}
