// Which /v1 reads may go to a read replica (db/replicas.ts), and whose writes keep their reads on the primary.
// Lists, exports, metrics, meter quantities and customer state tolerate a little lag; a single object fetched
// by id stays on the primary (clients read it back right after creating it, often from another process). Every
// write request marks its caller — the organization, or the customer session on portal routes — so that caller's
// reads stay on the primary until a replica has replayed past the write (read-your-writes, per server process).
import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyRequest, onSendAsyncHookHandler, RouteOptions } from "fastify";
import type { ReadRouting } from "../db/replicas.js";
import { methodsOf, withHook } from "../http/route-hooks.js";

const LAG_TOLERANT = /(^|:)list($|_)|:export$|^metrics:|^customers:get_state|:quantities$/;
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** GET routes whose operation tolerates lag (the operationId says what a route does). */
export function replicaReadable(route: Pick<RouteOptions, "method" | "schema">): boolean {
  const methods = methodsOf(route);
  const operationId = (route.schema as { operationId?: unknown } | undefined)?.operationId;
  return methods.every((m) => m === "GET" || m === "HEAD") && typeof operationId === "string" && LAG_TOLERANT.test(operationId);
}

/** Whose writes a read must see: the organization acted for, else the bearer token (a customer session), hashed. */
function callerKey(req: FastifyRequest): string | undefined {
  if (req.orgScope) return `org:${req.orgScope.organizationId}`;
  const token = req.headers.authorization;
  return token ? `token:${createHash("sha256").update(token).digest("base64url")}` : undefined;
}

/** Installs the routing on the /v1 plugin; call it before any route is registered. */
export function installReadRouting(app: FastifyInstance, reads: ReadRouting): void {
  // before the answer leaves (its transaction has committed): the caller's next request may come at once
  const markWrite: onSendAsyncHookHandler = async (req, reply, payload) => {
    if (!READ_METHODS.has(req.method) && reply.statusCode < 500) {
      const key = callerKey(req);
      if (key !== undefined) reads.wrote(key);
    }
    return payload;
  };
  app.addHook("onRoute", (route) => {
    const methods = methodsOf(route);
    // only a route that writes carries the mark (a read runs no hook for it)
    if (methods.some((m) => !READ_METHODS.has(m))) {
      route.onSend = withHook(route.onSend, markWrite);
    }
    if (!replicaReadable(route)) return;
    const handler = route.handler;
    route.handler = function routedRead(this: FastifyInstance, req, reply) {
      const key = callerKey(req);
      return key === undefined ? handler.call(this, req, reply) : reads.run(key, () => handler.call(this, req, reply));
    };
  });
}
