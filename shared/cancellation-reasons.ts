// Polar's reasons a customer gives for cancelling a subscription: the server's inputs, the metrics' breakdown
// and the CLI's --reason read the one list.
export const CANCELLATION_REASONS = [
  "customer_service",
  "low_quality",
  "missing_features",
  "switched_service",
  "too_complex",
  "too_expensive",
  "unused",
  "other",
] as const;
