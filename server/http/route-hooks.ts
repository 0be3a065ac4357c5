// Hooks given to single routes from an onRoute hook, so that the requests of every other route run none of them
// (an app-wide async hook costs each request a promise and a turn of the microtask queue, whether it acts or not).
import type { HTTPMethods, RouteOptions } from "fastify";

/** A route option's hooks (none, one, or several, as the option may hold them) with `hook` added last. */
export function withHook<T>(hooks: T | T[] | undefined, hook: T): T[] {
  return [...(hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]), hook];
}

/** The methods a route serves (its option holds one, or several). */
export function methodsOf(route: Pick<RouteOptions, "method">): HTTPMethods[] {
  return Array.isArray(route.method) ? route.method : [route.method];
}
