// The seller's plan settings (`plan_settings` on the organization, a till extension of Polar's wire like
// dunning_settings; kept in billing_organization.details): whether downgrades wait for the period's end, and
// whether a trial may start without a card, when its customer is reminded and how it ends without one.
import { z } from "zod";

export const TRIAL_END_ACTIONS = ["cancel", "past_due"] as const;
export type TrialEndAction = (typeof TRIAL_END_ACTIONS)[number];

export interface PlanSettings {
  /**
   * A product change to a lower monthly-normalised price, whose request names no proration behavior, waits for
   * the period's end (`next_period`); a change to a higher one applies now (the organization's behavior, or
   * `invoice` when that is `next_period`).
   */
  downgrades_at_period_end: boolean;
  /** A checkout of a product with a trial completes without a payment method. */
  trials_without_card: boolean;
  /** Days before a trial's end the customer is emailed a reminder (0: never). */
  trial_reminder_days: number;
  /**
   * A trial that ends without a card on file: `cancel` ends the subscription (canceled, benefits revoked);
   * `past_due` bills it as any renewal, declined, so it goes through dunning until a card is added.
   */
  trial_end_without_card: TrialEndAction;
  /**
   * Whether a past-due subscription's benefits still answer entitlement checks (`true`, while dunning retries: the
   * customer keeps access) or are refused with `subscription_past_due` from the first failed renewal.
   */
  access_while_past_due: boolean;
}

export const DEFAULT_PLAN_SETTINGS: PlanSettings = {
  downgrades_at_period_end: false,
  trials_without_card: false,
  trial_reminder_days: 3,
  trial_end_without_card: "cancel",
  access_while_past_due: true,
};

export const PlanSettingsInput = z.object({
  downgrades_at_period_end: z.boolean().optional(),
  trials_without_card: z.boolean().optional(),
  trial_reminder_days: z.int("Input should be a whole number of days").min(0).max(30).optional(),
  trial_end_without_card: z.enum(TRIAL_END_ACTIONS).optional(),
  access_while_past_due: z.boolean().optional(),
});
export type PlanSettingsInput = z.output<typeof PlanSettingsInput>;

/** The stored settings (billing_organization.details.plan_settings) read back, defaults filling what is missing. */
export function planSettingsOf(details: Record<string, unknown> | null | undefined): PlanSettings {
  const s = (details?.plan_settings ?? {}) as Partial<PlanSettings>;
  const days = s.trial_reminder_days;
  return {
    downgrades_at_period_end: s.downgrades_at_period_end === true,
    trials_without_card: s.trials_without_card === true,
    trial_reminder_days: typeof days === "number" && Number.isInteger(days) && days >= 0 ? days : DEFAULT_PLAN_SETTINGS.trial_reminder_days,
    trial_end_without_card: s.trial_end_without_card === "past_due" ? "past_due" : "cancel",
    access_while_past_due: s.access_while_past_due !== false,
  };
}

/** The settings after an update: the given fields replace the stored ones; null resets the defaults. */
export function nextPlanSettings(input: PlanSettingsInput | null, previous: PlanSettings): PlanSettings {
  if (input === null) return { ...DEFAULT_PLAN_SETTINGS };
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<PlanSettings>;
  return { ...previous, ...given };
}
