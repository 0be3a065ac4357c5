// The renewals' schedules, run in this order in every pass of the schedules (server/jobs/schedules.ts): trials
// without a card ending soon are reminded first (trial-reminders.ts), then the subscriptions whose period ended
// are renewed (run.ts); the monthly credits of longer periods come before them, each after billing the month's
// overage (monthly-usage.ts), as the test clock runs them at one stop.
import type { Schedule } from "../../tasks/job.js";
import { runMonthlyCreditsAndOverage } from "./monthly-usage.js";
import { runRenewals, type RenewalRun } from "./run.js";
import { runTrialReminders } from "./trial-reminders.js";

export const schedules: Schedule<RenewalRun>[] = [
  { name: "trial-reminders", run: runTrialReminders },
  { name: "monthly-credits", run: runMonthlyCreditsAndOverage },
  { name: "renewals", run: runRenewals },
];
