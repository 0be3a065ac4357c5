// `till keys create|list|revoke`: organization API keys (better-auth's api-key routes, as the signed-in
// user). A new key is printed once and never stored; `list` shows only its first characters. Keys are the
// live organization's; in sandbox mode `create` makes a sandbox key (till_test_…), which acts on its sandbox.
import { InvalidArgumentError, type Command } from "commander";
import { BILLING_RESOURCES, type BillingAction, type BillingResource, type Scope } from "../../shared/scopes.js";
import { authClient } from "../client.js";
import { examples, withContext } from "../command.js";
import { requireSession, type Context } from "../context.js";
import { UsageError } from "../errors.js";
import { SANDBOX_KEY_PREFIX } from "../mode.js";
import { listOptions, type ListOptions } from "../resources.js";
import { resolveOrganizationId } from "./orgs.js";
import { markRepeatable } from "../repeated-flags.js";

/** A key as /api/auth/api-key/create and /page return it (`key` only from create). */
export interface ApiKey {
  id: string;
  name: string | null;
  start: string | null;
  prefix: string | null;
  referenceId: string;
  enabled: boolean;
  expiresAt: string | null;
  createdAt: string;
  permissions: Record<string, string[]> | null;
  key?: string;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800, y: 31_536_000 };

/** "30d" → 2592000 seconds; commander shows the message with the option's name. */
export function parseDuration(value: string): number {
  const m = /^(\d+)\s*([smhdwy])$/.exec(value.trim());
  const seconds = m ? Number(m[1]) * (UNIT_SECONDS[m[2] ?? ""] ?? 0) : 0;
  if (!m || seconds <= 0 || !Number.isSafeInteger(seconds)) {
    throw new InvalidArgumentError("expected a duration such as 90d, 12h or 1y.");
  }
  return seconds;
}

const ACTIONS: readonly BillingAction[] = ["read", "write"];

/** Repeated `--scope products:read` values, collected. */
export function collectScope(value: string, previous: Scope[] = []): Scope[] {
  const [resource, action, extra] = value.trim().split(":");
  if (
    extra !== undefined ||
    !BILLING_RESOURCES.includes(resource as BillingResource) ||
    !ACTIONS.includes(action as BillingAction)
  ) {
    throw new InvalidArgumentError(`expected <resource>:<read|write> with a resource among ${BILLING_RESOURCES.join(", ")}.`);
  }
  return [...previous, value.trim() as Scope];
}

/** ["products:read", "products:write"] → {products: ["read", "write"]} */
export function scopesToPermissions(scopes: Scope[]): Record<string, BillingAction[]> {
  const permissions: Record<string, BillingAction[]> = {};
  for (const scope of scopes) {
    const [resource, action] = scope.split(":") as [BillingResource, BillingAction];
    const actions = (permissions[resource] ??= []);
    if (!actions.includes(action)) actions.push(action);
  }
  return permissions;
}

function describePermissions(p: Record<string, string[]> | null): string {
  if (!p) return "all";
  const billing = Object.entries(p).filter(([r]) => (BILLING_RESOURCES as readonly string[]).includes(r));
  if (billing.length === BILLING_RESOURCES.length && billing.every(([, a]) => a.includes("write"))) return "all";
  return billing.map(([r, a]) => `${r}:${a.join("+")}`).join(" ") || "none";
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : "never");

interface CreateOptions {
  org?: string;
  scope?: Scope[];
  expires?: number;
}

/** Keys belong to the live organization, whichever side the run is on. */
const liveOrganizationId = (ctx: Context, org: string | undefined) => resolveOrganizationId({ ...ctx, sandbox: false }, org);

async function create(ctx: Context, opts: CreateOptions, [name = ""]: string[]): Promise<void> {
  const auth = authClient(ctx, requireSession(ctx));
  const organizationId = await liveOrganizationId(ctx, opts.org);
  const body = {
    organizationId,
    name,
    ...(ctx.sandbox ? { prefix: SANDBOX_KEY_PREFIX } : {}),
    ...(opts.expires !== undefined ? { expiresIn: opts.expires } : {}),
    ...(opts.scope && opts.scope.length > 0 ? { permissions: scopesToPermissions(opts.scope) } : {}),
  };
  const key = await ctx.out.loading("Creating key", auth.post<ApiKey>("/api-key/create", body));
  const data = {
    id: key.id,
    name: key.name,
    key: key.key,
    organization_id: key.referenceId,
    sandbox: ctx.sandbox,
    permissions: key.permissions,
    expires_at: key.expiresAt,
    created_at: key.createdAt,
  };
  ctx.out.info(`Created ${ctx.sandbox ? "sandbox " : ""}key ${key.name ?? ""} (${key.id}). Copy it now: it will not be shown again.`);
  // piped or --json: the key alone (or the data), so `KEY=$(till keys create ci)` works
  if (!ctx.out.interactive) return ctx.out.done(data, key.key ?? "");
  await ctx.out.record(data, [
    { label: "Key", value: key.key ?? "" },
    { label: "ID", value: key.id },
    { label: "Scopes", value: describePermissions(key.permissions) },
    { label: "Expires", value: day(key.expiresAt) },
  ]);
}

