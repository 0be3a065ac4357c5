// The values of till's meter_credit extension properties (docs/credits.md), shared by the server, which checks and
// applies them (server/billing/benefits/meter-credit.ts), and the CLI's flags that set them.

/** When a grant credits its units: each period (Polar's), each month of a longer period, or once at purchase. */
export const CREDIT_SCHEDULES = ["every_period", "monthly", "once"] as const;
export type CreditSchedule = (typeof CREDIT_SCHEDULES)[number];
/** Whose usage the credits cover: the customer's, or only the events sent for the subscription. */
export const CREDIT_POOLS = ["customer", "subscription"] as const;
export type CreditPool = (typeof CREDIT_POOLS)[number];
