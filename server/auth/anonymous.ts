// When an anonymous user signs up or signs in for real, better-auth deletes the anonymous user.
// Whatever it built meanwhile (organization memberships) moves to the real account first.
import { eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { member } from "../db/schema/auth.js";

export async function onAnonymousLinked(db: Db, anonymousUserId: string, newUserId: string): Promise<void> {
  await db.update(member).set({ userId: newUserId }).where(eq(member.userId, anonymousUserId));
}
