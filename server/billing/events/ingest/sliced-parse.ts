// Validating the events of a large ingest batch in slices (POST /v1/events/ingest): the event loop runs every
// few milliseconds instead of waiting for zod over the whole batch.
import type { z } from "zod";
import { Slicer } from "../../../http/json-sliced.js";
import { schemaRefusal, type ValidationIssue } from "../../errors.js";
import { zodIssues } from "../../http.js";

/** Elements validated between two looks at the clock in parseArraySliced. */
const ARRAY_SLICE = 10;

/**
 * A schema's answer for the common element without zod: its value, or its issues (`loc`: the element's place,
 * e.g. ["body", "events", 7]), exactly as zod would give them; undefined when zod must be asked.
 */
/**
 * An element's value (`changed`: not the element as sent; "in-sql": changed only as the early INSERT's statement
 * changes it too), or its issues; undefined: ask zod.
 */
export type FastCheck<T> = (
  item: unknown,
  loc: Array<string | number>,
) => { value: T; changed?: true | "in-sql" } | { issues: ValidationIssue[] } | undefined;

/**
 * Validates a large array of the body (`loc`: where it is, e.g. ["events"]) against `element`, letting the
 * event loop run every few milliseconds: zod over 1,000 events with their metadata is tens of milliseconds in
 * one go, which every other request would wait for. `fast`, when given, answers for an element first (zod is
 * asked only where it cannot). The same issues as validating `z.array(element)` at once (every element's, with
 * its place), the same output. `counts`, when given, counts the elements zod was asked about or the fast check
 * changed (`notAsSent`: their value may not be the element as sent), and those it changed only as the early
 * INSERT's statement does (`inSql`).
 */
export async function parseArraySliced<S extends z.ZodType>(
  element: S,
  items: readonly unknown[],
  loc: Array<string | number>,
  fast?: FastCheck<z.output<S>>,
  counts?: { notAsSent: number; inSql: number },
): Promise<Array<z.output<S>>> {
  const out: Array<z.output<S>> = [];
  const issues: ValidationIssue[] = [];
  // a big array in slices (the sliced parse's last slice just ran in this task)
  const slicer = items.length > ARRAY_SLICE ? await Slicer.begin() : undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const at = ["body", ...loc, i];
    const quick = fast?.(item, at);
    if (quick && "value" in quick) {
      out.push(quick.value);
      if (quick.changed && counts) counts[quick.changed === "in-sql" ? "inSql" : "notAsSent"]++;
    } else if (quick) issues.push(...quick.issues);
    else {
      if (counts) counts.notAsSent++;
      const result = element.safeParse(item);
      if (result.success) out.push(result.data);
      else for (const issue of zodIssues(result.error, "body", item)) issues.push({ ...issue, loc: [...at, ...issue.loc.slice(1)] });
    }
    if (slicer && (i + 1) % ARRAY_SLICE === 0) await slicer.pause();
  }
  if (issues.length > 0) throw schemaRefusal(issues);
  return out;
}
