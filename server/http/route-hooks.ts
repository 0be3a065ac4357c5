// Hooks given to single routes from an onRoute hook, so that the requests of every other route run none of them
// (an app-wide async hook costs each request a promise and a turn of the microtask queue, whether it acts or not).
import type { HTTPMethods, RouteOptions } from "fastify";

/** Hooks that stay the last of their kind on a route: a hook added after them goes before them. */
const lastOnes = new WeakSet<object>();

/** Marks `hook` to stay last (idempotency's check: it claims the key only for a request about to run). */
export function keepLast<T extends object>(hook: T): T {
  lastOnes.add(hook);
  return hook;
}

/** A route option's hooks (none, one, or several, as the option may hold them) with `hook` added last, or just
 *  before the first hook marked with `keepLast`. */
export function withHook<T>(hooks: T | T[] | undefined, hook: T): T[] {
  const list = hooks === undefined ? [] : Array.isArray(hooks) ? [...hooks] : [hooks];
  const at = list.findIndex((h) => typeof h === "function" && lastOnes.has(h));
  list.splice(at === -1 ? list.length : at, 0, hook);
  return list;
}

/** The methods a route serves (its option holds one, or several). */
export function methodsOf(route: Pick<RouteOptions, "method">): HTTPMethods[] {
  return Array.isArray(route.method) ? route.method : [route.method];
}
