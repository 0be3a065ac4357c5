// server/layers.ts read for the tests: which unit a server/ module belongs to, and whether a module is a door of
// its unit.
import path from "node:path";
import { BILLING_LEAVES, LAYERS, ROUTES, type Unit } from "../../server/layers.js";

/** Every unit, bottom to top, with its rank (its index in that order). */
export const UNITS: ReadonlyArray<Unit & { rank: number }> = LAYERS.flatMap((l) => l.units).map((u, rank) => ({ ...u, rank }));

const byPath = new Map(UNITS.map((u) => [u.path, u]));

/** The unit of a module, by its path under server/ (forward slashes); undefined when no unit places it. */
export function unitOf(file: string): (Unit & { rank: number }) | undefined {
  const parts = file.split("/");
  if (parts[0] === "billing" && parts.length > 2 && /routes\.ts$/.test(parts[parts.length - 1]!)) return byPath.get(ROUTES);
  for (let n = parts.length; n > 0; n--) {
    const unit = byPath.get(parts.slice(0, n).join("/"));
    if (unit) return unit;
  }
  if (parts[0] === "billing" && parts.length === 2) return byPath.get(BILLING_LEAVES);
  return undefined;
}

/** Whether `file` (under server/) is a door of its unit: one the unit declares, or any of a toolkit's. */
export function isDoor(file: string): boolean {
  const unit = unitOf(file);
  if (!unit) return false;
  if (unit.doors === "all") return true;
  return unit.doors.includes(path.posix.relative(unit.path, file));
}
