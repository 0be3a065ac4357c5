// A value flag given twice is an error (commander would keep the last value: `--price 999 --price 4999` made a
// $49.99 product), unless the flag is documented as repeatable and collects every value. Walks every option of
// every command, the global ones included, through the events commander's parser emits.
import type { EventEmitter } from "node:events";
import type { Command, Option } from "commander";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../cli/main.js";
import { isRepeatable } from "../../cli/repeated-flags.js";
import { BIN, tempConfigDir } from "../cli/till.js";

/** Every command with its path ("till products create"). */
function commands(cmd: Command, prefix = ""): [string, Command][] {
  const name = `${prefix}${cmd.name()}`;
  return [[name, cmd], ...cmd.commands.flatMap((c) => commands(c, `${name} `))];
}

const takesValue = (o: Option) => o.required || o.optional;

/** What commander does when the flag appears on the command line; the parser's own refusal of "x" is not ours. */
function give(cmd: Command, option: Option, value: string): unknown {
  try {
    (cmd as unknown as EventEmitter).emit(`option:${option.name()}`, value);
    return undefined;
  } catch (err) {
    return (err as Error).message.includes("was given more than once") ? err : undefined;
  }
}

describe("a flag given twice", () => {
  it("is refused for every value flag of every command, unless its help documents it as repeatable", () => {
    const all = commands(buildProgram());
    let refused = 0;
    let repeatable = 0;
    for (const [path, cmd] of all) {
      for (const option of cmd.options.filter(takesValue)) {
        const where = `${path} ${option.flags}`;
        expect(give(cmd, option, "first"), where).toBeUndefined();
        const second = give(cmd, option, "second");
        if (isRepeatable(option)) {
          repeatable++;
          expect(second, where).toBeUndefined();
          expect(option.description, `${where}: a repeatable flag says so in its help`).toMatch(/repeat|one .+ per flag/i);
        } else {
          refused++;
          expect(second, where).toBeInstanceOf(Error);
          expect((second as Error).message, where).toMatch(/^--[a-z0-9-]+(=<fields>)? was given more than once \("first", then "second"\)$/);
        }
      }
    }
    // the walk saw the commands (and not a handful of them)
    expect(all.length).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(200);
    expect(repeatable).toBeGreaterThan(20);
  });

  it("--price 999 --price 4999: exit 2, the one line, nothing sent", async () => {
    // no server listens on port 9: a request would say it cannot reach it
    const env = { PATH: process.env.PATH ?? "", TILL_CONFIG_DIR: tempConfigDir(), TILL_API_KEY: "till_x", TILL_SERVER: "http://127.0.0.1:9" };
    const r = await execa("node", [BIN, "products", "create", "E-book", "--price", "999", "--price", "4999"], { env, extendEnv: false, reject: false });
    expect([r.exitCode, r.stderr]).toEqual([
      2,
      'error: --price was given more than once ("999", then "4999")\nhint: give --price once: only flags whose help says "repeatable" take several values',
    ]);
    const json = await execa("node", [BIN, "--json=id", "--json=name", "orgs", "list"], { env, extendEnv: false, reject: false });
    expect(json.exitCode).toBe(2);
    expect(json.stderr).toContain('--json=<fields> was given more than once (\\"id\\", then \\"name\\")');
    // repeatable ones still collect; a switch given twice is harmless
    const help = await execa("node", [BIN, "--no-color", "--no-color", "products", "create", "--help"], { env, extendEnv: false, reject: false });
    expect(help.exitCode).toBe(0);
  });
});