/** One page of the keys (/api/auth/api-key/page: counted and cut in the database). */
interface KeyPage {
  items: ApiKey[];
  pagination: { total_count: number; max_page: number };
}

interface KeyListOptions extends ListOptions {
  org?: string;
  side?: "live" | "sandbox";
}

async function list(ctx: Context, opts: KeyListOptions): Promise<void> {
  if (opts.all && (opts.page !== undefined || opts.limit !== undefined)) {
    throw new UsageError("--all: lists every page; leave out --page and --limit");
  }
  const auth = authClient(ctx, requireSession(ctx));
  const page = opts.page ?? 1;
  const limit = opts.all ? 100 : (opts.limit ?? 10);
  const load = async () => {
    const organizationId = await liveOrganizationId(ctx, opts.org);
    const at = (n: number) => auth.get<KeyPage>("/api-key/page", { organizationId, side: opts.side ?? "all", page: String(n), limit: String(limit) });
    const first = await at(opts.all ? 1 : page);
    if (!opts.all) return first;
    const items = [...first.items];
    // bounded by the count the first page reported
    for (let n = 2; n <= first.pagination.max_page; n++) items.push(...(await at(n)).items);
    return { items, pagination: first.pagination };
  };
  const { items, pagination } = await ctx.out.loading("Loading keys", load());
  if (!opts.all && pagination.total_count > 0 && items.length < pagination.total_count) {
    const first = (page - 1) * limit + 1;
    const next = page < pagination.max_page ? `--page ${page + 1} for more, ` : "";
    if (items.length > 0) ctx.out.info(`Showing ${first}–${first + items.length - 1} of ${pagination.total_count} keys: ${next}--all for every one.`);
    else ctx.out.info(`Page ${page} is past the last one (${pagination.max_page}); ${pagination.total_count} keys in all.`);
  }
  await ctx.out.table(
    items,
    [
      { header: "ID", value: (k) => k.id },
      { header: "NAME", value: (k) => k.name ?? "" },
      { header: "KEY", value: (k) => `${k.start ?? k.prefix ?? ""}…` },
      { header: "SCOPES", value: (k) => describePermissions(k.permissions) },
      { header: "EXPIRES", value: (k) => day(k.expiresAt) },
      { header: "CREATED", value: (k) => day(k.createdAt) },
    ],
    { empty: "No API keys in this organization: create one with `till keys create <name>`." },
  );
}

const parseSide = (value: string): "live" | "sandbox" => {
  if (value === "live" || value === "sandbox") return value;
  throw new InvalidArgumentError("expected live or sandbox.");
};

async function revoke(ctx: Context, _opts: object, [id = ""]: string[]): Promise<void> {
  const auth = authClient(ctx, requireSession(ctx));
  await auth.post("/api-key/delete", { keyId: id });
  ctx.out.done({ id, revoked: true }, `Revoked key ${id}.`);
}

export function register(program: Command): void {
  const keys = program
    .command("keys")
    .description("create, list and revoke organization API keys (for CI: TILL_API_KEY)")
    .addHelpText("after", examples(["till keys create ci --scope products:read", "till keys list", "till keys revoke <id>"]));

  keys
    .command("create")
    .description("create an API key in the active organization (with --sandbox: a sandbox key, till_test_…); the key is printed once")
    .argument("<name>", "a name to recognise the key by")
    .option("--org <org>", "organization id or slug (default: the active one)")
    .option("--scope <resource:action>", "grant a scope, repeatable (default: every billing scope)", collectScope)
    .option("--expires <duration>", "lifetime such as 90d, 12h or 1y (default: never)", parseDuration)
    .addHelpText(
      "after",
      examples([
        "till keys create ci",
        "till keys create ci-tests --sandbox",
        "till keys create deploy --scope products:read --scope products:write --expires 90d",
        "export TILL_API_KEY=$(till keys create ci)",
      ]) + `\nScopes: <resource>:read or <resource>:write (write implies read); resources:\n  ${BILLING_RESOURCES.join(", ")}\n`,
    )
    .action(withContext(create));

  listOptions(
    keys
      .command("list")
      .alias("ls")
      .description("list the API keys of the active organization, newest first: live (till_live_…) and sandbox (till_test_…)")
      .option("--org <org>", "organization id or slug (default: the active one)")
      .option("--side <side>", "only live or only sandbox keys", parseSide),
  )
    .addHelpText("after", examples(["till keys list", "till keys list --side sandbox --limit 20 --page 2", "till keys list --org acme --all --json"]))
    .action(withContext(list));

  keys
    .command("revoke")
    .description("delete an API key; requests made with it fail from then on")
    .argument("<id>", "the key's id (from `till keys list`)")
    .addHelpText("after", examples(["till keys revoke 5b0c…"]))
    .action(withContext(revoke));
}

markRepeatable(collectScope);
