// The seller's dunning settings (`dunning_settings` on the organization, a till extension of Polar's wire, like
// tax_settings): how long after a failed renewal charge it is tried again, and how the subscription ends after
// the last failure. Checked here, stored as given on billing_organization.dunning_settings.
import { z } from "zod";

export const FINAL_ACTIONS = ["cancel", "unpaid"] as const;
export type FinalAction = (typeof FINAL_ACTIONS)[number];

export interface DunningSettings {
  /** Days to wait before each retry, each counted from the previous failed attempt. [] retries never. */
  retry_intervals_days: number[];
  /**
   * After the last failure: `cancel` ends the subscription (canceled); `unpaid` keeps it, unpaid, payable from the
   * portal. Both revoke its benefits.
   */
  final_action: FinalAction;
}

export const DEFAULT_DUNNING_SETTINGS: DunningSettings = { retry_intervals_days: [3, 5, 7], final_action: "cancel" };

export const DunningSettingsInput = z.object({
  retry_intervals_days: z.array(z.int("Input should be a whole number of days").min(1).max(60)).max(10).optional(),
  final_action: z.enum(FINAL_ACTIONS).optional(),
});
export type DunningSettingsInput = z.output<typeof DunningSettingsInput>;

export function normalizeDunningSettings(input: DunningSettingsInput, previous: DunningSettings): DunningSettings {
  return {
    retry_intervals_days: input.retry_intervals_days ?? previous.retry_intervals_days,
    final_action: input.final_action ?? previous.final_action,
  };
}

/** The stored settings (jsonb) read back, defaults filling what is missing. */
export function dunningSettingsOf(stored: unknown): DunningSettings {
  const s = (stored ?? {}) as Partial<DunningSettings>;
  const days = Array.isArray(s.retry_intervals_days) ? s.retry_intervals_days.filter((d) => Number.isInteger(d) && d > 0) : null;
  return {
    retry_intervals_days: days ?? DEFAULT_DUNNING_SETTINGS.retry_intervals_days,
    final_action: s.final_action === "unpaid" ? "unpaid" : "cancel",
  };
}

export const DAY_MS = 86_400_000;
