// The body of a webhook per endpoint format: `raw` is Polar's `{type, timestamp, data}` with data in its API
// shape; `discord` and `slack` are chat messages summarising the event for those services' incoming webhooks.
export const WEBHOOK_FORMATS = ["raw", "discord", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface EventMessage {
  type: string;
  /** ISO datetime of the event. */
  timestamp: string;
  data: Record<string, unknown>;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : typeof v === "number" ? String(v) : undefined);

function money(amount: unknown, currency: unknown): string | undefined {
  if (typeof amount !== "number" || typeof currency !== "string") return undefined;
  return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
}

/** A few facts worth a line in a chat message, from whatever the resource has. */
function facts(data: Record<string, unknown>): Array<[string, string]> {
  const customer = data.customer as Record<string, unknown> | undefined;
  const product = data.product as Record<string, unknown> | undefined;
  const out: Array<[string, string | undefined]> = [
    ["ID", str(data.id)],
    ["Name", str(data.name)],
    ["Description", str(data.description)],
    ["Status", str(data.status)],
    ["Email", str(data.email) ?? str(customer?.email)],
    ["Product", str(product?.name)],
    ["Amount", money(data.total_amount ?? data.amount, data.currency)],
  ];
  return out.filter((f): f is [string, string] => f[1] !== undefined).map(([k, v]) => [k, v.slice(0, 200)]);
}

export function formatBody(format: string, event: EventMessage): string {
  if (format === "discord") {
    return JSON.stringify({
      embeds: [
        {
          title: event.type,
          timestamp: event.timestamp,
          fields: facts(event.data).map(([name, value]) => ({ name, value, inline: true })),
        },
      ],
    });
  }
  if (format === "slack") {
    const lines = facts(event.data).map(([k, v]) => `*${k}:* ${v}`);
    return JSON.stringify({
      text: event.type,
      blocks: [
        { type: "header", text: { type: "plain_text", text: event.type } },
        ...(lines.length ? [{ type: "section", text: { type: "mrkdwn", text: lines.join("\n") } }] : []),
      ],
    });
  }
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
}
