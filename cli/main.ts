// The `till` program: global flags, one module per command noun (commands/index.ts), and the one place
// where errors become exit codes. Keep the static imports light: `till --help` loads commander and the
// command definitions only; each command loads what it needs (conf, open, Ink) inside its action.
import { Command, CommanderError, Option } from "commander";
import pkg from "../package.json" with { type: "json" };
import { readEnv } from "./env.js";
import { asCliError, EXIT, ExitStatus, UsageError } from "./errors.js";
import { createOutput } from "./output.js";
import { COMMANDS } from "./commands/index.js";
import { examples } from "./command.js";
import { refuseRepeatedFlags } from "./repeated-flags.js";

export { requestsSent } from "./http.js";

/**
 * The program: the global flags and the commands. Given the run's argv, only the noun it names is registered
 * (`till orgs list --json` registers `orgs`): registering all 24 costs about 5 ms of CPU, a tenth of a
 * `--json` run. Anything else (`till`, `till --help`, `till help …`, a word that is no noun) registers all.
 */
export function buildProgram(argv?: string[]): Command {
  const program = new Command("till")
    .description("Sell digital products from your terminal: sign in, manage organizations and API keys, call the API.")
    .version(pkg.version, "--version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .option("--json", "print machine-readable JSON on stdout (errors as JSON on stderr); --json=<fields> keeps only those fields")
    .addOption(new Option("--json-fields <fields>").hideHelp())
    .option("--jq <expression>", "filter the JSON result with a jq expression (implies --json), such as '.[].id'")
    .option("--template <text>", "format the JSON result: {{.field}} per item of a list (implies --json), such as '{{.id}}\\t{{.name}}'")
    .option("--profile <name>", "use a named profile of stored credentials (default: TILL_PROFILE or \"default\")")
    .option("--server <url>", "till server URL (default: TILL_SERVER, the profile's server, http://localhost:3000)")
    .option("--api-key <key>", "use this organization API key (prefer TILL_API_KEY: arguments are visible in ps and history)")
    .option("--no-color", "disable colour (also NO_COLOR=1 or TERM=dumb)")
    .option("--sandbox", "act on the organization's sandbox (also TILL_SANDBOX=1, or `till sandbox on`)")
    .option("--live", "act on live objects (`till trigger` and `till listen` use the sandbox without it)")
    .option("--verbose", "print each request (method, path, status, request id) on stderr, and name it in errors")
    .option("--debug", "the same as --verbose")
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showHelpAfterError(false)
    .addHelpText(
      "after",
      examples([
        "till login",
        "till orgs list",
        "till keys create ci --scope products:read --expires 90d",
        "TILL_API_KEY=till_… till api GET /v1/products/ --json",
      ]) +
        "\nJSON output (every command that prints a result):\n" +
        "  --json              the result as the API returns it (snake_case), pretty-printed\n" +
        "  --json=id,name      only these fields, of the object or of each item of a list\n" +
        "  --jq '.[].id'       the result through jq (jq itself, built in: no jq binary needed); strings print raw\n" +
        "  --template '{{.id}}\\t{{.name}}'\n" +
        "                      one line per item of a list (once for an object): {{.a.b}} a field, {{.}} the item,\n" +
        "                      {{json .metadata}} a field as JSON; \\t and \\n are a tab and a newline\n" +
        "\nEnvironment:\n  TILL_API_KEY, TILL_SERVER, TILL_SANDBOX, TILL_PROFILE, TILL_CONFIG_DIR, CI, NO_COLOR\n" +
        "\nExit codes:\n" +
        "  0  ok\n" +
        "  1  failure: the server could not do it (not found, conflict, declined), or it could not be reached\n" +
        "  2  usage or invalid input: a flag or argument, a value the server refused, an invalid catalog file,\n" +
        "     a confirmation nobody could give or a cancelled prompt; `catalog plan`: changes planned\n" +
        "  3  refused: `entitlements check` (not with --json, whose data says it), `reservations create` (no hold)\n" +
        "  4  authentication: not signed in, credentials refused, or a scope the credential lacks\n" +
        "  130  cancelled with Ctrl-C at a question: nothing was done (while `till import` waits: it stopped waiting,\n" +
        "       the run goes on at the server)\n",
    );
  const noun = argv ? nounOf(program, argv.slice(2)) : undefined;
  for (const [name, command] of Object.entries(COMMANDS)) if (noun === undefined || name === noun) command.register(program);

  // every command: errors come back to main() as exceptions instead of commander exiting by itself
  const quiet = (cmd: Command): void => {
    cmd.exitOverride().configureOutput({ outputError: () => {} });
    cmd.commands.forEach(quiet);
  };
  quiet(program);
  refuseRepeatedFlags(program);
  return program;
}

/**
 * Registers every command and drops the result: bin/till.js calls it before it writes the main script's code
 * cache, so that the cache holds every command's definition whichever command the run that wrote it named
 * (`till --help` registers them all).
 */
export function compileCommands(): void {
  buildProgram();
}

/**
 * The first operand of `args` if it names one of our nouns, reading the program's global options as commander
 * does: one that takes a value (`--profile <name>`) takes the next word, whatever it is.
 */
function nounOf(program: Command, args: string[]): string | undefined {
  const valued = new Set(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short]));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") return undefined;
    if (arg.startsWith("-")) {
      if (valued.has(arg)) i++;
      continue;
    }
    return Object.hasOwn(COMMANDS, arg) ? arg : undefined;
  }
  return undefined;
}

