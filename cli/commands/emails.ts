// `till emails preview <type>`: the customer emails till sends for the organization (receipts, subscription
// notices), rendered by the server with the organization's name and logo on sample data
// (GET /v1/organizations/{id}/email-preview/{type}). The HTML goes to stdout or to --out; --text prints the
// plain-text part; --json prints subject, HTML and text.
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { oneOf } from "../flags.js";
import { CUSTOMER_EMAIL_TYPES } from "../../shared/customer-emails.js";
import { resolveOrganizationId } from "./orgs.js";

interface EmailPreview {
  type: string;
  subject: string;
  html: string;
  text: string;
}

interface PreviewFlags {
  out?: string;
  text?: boolean;
  org?: string;
}

async function preview(ctx: Context, opts: PreviewFlags, [type = ""]: string[]) {
  const org = await resolveOrganizationId(ctx, opts.org);
  const p = await ctx.out.loading("Rendering", v1(ctx).get<EmailPreview>(`/organizations/${org}/email-preview/${type}`));
  const body = opts.text ? p.text : p.html;
  if (opts.out) {
    writeFileSync(opts.out, body);
    ctx.out.done(p, `Wrote ${opts.out}`);
    ctx.out.info(`Subject: ${p.subject}`);
    return;
  }
  ctx.out.info(`Subject: ${p.subject}`);
  ctx.out.done(p, body);
}

export function register(program: Command): void {
  const emails = program
    .command("emails")
    .description("the emails your customers get (receipts, subscription notices)")
    .addHelpText(
      "after",
      examples(["till emails preview order_confirmation --out receipt.html", "till emails preview subscription_past_due --text"]) +
        "\nWhich ones are sent is the organization's customer_email_settings (PATCH /v1/organizations/{id}).\n",
    );

  emails
    .command("preview")
    .description("render one customer email with your organization's name and logo on sample data")
    .argument("<type>", `one of ${CUSTOMER_EMAIL_TYPES.join(", ")}`, oneOf(CUSTOMER_EMAIL_TYPES))
    .option("--out <file>", "write it to this file instead of stdout")
    .option("--text", "the plain-text part instead of the HTML")
    .option("--org <id|slug>", "the organization (default: the active one)")
    .addHelpText(
      "after",
      examples([
        "till emails preview order_confirmation --out receipt.html",
        "till emails preview subscription_cancellation --text",
        "till emails preview subscription_confirmation --json",
      ]),
    )
    .action(withContext(preview));
}
