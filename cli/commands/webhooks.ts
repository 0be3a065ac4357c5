// `till webhooks endpoints list|get|create|update|delete|reset-secret`, `till webhooks deliveries` and
// `till webhooks redeliver <event-id>` (/v1/webhooks). An endpoint's signing secret is printed only when it
// is made (create, reset-secret): list, get and update leave it out, --json included.
import { InvalidArgumentError, type Command } from "commander";
import { v1 } from "../client.js";
import { examples, withContext } from "../command.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { oneOf, parseId } from "../flags.js";
import type { Column, Output } from "../output.js";
import { changes, listOptions, listResource, type ListOptions } from "../resources.js";
import { SUBSCRIBABLE_EVENT_TYPES, TILL_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from "../../shared/webhook-events.js";
import { markRepeatable } from "../repeated-flags.js";

export { WEBHOOK_EVENT_TYPES };

const FORMATS = ["raw", "discord", "slack"] as const;

export interface WireEndpoint {
  id: string;
  url: string;
  name: string | null;
  format: string;
  secret?: string;
  organization_id: string;
  events: string[];
  enabled: boolean;
  created_at: string;
  modified_at: string | null;
}

export interface WireDelivery {
  id: string;
  created_at: string;
  succeeded: boolean;
  http_code: number | null;
  response: string | null;
  error: string | null;
  attempt: number;
  duration_ms: number;
  webhook_endpoint_id: string;
  webhook_event: { id: string; type: string; attempts: number; succeeded: boolean | null; next_attempt_at: string | null };
}

/** `--events order.paid,refund.created` (repeatable): checked against the types the server knows. */
export function collectEvents(value: string, previous: string[] = []): string[] {
  const list = value.split(",").map((t) => t.trim()).filter((t) => t !== "");
  if (list.length === 0) throw new InvalidArgumentError("expected event types separated by commas, such as order.paid,refund.created.");
  return [...new Set([...previous, ...list.map(parseEventType)])];
}

/** One event type the server knows. */
export function parseEventType(value: string): string {
  const type = value.trim();
  if (!(SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(type)) {
    throw new InvalidArgumentError(`unknown event type "${type}" (\`till webhooks endpoints create --help\` lists them).`);
  }
  return type;
}

/** The endpoint without its signing secret: it is shown once, when it is made. */
function withoutSecret(e: WireEndpoint): Omit<WireEndpoint, "secret"> {
  const { secret: _secret, ...rest } = e;
  return rest;
}

const describeEvents = (events: string[]) =>
  events.length >= WEBHOOK_EVENT_TYPES.length && WEBHOOK_EVENT_TYPES.every((t) => events.includes(t)) ? "all" : events.join(", ") || "none";

function endpointFields(e: WireEndpoint) {
  return [
    { label: "ID", value: e.id },
    { label: "URL", value: e.url },
    { label: "Name", value: e.name ?? "" },
    { label: "Format", value: e.format },
    { label: "Enabled", value: e.enabled ? "yes" : "no" },
    { label: "Events", value: describeEvents(e.events) },
  ];
}

interface EndpointFlags {
  url?: string;
  events?: string[];
  allEvents?: boolean;
  format?: (typeof FORMATS)[number];
  name?: string;
  enable?: boolean;
  disable?: boolean;
}

function eventsOf(o: EndpointFlags): string[] | undefined {
  if (o.events && o.allEvents) throw new UsageError("--events and --all-events: pass one of them");
  return o.allEvents ? [...WEBHOOK_EVENT_TYPES] : o.events;
}

function checkUrl(flag: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new UsageError(`${flag}: expected an http(s) URL such as https://example.com/webhooks, got "${value}"`);
  }
  return value;
}

async function list(ctx: Context, opts: ListOptions) {
  // the same Output, except that the rows it prints (--json included) leave the secret out
  const out: Output = Object.create(ctx.out) as Output;
  out.table = (rows, columns, o) => ctx.out.table(rows.map((r) => withoutSecret(r as WireEndpoint)), columns as Column<unknown>[], o);
  await listResource<WireEndpoint>({ ...ctx, out }, opts, {
    path: "/webhooks/endpoints",
    noun: "webhook endpoints",
    columns: [
      { header: "ID", value: (e) => e.id },
      { header: "URL", value: (e) => e.url },
      { header: "NAME", value: (e) => e.name ?? "" },
      { header: "FORMAT", value: (e) => e.format },
      { header: "ENABLED", value: (e) => (e.enabled ? "yes" : "no") },
      { header: "EVENTS", value: (e) => (describeEvents(e.events) === "all" ? "all" : String(e.events.length)) },
    ],
    empty: "No webhook endpoints yet: add one with `till webhooks endpoints create <url> --all-events`.",
  });
}

async function get(ctx: Context, _opts: object, [id = ""]: string[]) {
  const e = await ctx.out.loading("Loading webhook endpoint", v1(ctx).get<WireEndpoint>(`/webhooks/endpoints/${id}`));
  await ctx.out.record(withoutSecret(e), endpointFields(e));
}

/** A new secret: --json prints the endpoint with it; otherwise its fields, the secret last, and a note on stderr. */
async function showWithSecret(ctx: Context, e: WireEndpoint, note: string) {
  ctx.out.info(`${note} Save the signing secret now: till shows it only when it is made.`);
  await ctx.out.record(e, [...endpointFields(e), { label: "Secret", value: e.secret ?? "" }]);
}

async function create(ctx: Context, opts: EndpointFlags, [url = ""]: string[]) {
  const events = eventsOf(opts);
  if (!events) throw new UsageError("an endpoint needs the events it gets: --events order.paid,refund.created or --all-events");
  const body = { url: checkUrl("<url>", url), events, format: opts.format ?? "raw", name: opts.name };
  const e = await ctx.out.loading("Creating webhook endpoint", v1(ctx).send<WireEndpoint>("POST", "/webhooks/endpoints", body));
  await showWithSecret(ctx, e, `Created webhook endpoint ${e.id}.`);
}

async function update(ctx: Context, opts: EndpointFlags, [id = ""]: string[]) {
  if (opts.enable && opts.disable) throw new UsageError("--enable and --disable: pass one of them");
  const body = changes(
    {
      url: opts.url !== undefined ? checkUrl("--url", opts.url) : undefined,
      events: eventsOf(opts),
      format: opts.format,
      name: opts.name,
      enabled: opts.enable ? true : opts.disable ? false : undefined,
    },
    "--url, --events, --all-events, --format, --name, --enable or --disable",
  );
  const e = await ctx.out.loading("Updating webhook endpoint", v1(ctx).send<WireEndpoint>("PATCH", `/webhooks/endpoints/${id}`, body));
  ctx.out.done(withoutSecret(e), `Updated webhook endpoint ${e.id} (${e.enabled ? "enabled" : "disabled"}, ${describeEvents(e.events)}).`);
}

async function remove(ctx: Context, _opts: object, [id = ""]: string[]) {
  await ctx.out.loading("Deleting webhook endpoint", v1(ctx).send("DELETE", `/webhooks/endpoints/${id}`));
  ctx.out.done({ id, deleted: true }, `Deleted webhook endpoint ${id}.`);
}

async function resetSecret(ctx: Context, _opts: object, [id = ""]: string[]) {
  const e = await ctx.out.loading("Resetting the signing secret", v1(ctx).send<WireEndpoint>("PATCH", `/webhooks/endpoints/${id}/secret`, {}));
  await showWithSecret(ctx, e, `New signing secret for ${e.id}; the old one no longer signs.`);
}

interface DeliveryFlags extends ListOptions {
  endpoint?: string;
  eventType?: string;
  succeeded?: boolean;
  failed?: boolean;
}

const describeResult = (d: WireDelivery) =>
  d.http_code !== null ? `${d.succeeded ? "ok" : "failed"} ${d.http_code}` : `failed: ${d.error ?? d.response ?? "no answer"}`;

async function deliveries(ctx: Context, opts: DeliveryFlags) {
  if (opts.succeeded && opts.failed) throw new UsageError("--succeeded and --failed: pass one of them");
  const query = {
    endpoint_id: opts.endpoint,
    event_type: opts.eventType,
    succeeded: opts.succeeded ? "true" : opts.failed ? "false" : undefined,
  };
  await listResource<WireDelivery>(ctx, opts, {
    path: "/webhooks/deliveries",
    noun: "deliveries",
    query,
    columns: [
      { header: "TIME", value: (d) => d.created_at.slice(0, 19).replace("T", " ") },
      { header: "EVENT", value: (d) => d.webhook_event.type },
      { header: "EVENT ID", value: (d) => d.webhook_event.id },
      { header: "ATTEMPT", value: (d) => String(d.attempt) },
      { header: "RESULT", value: describeResult },
      { header: "TIME TAKEN", value: (d) => `${d.duration_ms} ms` },
      { header: "ENDPOINT", value: (d) => d.webhook_endpoint_id },
    ],
    empty: "No deliveries yet: events reach your endpoints as they happen (`till trigger order.paid` makes one).",
  });
}

async function redeliver(ctx: Context, _opts: object, [id = ""]: string[]) {
  await ctx.out.loading("Queueing the redelivery", v1(ctx).send("POST", `/webhooks/events/${id}/redeliver`, {}));
  ctx.out.done({ id, redelivery: "queued" }, `Queued event ${id} for redelivery (same webhook-id: receivers can deduplicate).`);
}

function endpointOptions(cmd: Command): Command {
  return cmd
    .option("--events <types>", "event types it gets, separated by commas (repeatable)", collectEvents)
    .option("--all-events", "every event type")
    .option("--format <format>", `body format: ${FORMATS.join(", ")} (default raw: Polar's signed JSON)`, oneOf(FORMATS))
    .option("--name <name>", "a name to recognise it by");
}

const TYPES_HELP =
  `\nEvent types:\n${WEBHOOK_EVENT_TYPES.map((t) => `  ${t}`).join("\n")}\n` +
  `till's own (never part of --all-events; name them with --events):\n${TILL_EVENT_TYPES.map((t) => `  ${t}`).join("\n")}\n`;

export function register(program: Command): void {
  const webhooks = program
    .command("webhooks")
    .description("manage webhook endpoints, read the delivery log, redeliver events")
    .addHelpText(
      "after",
      examples([
        "till webhooks endpoints create https://example.com/hooks --events order.paid,subscription.canceled",
        "till webhooks endpoints list",
        "till webhooks deliveries --failed",
        "till webhooks redeliver <event-id>",
      ]),
    );

  const endpoints = webhooks
    .command("endpoints")
    .description("create, list, change and delete the URLs events are sent to")
    .addHelpText(
      "after",
      examples([
        "till webhooks endpoints create https://example.com/hooks --all-events",
        "till webhooks endpoints list",
        "till webhooks endpoints update <id> --disable",
        "till webhooks endpoints reset-secret <id>",
      ]),
    );

  listOptions(endpoints.command("list").alias("ls").description("list webhook endpoints"))
    .addHelpText("after", examples(["till webhooks endpoints list", "till webhooks endpoints list --all --json"]))
    .action(withContext(list));

  endpoints
    .command("get")
    .description("show a webhook endpoint (without its secret)")
    .argument("<id>", "the endpoint's id", parseId)
    .addHelpText("after", examples(["till webhooks endpoints get <id>", "till webhooks endpoints get <id> --json"]))
    .action(withContext(get));

  endpointOptions(
    endpoints
      .command("create")
      .description("add an endpoint; its signing secret is printed once")
      .argument("<url>", "where events are POSTed (https; a private address only with TILL_WEBHOOKS_ALLOW_PRIVATE on the server)"),
  )
    .addHelpText(
      "after",
      examples([
        "till webhooks endpoints create https://example.com/hooks --events order.paid,order.refunded",
        "till webhooks endpoints create https://example.com/hooks --all-events --name production",
        "till webhooks endpoints create https://discord.com/api/webhooks/… --format discord --events order.paid",
      ]) + TYPES_HELP,
    )
    .action(withContext(create));

  endpointOptions(
    endpoints
      .command("update")
      .description("change an endpoint's URL, events, format or name; enable or disable it")
      .argument("<id>", "the endpoint's id", parseId)
      .option("--url <url>", "a new URL")
      .option("--enable", "send to it again (its failure count starts over)")
      .option("--disable", "stop sending to it; pending events are skipped"),
  )
    .addHelpText(
      "after",
      examples(["till webhooks endpoints update <id> --events order.paid", "till webhooks endpoints update <id> --enable", "till webhooks endpoints update <id> --all-events --format raw"]),
    )
    .action(withContext(update));

  endpoints
    .command("delete")
    .description("delete an endpoint with its pending events and delivery log")
    .argument("<id>", "the endpoint's id", parseId)
    .addHelpText("after", examples(["till webhooks endpoints delete <id>"]))
    .action(withContext(remove));

  endpoints
    .command("reset-secret")
    .description("replace an endpoint's signing secret; the new one is printed once")
    .argument("<id>", "the endpoint's id", parseId)
    .addHelpText("after", examples(["till webhooks endpoints reset-secret <id>", "till webhooks endpoints reset-secret <id> --json"]))
    .action(withContext(resetSecret));

  listOptions(
    webhooks
      .command("deliveries")
      .description("the delivery log: every attempt with the response status, time taken and attempt number")
      .option("--endpoint <id>", "only this endpoint's deliveries", parseId)
      .option("--event-type <type>", "only events of this type", parseEventType)
      .option("--succeeded", "only successful attempts")
      .option("--failed", "only failed attempts"),
  )
    .addHelpText(
      "after",
      examples(["till webhooks deliveries", "till webhooks deliveries --failed --limit 50", "till webhooks deliveries --endpoint <id> --event-type order.paid --json"]),
    )
    .action(withContext(deliveries));

  webhooks
    .command("redeliver")
    .description("send an event to its endpoint again (same webhook-id)")
    .argument("<event-id>", "the event's id (EVENT ID in `till webhooks deliveries`)", parseId)
    .addHelpText("after", examples(["till webhooks redeliver <event-id>"]))
    .action(withContext(redeliver));
}

markRepeatable(collectEvents);