/** --help, --version and `till help <command>`. */
const HELP_CODES = new Set(["commander.helpDisplayed", "commander.version"]);

/** Commander's usage error as one line: "unknown option '--jsn' (Did you mean --json?)". */
function usageFromCommander(err: CommanderError): UsageError {
  const message = err.message.replace(/^error:\s*/, "").replace(/\s*\n\s*/g, " ");
  return new UsageError(message);
}

/**
 * `till help products create` as `till products create --help`: commander's help command looks up only its
 * first word, so it would print the help of `products`.
 */
function helpRoute(argv: string[]): string[] {
  const [node = "node", script = "till", first, ...rest] = argv;
  return first === "help" && rest.length > 1 ? [node, script, ...rest, "--help"] : argv;
}

/**
 * `--json=id,name` as `--json --json-fields id,name`: --json alone takes no value (`till --json orgs list`
 * must not read "orgs" as fields), so the field list is only ever written with "=". Words after `--` stay.
 */
export function jsonFieldsRoute(argv: string[]): string[] {
  const end = argv.indexOf("--");
  const head = end === -1 ? argv : argv.slice(0, end);
  const tail = end === -1 ? [] : argv.slice(end);
  return [...head.flatMap((a) => (a.startsWith("--json=") ? ["--json", "--json-fields", a.slice("--json=".length)] : [a])), ...tail];
}

/** Whether argv asks for JSON (errors are then JSON too), before commander has parsed it. */
function asksJson(argv: string[]): boolean {
  return argv.some((a) => a === "--json" || a.startsWith("--json=") || a === "--jq" || a.startsWith("--jq=") || a === "--template" || a.startsWith("--template="));
}

/** Runs the CLI and returns the exit code (the caller sets process.exitCode: pending output still drains). */
export async function main(argv: string[] = process.argv): Promise<number> {
  // `till orgs list | head -1`: the reader went away; that is the end of the run, not a crash
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(EXIT.ok);
    throw err;
  });
  const args = jsonFieldsRoute(helpRoute(argv));
  const program = buildProgram(args);
  try {
    await program.parseAsync(args);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError && HELP_CODES.has(err.code)) return EXIT.ok;
    if (err instanceof CommanderError && err.code === "commander.help") {
      // `till help orgs` exits 0; help printed (to stderr) for `till orgs`, which lacks its subcommand, 1:
      // a usage error, unless nothing at all was asked (bare `till`)
      return err.exitCode === 0 || argv.length <= 2 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof ExitStatus) return err.exitCode;
    const error = err instanceof CommanderError ? usageFromCommander(err) : asCliError(err);
    // the error may come before any command built its output (a malformed flag): decide from argv
    const out = createOutput({
      json: asksJson(argv),
      env: readEnv(),
      color: !argv.includes("--no-color"),
      verbose: argv.includes("--verbose") || argv.includes("--debug"),
    });
    out.error(error);
    return error.exitCode;
  }
}
