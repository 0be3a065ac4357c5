// `till open [dashboard|checkout <id>|portal <customer>]`: the page a seller would otherwise copy a link to —
// the web dashboard, a checkout's payment page, a customer's portal (a fresh one-hour customer session, the
// customer named by id, email or --external-id) —
// opened in the browser when a person is plainly at this machine, printed on stdout otherwise (a pipe,
// --json, --print, CI, SSH, or no browser to open), as `gh browse` does.
import { Argument, type Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { isUuid } from "../flags.js";
import { createCustomerSession, type Addressed } from "./customers.js";
import { openBrowser } from "./login.js";

export const TARGETS = ["dashboard", "checkout", "portal"] as const;
type Target = (typeof TARGETS)[number];

interface OpenOptions extends Addressed {
  print?: boolean;
  returnUrl?: string;
}

interface Page {
  target: Target;
  url: string;
  /** When the link stops working (a customer session), else null. */
  expires_at: string | null;
}

async function pageOf(ctx: Context, target: Target, id: string | undefined, opts: OpenOptions): Promise<Page> {
  if (target === "dashboard") {
    if (id !== undefined) throw new UsageError(`open dashboard: takes no id (got "${id}")`);
    return { target, url: `${ctx.server}/`, expires_at: null };
  }
  if (target === "checkout") {
    if (id === undefined) throw new UsageError("open checkout: missing the checkout's id", "`till checkouts list` shows them");
    if (!isUuid(id)) throw new UsageError(`open checkout: expected an id (a UUID), got "${id}"`, "`till checkouts list` shows them");
    const c = await ctx.out.loading("Loading checkout", v1(ctx).get<{ url: string; expires_at: string }>(`/checkouts/${id.toLowerCase()}`));
    return { target, url: c.url, expires_at: c.expires_at };
  }
  const s = await createCustomerSession(ctx, id, opts);
  return { target, url: s.customer_portal_url, expires_at: s.expires_at };
}

async function open(ctx: Context, opts: OpenOptions, [target = "dashboard", id]: string[]): Promise<void> {
  if (!(TARGETS as readonly string[]).includes(target)) {
    throw new UsageError(`open: unknown page "${target}"; expected ${TARGETS.join(", ")}`, "till open dashboard | till open checkout <id> | till open portal <customer id or email>");
  }
  if (opts.externalId !== undefined && target !== "portal") throw new UsageError("--external-id: only with `till open portal`");
  if (opts.returnUrl !== undefined && target !== "portal") throw new UsageError("--return-url: only with `till open portal`");
  const page = await pageOf(ctx, target as Target, id, opts);
  // only when someone is plainly at this machine: over SSH the browser would open on the far side
  const atTerminal = ctx.out.interactive && process.stdin.isTTY === true && !ctx.env.ci && !ctx.env.ssh;
  const opened = !opts.print && atTerminal ? await openBrowser(page.url) : false;
  if (opened) {
    ctx.out.info(`Opened ${page.url} in your browser.`);
  } else {
    ctx.out.done({ ...page, opened: false }, page.url);
    if (!opts.print && atTerminal) ctx.out.info("No browser could be opened: open the link above yourself.");
  }
  if (page.target === "portal" && !ctx.json && page.expires_at) {
    ctx.out.info(`The portal link works until ${page.expires_at.slice(0, 16).replace("T", " ")} UTC; anyone holding it acts as the customer.`);
  }
}

export function register(program: Command): void {
  program
    .command("open")
    .description("open the dashboard, a checkout's payment page or a customer's portal in the browser")
    .addArgument(new Argument("[page]", `${TARGETS.join(", ")} (default dashboard)`).choices(TARGETS))
    .argument("[id]", "the checkout's id, or the customer's id or email for portal")
    .option("--print", "print the URL instead of opening it")
    .option("--external-id <id>", "portal: address the customer by your own id for them instead of <id>")
    .option("--return-url <url>", "portal: where the portal's back link leads")
    .addHelpText(
      "after",
      examples(["till open", "till open checkout <id>", "till open portal ada@example.com", "till open portal --external-id user_42 --print"]) +
        "\nThe browser opens only when you are at this machine's terminal; in a pipe, with --json or --print, in CI,\n" +
        "over SSH or when no browser can be opened, the URL is printed on stdout instead (--json: {target, url,\n" +
        "expires_at, opened}). A portal link is a new one-hour customer session: anyone holding it acts as the customer.\n",
    )
    .action(withContext(open));
}
