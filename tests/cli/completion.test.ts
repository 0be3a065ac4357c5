// `till completion`, run in real bash, zsh and fish: commands, subcommands and aliases, flags, and the values of
// flags and arguments, all read from the program itself (no server). The other seller tools:
// seller-tools.test.ts.
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../cli/main.js";
import { ok } from "./seller-cli-fixtures.js";
import { tempConfigDir, till, type TillResult } from "./till.js";

const run = (args: string[]): Promise<TillResult> => till(args, { configDir: tempConfigDir() });
const tmp = (name: string) => path.join(os.tmpdir(), `till-completion-${process.pid}-${name}`);

// a shell this machine lacks is left out, as vitest.config.ts says in one line (never in CI: TILL_TEST_ALL=1)
const missingShells = (process.env.TILL_TEST_MISSING ?? "").split(" ");

describe("till completion", () => {
  const scripts: Record<string, string> = {};
  beforeAll(async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const r = ok(await run(["completion", shell]));
      scripts[shell] = tmp(`completion.${shell}`);
      writeFileSync(scripts[shell], r.stdout);
    }
  });

  /** What bash's completion function offers for the words typed (the last one being completed). */
  const bash = async (...words: string[]) => {
    const driver = 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _till_complete; printf "%s\\n" "${COMPREPLY[@]}"';
    const r = await execa("bash", ["--norc", "-c", driver, "_", scripts.bash as string, "till", ...words]);
    return r.stdout.split("\n").filter((l) => l !== "");
  };

  it("bash: commands, subcommands and aliases, flags, and the values of flags and arguments, from the program itself", async () => {
    const program = buildProgram();
    const top = program.commands.map((c) => c.name());
    expect(top).toEqual(expect.arrayContaining(["completion", "open", "files", "events", "trigger"]));
    const [all, pro, products, listFlags, aliasFlags, afterGlobal, shells, services, types, value, orgs, intervals, reasons] = await Promise.all([
      bash(""),
      bash("pro"),
      bash("products", ""),
      bash("products", "list", "--li"),
      bash("products", "ls", "--"),
      bash("--profile", "products", ""),
      bash("completion", ""),
      bash("files", "upload", "--service", ""),
      bash("trigger", "order.p"),
      bash("--server", ""),
      bash("--json", "orgs", "sw"),
      bash("products", "create", "Pro", "--recurring", ""),
      bash("refunds", "create", "--reason", "cu"),
    ]);
    expect(all).toEqual(top);
    expect(pro).toEqual(["products"]);
    const subcommands = program.commands.find((c) => c.name() === "products")?.commands.map((c) => c.name());
    expect(products).toEqual(subcommands);
    expect(listFlags).toEqual(["--limit", "--live"]);
    // an alias leads to the same flags; the global ones everywhere
    expect(aliasFlags).toEqual(expect.arrayContaining(["--query", "--archived", "--all", "--json", "--jq", "--template", "--help"]));
    // the word after a flag that takes a value is that value, not a command
    expect(afterGlobal).toEqual(top);
    expect(shells).toEqual(["bash", "zsh", "fish"]);
    expect(services).toEqual(["downloadable", "product_media"]);
    expect(types).toEqual(["order.paid"]);
    expect(value).toEqual([]);
    expect(orgs).toEqual(["switch"]);
    // the values a flag checks itself are offered too
    expect(intervals).toEqual(["day", "week", "month", "year"]);
    expect(reasons).toEqual(["customer_request"]);
  });

  it.skipIf(missingShells.includes("zsh"))("zsh: the script parses, and its completion function offers the same candidates (compsys calls stubbed)", async () => {
    await execa("zsh", ["-n", scripts.zsh as string]);
    const driver = `compdef() { :; }
      source "$1"
      _describe() { local -a a; a=("\${(@P)4}"); print -rl -- "\${(@)a%%:*}"; }
      compadd() { shift; print -rl -- "$@"; }
      _default() { print default; }
      shift; words=("$@"); CURRENT=$#; PREFIX=\${words[CURRENT]}; _till`;
    const zsh = async (...words: string[]) => (await execa("zsh", ["-f", "-c", driver, "_", scripts.zsh as string, "till", ...words])).stdout.split("\n");
    const [products, flags, shells, value] = await Promise.all([zsh("products", ""), zsh("products", "list", "--li"), zsh("completion", ""), zsh("--server", "")]);
    expect(products).toEqual(["list", "get", "create", "update", "archive"]);
    expect(flags).toEqual(expect.arrayContaining(["--limit", "--live", "--json"]));
    expect(shells).toEqual(["bash", "zsh", "fish"]);
    expect(value).toEqual(["default"]);
  });

  it.skipIf(missingShells.includes("fish"))("fish: the script parses, and `complete -C` offers commands with their descriptions", async () => {
    await execa("fish", ["-n", scripts.fish as string]);
    const fish = async (line: string) => (await execa("fish", ["--no-config", "-c", `source $argv[1]; complete -C ${JSON.stringify(line)}`, scripts.fish as string])).stdout.split("\n");
    const [pro, orgs, shells, types] = await Promise.all([fish("till pro"), fish("till --profile x orgs sw"), fish("till completion "), fish("till trigger order.p")]);
    expect(pro).toEqual(["products\tlist, create, update and archive products and their prices"]);
    expect(orgs).toEqual([expect.stringMatching(/^switch\t/)]);
    expect(shells.sort()).toEqual(["bash", "fish", "zsh"]);
    expect(types).toEqual(["order.paid"]);
  });

  it("--help says how to install it; an unknown or missing shell is exit 2", async () => {
    const [help, zshOut, unknown, missing] = await Promise.all([run(["completion", "--help"]), run(["completion", "zsh"]), run(["completion", "tcsh"]), run(["completion"])]);
    expect(ok(help).stdout).toContain("~/.config/fish/completions/till.fish");
    expect(help.stdout).toContain("source <(till completion zsh)");
    expect(ok(zshOut).stdout.startsWith("#compdef till\n")).toBe(true);
    expect([unknown.exitCode, missing.exitCode]).toEqual([2, 2]);
    expect(unknown.stderr).toContain("bash, zsh, fish");
  });
});
