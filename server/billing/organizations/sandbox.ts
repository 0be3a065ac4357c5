// The sandbox twin of an organization (docs/architecture.md, "Sandbox"): made on first use, found by either
// side's id. The request helper calls these to turn "the sandbox of organization X" into the twin's id; no
// billing domain knows about sandboxes, since every row of the twin is scoped by the twin's id.
import { randomBytes, randomUUID } from "node:crypto";
import type { Db, Queryable } from "../../db/client.js";
import { reserveSandboxInvoicePrefix } from "../invoice-numbers/service.js";
import * as repo from "./repository.js";

/** The live organization of a sandbox twin (null for any other organization). */
export function liveOrganizationOf(db: Queryable, organizationId: string): Promise<string | null> {
  return repo.liveOrganizationOf(db, organizationId);
}

/** `acme` → `acme-sandbox`; when another organization holds that slug, a random suffix after it. */
function sandboxSlugs(liveSlug: string): string[] {
  const base = `${liveSlug}-sandbox`;
  return [base, ...Array.from({ length: 3 }, () => `${base}-${randomBytes(3).toString("hex")}`)];
}

/**
 * The id of the live organization's sandbox twin, made now if it does not exist yet; null when there is no
 * such organization or it is itself a twin (a sandbox has no sandbox).
 */
export async function ensureSandbox(db: Db, liveOrganizationId: string): Promise<string | null> {
  const existing = await repo.sandboxOf(db, liveOrganizationId);
  if (existing) return existing;
  return db.transaction(async (tx) => {
    const live = await repo.lockOrganization(tx, liveOrganizationId);
    if (!live) return null;
    // the lock orders concurrent first uses: whoever comes second finds the twin made
    const made = await repo.sandboxOf(tx, liveOrganizationId);
    if (made) return made;
    if (await repo.liveOrganizationOf(tx, liveOrganizationId)) return null;
    const id = randomUUID();
    for (const slug of sandboxSlugs(live.slug)) {
      const inserted = await repo.insertOrganizationUnlessSlugTaken(tx, {
        id,
        name: `${live.name} (sandbox)`,
        slug,
        logo: live.logo,
        createdAt: new Date(),
        metadata: null,
      });
      if (!inserted) continue;
      await repo.linkSandbox(tx, id, liveOrganizationId);
      await repo.copyBillingSettings(tx, liveOrganizationId, id);
      // a sandbox takes test payments from its first day: active, whatever its live organization's review
      await repo.upsertBillingSettings(tx, id, { status: "active", reviewStatus: null, reviewReason: null, reviewedAt: null });
      await reserveSandboxInvoicePrefix(tx, id, live.slug);
      return id;
    }
    throw new Error(`no free slug for the sandbox of organization ${liveOrganizationId}`);
  });
}

/** The sandbox twins of every organization the user is a member of, made where missing. */
export async function sandboxesOfMember(db: Db, userId: string): Promise<string[]> {
  const rows = await repo.sandboxesOfMember(db, userId);
  const ids: string[] = [];
  for (const row of rows) {
    const id = row.sandbox ?? (await ensureSandbox(db, row.live));
    if (id) ids.push(id);
  }
  return ids;
}
