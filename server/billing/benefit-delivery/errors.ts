// How a delivery fails: `transient` (5xx, rate limited, network) is tried again with backoff for up to a day;
// `permanent` (no such repository, the account not connected, the bot lacks permission) sets the grant's error
// until something changes (the account connected, the benefit or integration fixed, a regrant).
export type FailureKind = "transient" | "permanent";

export class DeliveryError extends Error {
  constructor(
    readonly kind: FailureKind,
    /** The grant error's `type`: account_not_connected, integration_missing, not_found, forbidden, … */
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export const permanent = (type: string, message: string) => new DeliveryError("permanent", type, message);

/** An HTTP failure by status: 5xx, 408 and 429 are transient; 401/403 forbidden; 404 not_found; others invalid. */
export function fromStatus(status: number | undefined, message: string, rateLimited = false): DeliveryError {
  if (status === undefined || status === 0) return new DeliveryError("transient", "network", message);
  if (status >= 500 || status === 408 || status === 429 || rateLimited) return new DeliveryError("transient", status === 429 || rateLimited ? "rate_limited" : "unavailable", message);
  if (status === 401 || status === 403) return permanent("forbidden", message);
  if (status === 404) return permanent("not_found", message);
  return permanent("invalid", message);
}
