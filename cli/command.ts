// Helpers every command module uses: run an action with its resolved Context, and format help examples.
import type { Command } from "commander";
import { createContext, type CommandTraits, type Context, type GlobalOptions } from "./context.js";
import { jsonPrinter, parseFields } from "./json-filter.js";
import { setRunningCommand } from "./server-errors.js";

/**
 * Wraps a command's action: resolves the Context from the global flags, passes the command's own options
 * and positional arguments. Errors propagate to main(), which prints them and picks the exit code.
 */
export function withContext<O extends object = Record<string, never>>(
  fn: (ctx: Context, opts: O, args: string[]) => Promise<void>,
  traits: CommandTraits = {},
): (...commanderArgs: unknown[]) => Promise<void> {
  return async (...commanderArgs) => {
    const cmd = commanderArgs[commanderArgs.length - 1] as Command;
    setRunningCommand(cmd);
    const globals = cmd.optsWithGlobals<GlobalOptions>();
    // --json=<fields>, --jq, --template: checked (and jq loaded) before the command sends anything
    const shaped = globals.jsonFields !== undefined || globals.jq !== undefined || globals.template !== undefined;
    const printer = shaped
      ? await jsonPrinter({ fields: globals.jsonFields === undefined ? undefined : parseFields(globals.jsonFields), jq: globals.jq, template: globals.template })
      : undefined;
    const ctx = createContext(globals, undefined, traits, printer);
    // a variadic argument arrives as one array: its values follow the others
    const args = (cmd.processedArgs as unknown[]).flat().filter((a): a is string => typeof a === "string");
    await fn(ctx, cmd.opts<O>(), args);
  };
}

/** The "Examples:" block of `--help`. */
export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`;
}
