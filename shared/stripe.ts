// The organization's Stripe connection as GET/PUT /v1/stripe/connection answer it (till's own route), read by
// the server's service and the CLI's `till stripe`.

export interface StripeConnectionWire {
  connected: true;
  /** Stripe's account id; null when the (restricted) key may not read the account. */
  account_id: string | null;
  livemode: boolean;
  /** The key's kind and last four characters, never the key. */
  secret_key: string;
  publishable_key: string;
  /** id null: events come through `stripe listen` (its own signing secret), not an endpoint till made. */
  webhook_endpoint: { id: string | null; url: string };
  last_event: { id: string; type: string; created_at: string; received_at: string } | null;
  connected_at: string;
}

export type StripeStatusWire = StripeConnectionWire | { connected: false };
