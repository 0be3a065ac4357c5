// `till catalog pull|plan|apply`: the organization's catalog (meters, custom fields, benefits, products,
// discounts) as a file under version control. The work is in cli/catalog/; this file reads and writes files,
// asks for confirmation and prints. The catalog modules load inside the actions, so `till --help` stays light.
import { readFileSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { actingOrganization, polar, unwrap } from "../client.js";
import { examples, withContext } from "../command.js";
import { confirm } from "../confirm.js";
import type { Context } from "../context.js";
import { CliError, ERROR_CODES, EXIT, ExitStatus, UsageError } from "../errors.js";
import type { CatalogClient } from "../catalog/server.js";
import type { Catalog } from "../catalog/model.js";
import { plural } from "../resources.js";

/** The file `pull` writes on a terminal and `plan`/`apply` read unless told -f. */
export const DEFAULT_CATALOG_FILE = "till.yaml";

async function catalogClient(ctx: Context): Promise<CatalogClient> {
  return { core: await polar(ctx), unwrap: (result, what) => unwrap(ctx, result, what) };
}

function readCatalogText(file: string): string {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new UsageError(`-f: there is no ${file} here`, `write it with \`till catalog pull${file === DEFAULT_CATALOG_FILE ? "" : ` -o ${file}`}\`, or name another file with -f`);
    }
    throw new UsageError(`-f: cannot read ${file}: ${code ?? String(err)}`);
  }
}

/** The file, validated; an invalid file is exit 2 (invalid input) with every problem on its own `file:line:` line. */
async function readCatalog(file: string): Promise<Catalog> {
  const { parseCatalog, CatalogFileError } = await import("../catalog/file.js");
  const text = readCatalogText(file);
  try {
    return parseCatalog(text, file === "-" ? "<stdin>" : file);
  } catch (err) {
    if (!(err instanceof CatalogFileError)) throw err;
    throw new CliError(`${err.file} is not a valid catalog:\n${err.message}`, {
      code: "invalid_catalog",
      exitCode: EXIT.usage,
      hint: "`till catalog pull` writes a valid file to start from",
    });
  }
}

interface PlanOptions {
  file: string;
  prune?: boolean;
}

async function makePlan(ctx: Context, opts: PlanOptions) {
  const desired = await readCatalog(opts.file);
  const [{ fetchServerCatalog }, { planCatalog }] = await Promise.all([import("../catalog/server.js"), import("../catalog/plan.js")]);
  const client = await catalogClient(ctx);
  const server = await ctx.out.loading("Reading the catalog", fetchServerCatalog(client));
  return { client, server, plan: planCatalog(desired, server, { prune: opts.prune === true }) };
}

