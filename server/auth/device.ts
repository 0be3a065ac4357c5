// The device authorization flow (RFC 8628) is better-auth's deviceAuthorization plugin; this adds what it
// lacks:
// - registered clients: only the client_ids of TILL_DEVICE_CLIENTS (and the till CLI) get codes or tokens
//   (invalid_client otherwise), and GET /device names the client to the user who reviews the request;
// - the token request as RFC 8628 §3.4 sends it, form-encoded (better-auth's token endpoint takes JSON only);
// - an atomic poll gate: better-auth reads last_polled_at, compares in JS and writes it back, so parallel polls
//   all passed; the write is made conditional, and a poll that loses it is answered slow_down;
// - when a user is deleted, their claimed or approved device codes go too (the CLI polling for a code its user
//   approved and then deleted got a 500, "User not found", instead of invalid_grant).
import type { BetterAuthOptions, BetterAuthPlugin } from "better-auth";
import type { DBAdapter } from "better-auth/adapters";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { and, eq, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { deviceCode } from "../db/schema/index.js";

type AdapterFactory = (options: BetterAuthOptions) => DBAdapter<BetterAuthOptions>;

const FORM = "application/x-www-form-urlencoded";

function oauthError(status: number, error: string, description: string): Response {
  return new Response(JSON.stringify({ error, error_description: description }), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

/**
 * A form-encoded token request as the JSON better-auth's endpoint parses; a parameter given twice is
 * invalid_request (RFC 6749 §3.1, "MUST NOT be included more than once").
 */
async function formAsJson(request: Request): Promise<{ request: Request } | { response: Response }> {
  const params = new URLSearchParams(await request.text());
  const body: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in body) return { response: oauthError(400, "invalid_request", `${key} must not be repeated`) };
    body[key] = value;
  }
  const headers = new Headers(request.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  return { request: new Request(request.url, { method: request.method, headers, body: JSON.stringify(body) }) };
}

const isFormTokenRequest = (request: Request) =>
  request.method === "POST" &&
  new URL(request.url).pathname.endsWith("/device/token") &&
  (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() === FORM;

/** The plugin; `clients` maps each registered client_id to the name the /device page shows. */
export function tillDevice(clients: ReadonlyMap<string, string>) {
  return {
    id: "till-device",
    async onRequest(request) {
      return isFormTokenRequest(request) ? formAsJson(request) : undefined;
    },
    hooks: {
      after: [
        {
          // GET /device names client_id only to the user the code is bound to; the name goes beside it
          matcher: (ctx) => ctx.path === "/device",
          handler: createAuthMiddleware(async (ctx) => {
            const returned: unknown = ctx.context.returned;
            if (returned === null || typeof returned !== "object" || !("client_id" in returned)) return;
            const id = (returned as { client_id: unknown }).client_id;
            const name = typeof id === "string" ? clients.get(id) : undefined;
            return ctx.json({ ...returned, client_name: name ?? null });
          }),
        },
      ],
    },
    init(ctx) {
      return {
        options: {
          databaseHooks: {
            user: {
              delete: {
                after: async (user) => {
                  await ctx.adapter.deleteMany({ model: "deviceCode", where: [{ field: "userId", value: user.id }] });
                },
              },
            },
          },
        },
      };
    },
  } satisfies BetterAuthPlugin;
}

/**
 * better-auth records a poll with `update deviceCode set lastPolledAt where id = …` after its own (racy)
 * interval check. That write becomes: set it to now only if the previous poll is at least the interval old
 * (database clock, so replicas agree), else answer slow_down. Concurrent polls serialise on the row, and
 * exactly one of them per interval gets past.
 */
export function gateDevicePolls(factory: AdapterFactory, db: Db): AdapterFactory {
  return (options) => {
    const adapter = factory(options);
    return {
      ...adapter,
      update: async <T>(args: Parameters<DBAdapter<BetterAuthOptions>["update"]>[0]): Promise<T | null> => {
        const id = args.where?.length === 1 && args.where[0]?.field === "id" ? args.where[0].value : undefined;
        const pollOnly = Object.keys(args.update).length === 1 && "lastPolledAt" in args.update;
        if (args.model !== "deviceCode" || !pollOnly || typeof id !== "string") return adapter.update<T>(args);
        const now = sql`clock_timestamp()`;
        const [won] = await db
          .update(deviceCode)
          .set({ lastPolledAt: now })
          .where(
            and(
              eq(deviceCode.id, id),
              or(
                isNull(deviceCode.lastPolledAt),
                isNull(deviceCode.pollingInterval),
                lte(deviceCode.lastPolledAt, sql`${now} - ${deviceCode.pollingInterval} * interval '1 millisecond'`),
              ),
            ),
          )
          .returning();
        if (!won) throw new APIError("BAD_REQUEST", { error: "slow_down", error_description: "Polling too frequently" });
        return won as T;
      },
    };
  };
}
