// cli/main.ts's buildProgram: a run that names a command noun registers only that noun (the others cost CPU
// time at every start), with the same definitions and help as when all are registered; anything else
// registers them all.
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../cli/commands/index.js";
import { buildProgram } from "../../cli/main.js";

const NOUNS = Object.keys(COMMANDS);
const names = (program: Command): string[] => program.commands.map((c) => c.name());

/** Every command under `cmd` with its full help text, as `till … --help` prints it. */
function helpTexts(cmd: Command, prefix = ""): [string, string][] {
  const name = `${prefix}${cmd.name()}`;
  let help = "";
  cmd.configureOutput({ writeOut: (s) => (help += s), writeErr: (s) => (help += s) });
  cmd.outputHelp();
  return [[name, help], ...cmd.commands.flatMap((c) => helpTexts(c, `${name} `))];
}

describe("the command nouns", () => {
  it("each module is listed under the name of the one command it registers", () => {
    for (const [name, module] of Object.entries(COMMANDS)) {
      const program = new Command("till");
      module.register(program);
      expect(names(program), name).toEqual([name]);
    }
  });

  it("a run naming a noun registers that noun only, with the same commands and help as a full program", () => {
    const full = buildProgram();
    expect(names(full)).toEqual(NOUNS);
    for (const noun of NOUNS) {
      const program = buildProgram(["node", "till", noun, "--json"]);
      expect(names(program), noun).toEqual([noun]);
      const [one, all] = [program, full].map((p) => p.commands.find((c) => c.name() === noun));
      expect(one && helpTexts(one), noun).toEqual(all && helpTexts(all));
    }
  });

  it("finds the noun after global options, a value-taking one taking the next word whatever it is", () => {
    const registered = (...args: string[]) => names(buildProgram(["node", "till", ...args]));
    expect(registered("--json", "--profile", "work", "orgs", "list")).toEqual(["orgs"]);
    expect(registered("--profile", "orgs", "products", "list")).toEqual(["products"]);
    expect(registered("--server=http://127.0.0.1:1", "--no-color", "api", "GET", "/v1/products/")).toEqual(["api"]);
    expect(registered("--api-key", "--json", "keys", "list")).toEqual(["keys"]);
  });

  it("registers every noun for `till`, --help, --version, `help …`, a word that is no noun, or none after --", () => {
    for (const args of [[], ["--help"], ["--version"], ["help", "orgs"], ["ogrs", "list"], ["--", "orgs"], ["--profile", "orgs"], ["constructor"]]) {
      expect(names(buildProgram(["node", "till", ...args])), args.join(" ")).toEqual(NOUNS);
    }
  });
});
