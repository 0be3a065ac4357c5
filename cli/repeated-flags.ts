// A flag that takes a value, given twice, is an error: commander keeps the last value silently, and
// `--price 999 --price 4999` made a $49.99 product. Flags documented as repeatable (`--metadata`, `--benefit`:
// their help says "repeatable" or "one … per flag") collect every value through a parser marked here; a
// variadic flag (`<values...>`) collects by itself. One rule for every command, set on the program in main.ts.
import type { EventEmitter } from "node:events";
import type { Command, Option } from "commander";
import { UsageError } from "./errors.js";

type Parser = (value: string, previous: never) => unknown;

const REPEATABLE = new WeakSet<object>();

/** Marks parsers that collect every value of a repeated flag (their options document "repeatable"). */
export function markRepeatable(...parsers: Parser[]): void {
  for (const p of parsers) REPEATABLE.add(p);
}

/** `parse`, marked as collecting every value: `const collectX = repeatable((value, previous = []) => …)`. */
export function repeatable<P extends Parser>(parse: P): P {
  REPEATABLE.add(parse);
  return parse;
}

/** Whether `option` may be given more than once: no value (a switch), variadic, or a collecting parser. */
export function isRepeatable(option: Option): boolean {
  const parse = (option as Option & { parseArg?: object }).parseArg;
  return !(option.required || option.optional) || option.variadic || (parse !== undefined && REPEATABLE.has(parse));
}

/** How the flag is named in the error: `--json=<fields>` is read as the hidden --json-fields (main.ts). */
const flagName = (option: Option) => (option.long === "--json-fields" ? "--json=<fields>" : option.long ?? option.short ?? option.flags);

/** Refuses a second value of every non-repeatable value flag of `cmd` and its subcommands. */
export function refuseRepeatedFlags(cmd: Command): void {
  for (const option of cmd.options) {
    if (isRepeatable(option)) continue;
    let first: string | undefined;
    // before commander's own listener: the second value is never parsed nor kept
    (cmd as unknown as EventEmitter).prependListener(`option:${option.name()}`, (value: string | undefined) => {
      if (first === undefined) {
        first = value ?? "";
        return;
      }
      const values = value === first ? `"${first}" twice` : `"${first}", then "${value ?? ""}"`;
      throw new UsageError(`${flagName(option)} was given more than once (${values})`, `give ${flagName(option)} once: only flags whose help says "repeatable" take several values`);
    });
  }
  cmd.commands.forEach(refuseRepeatedFlags);
}
