// organization.updated for the organization updates better-auth makes (POST /api/auth/organization/update:
// name, slug, logo, metadata). The adapter's write of the organization row and the outbox event share one
// transaction, as on /v1 (billing/organizations/service.ts), so the event exists exactly when the change committed.
// /v1 writes the row with its own SQL, not through this adapter, so one change never emits twice. Characters
// PostgreSQL cannot store never get this far (the mount's input guard, server/auth/plugin.ts).
import type { BetterAuthOptions } from "better-auth";
import type { DBAdapter } from "better-auth/adapters";
import type { Db, Queryable } from "../db/client.js";
import { getOrganization } from "../billing/organizations/service.js";
import { enqueue } from "../db/outbox.js";

type AdapterFactory = (options: BetterAuthOptions) => DBAdapter<BetterAuthOptions>;

/**
 * Wraps the adapter built by `adapterOn(db)`: an update of the organization model runs in a transaction on an
 * adapter built on that transaction, which also records organization.updated with the API's Organization shape.
 */
export function emitOrganizationUpdates(adapterOn: (handle: Queryable) => AdapterFactory, db: Db, view: { testInLive: boolean }): AdapterFactory {
  return (options) => {
    const adapter = adapterOn(db)(options);
    return {
      ...adapter,
      update: <T>(args: Parameters<DBAdapter<BetterAuthOptions>["update"]>[0]): Promise<T | null> => {
        if (args.model !== "organization") return adapter.update<T>(args);
        return db.transaction(async (tx) => {
          const row = await adapterOn(tx)(options).update<T>(args);
          const id = row && typeof row === "object" && "id" in row ? row.id : undefined;
          if (typeof id === "string") {
            const wire = await getOrganization(tx, id, view);
            await enqueue(tx, { type: "organization.updated", organizationId: id, data: { ...wire } });
          }
          return row;
        });
      },
    };
  };
}