async function pull(ctx: Context, opts: { output?: string }): Promise<void> {
  const { catalogFromServer } = await import("../catalog/pull.js");
  const { fetchServerCatalog } = await import("../catalog/server.js");
  const { catalogDocument, catalogToJson, catalogToYaml } = await import("../catalog/file.js");
  const server = await ctx.out.loading("Reading the catalog", fetchServerCatalog(await catalogClient(ctx)));
  const { catalog, warnings } = catalogFromServer(server);
  for (const w of warnings) ctx.out.warn(w);
  // a pipe or --json gets the document (`till catalog pull > till.yaml`); a person at a terminal gets the file
  // that plan and apply read by default
  const output = opts.output ?? (ctx.out.interactive ? DEFAULT_CATALOG_FILE : undefined);
  if (!output || output === "-") {
    ctx.out.done(catalogDocument(catalog), catalogToYaml(catalog));
    return;
  }
  const text = output.endsWith(".json") ? catalogToJson(catalog) : catalogToYaml(catalog);
  try {
    writeFileSync(output, text);
  } catch (err) {
    throw new UsageError(`-o: cannot write ${output}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const counts = Object.fromEntries(Object.entries(catalog).map(([section, entries]) => [section, (entries as Map<string, unknown>).size]));
  const summary = Object.entries(counts)
    .map(([section, n]) => {
      const label = section.replace("_", " ");
      return `${n} ${n === 1 ? label.slice(0, -1) : label}`;
    })
    .join(", ");
  ctx.out.done({ file: output, counts, warnings }, `Wrote ${output}: ${summary}.`);
}

async function plan(ctx: Context, opts: PlanOptions): Promise<void> {
  const { plan } = await makePlan(ctx, opts);
  const { planExitCode, planJson, renderPlan } = await import("../catalog/plan.js");
  if (ctx.json) ctx.out.printJson(planJson(plan));
  else ctx.out.done(null, renderPlan(plan, ctx.out.style));
  if (planExitCode(plan) !== EXIT.ok) throw new ExitStatus(EXIT.changesPlanned);
}

async function apply(ctx: Context, opts: PlanOptions & { yes?: boolean }): Promise<void> {
  const { client, server, plan } = await makePlan(ctx, opts);
  const { planJson, renderChange, renderPlan } = await import("../catalog/plan.js");
  const [{ applyPlan, planBasis }, runs] = await Promise.all([import("../catalog/apply.js"), import("../catalog/runs.js")]);
  if (!ctx.json) ctx.out.done(null, renderPlan(plan, ctx.out.style));
  if (plan.changes.length === 0) {
    if (ctx.json) ctx.out.printJson({ ...planJson(plan), applied: [] });
    return;
  }
  const file = opts.file === "-" ? "-" : opts.file;
  const target = await actingOrganization(ctx);
  await confirm(ctx, {
    yes: opts.yes,
    action: "apply",
    reason: `${plural(plan.changes.length, "change")} planned to ${target}`,
    hint: `review them with \`till catalog plan -f ${file}\`, then run \`till catalog apply -f ${file} --yes\``,
    question: async () => `Apply ${plural(plan.changes.length, "change")} to ${target} on ${ctx.server}? [y/N] `,
  });
  // the state read and this run's id (kept until it finishes) name every write's Idempotency-Key
  const state = planBasis(server);
  const run = runs.startRun(ctx.env.configDir, ctx.server, state);
  const applied = await applyPlan(client, plan, {
    basis: `${state} ${run}`,
    onChange: (change, stage) => {
      if (stage === "done") ctx.out.info(`${ctx.out.styleErr.green("✓")} ${renderChange(change).split("\n")[0]}`);
    },
  }).catch((err: unknown) => {
    // only a lost answer leaves a write in doubt, for the next run to repeat under its key
    if (!(err instanceof CliError && err.code === ERROR_CODES.network)) runs.finishRun(ctx.env.configDir, ctx.server, state);
    throw err;
  });
  runs.finishRun(ctx.env.configDir, ctx.server, state);
  ctx.out.done({ ...planJson(plan), applied }, `Applied ${plural(applied.length, "change")} to ${target}.`);
}

export function register(program: Command): void {
  const catalog = program
    .command("catalog")
    .description("keep the catalog (products, prices, benefits, discounts, meters, custom fields) in a file: pull, plan, apply")
    .addHelpText(
      "after",
      examples(["till catalog pull", "till catalog plan", "till catalog apply --yes", "till catalog plan -f catalog.json --prune"]) +
        `\nplan and apply read ${DEFAULT_CATALOG_FILE} (the file pull writes) unless told -f. Entries are matched to server\n` +
        "objects by key (stored in their metadata as till_catalog_key, written by apply; until then the key pull\n" +
        "derives from the name). A fresh pull plans no change. Products and meters that apply made and the file\n" +
        "no longer lists are archived; others not in the file are kept and named (--prune archives those products\n" +
        "and meters); benefits, discounts and custom fields left out are deleted only with --prune.\n",
    );

  catalog
    .command("pull")
    .description(`write the organization's catalog as YAML: to ${DEFAULT_CATALOG_FILE} on a terminal, to stdout when piped`)
    .option("-o, --output <file>", `write to this file (JSON when it ends in .json; - for stdout; default on a terminal: ${DEFAULT_CATALOG_FILE})`)
    .addHelpText("after", examples(["till catalog pull", "till catalog pull > till.yaml", "till catalog pull -o catalog.json"]))
    .action(withContext(pull));

  catalog
    .command("plan")
    .description("show the changes that would make the server match the file; exit 0 when none, 2 when some")
    .option("-f, --file <file>", "the catalog file (- for stdin)", DEFAULT_CATALOG_FILE)
    .option("--prune", "also archive the products and meters the file does not list, and delete the benefits, discounts and custom fields apply made that it no longer lists")
    .addHelpText("after", examples(["till catalog plan", "till catalog plan -f till.yaml --json", "till catalog plan --prune"]))
    .action(withContext(plan));

  catalog
    .command("apply")
    .description("make the server match the file (asks first on a terminal; --yes in CI)")
    .option("-f, --file <file>", "the catalog file (- for stdin)", DEFAULT_CATALOG_FILE)
    .option("--prune", "also archive the products and meters the file does not list, and delete the benefits, discounts and custom fields apply made that it no longer lists")
    .option("-y, --yes", "apply without asking")
    .addHelpText("after", examples(["till catalog apply -f till.yaml", "TILL_API_KEY=till_… till catalog apply -f till.yaml --yes"]))
    .action(withContext(apply));
}
