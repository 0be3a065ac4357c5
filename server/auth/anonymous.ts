// When an anonymous user signs up or signs in for real, better-auth deletes the anonymous user.
// Whatever it built meanwhile (organization memberships) moves to the real account first.
import { and, eq, notExists } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db } from "../db/client.js";
import { member } from "../db/schema/auth.js";

export async function onAnonymousLinked(db: Db, anonymousUserId: string, newUserId: string): Promise<void> {
  // An organization the real account already belongs to keeps that membership (and its role); the
  // anonymous one there is left behind and goes with the anonymous user (ON DELETE CASCADE).
  const existing = alias(member, "existing");
  await db
    .update(member)
    .set({ userId: newUserId })
    .where(
      and(
        eq(member.userId, anonymousUserId),
        notExists(
          db
            .select({ id: existing.id })
            .from(existing)
            .where(and(eq(existing.organizationId, member.organizationId), eq(existing.userId, newUserId))),
        ),
      ),
    );
}
