// The renewals' schedules, run in this order in every pass of the schedules (server/jobs/schedules.ts): trials
// without a card ending soon are reminded first (trial-reminders.ts), then the subscriptions whose period ended
// are renewed (run.ts).
import type { Schedule } from "../../tasks/job.js";
import { runRenewals, type RenewalRun } from "./run.js";
import { runTrialReminders } from "./trial-reminders.js";

export const schedules: Schedule<RenewalRun>[] = [
  { name: "trial-reminders", run: runTrialReminders },
  { name: "renewals", run: runRenewals },
];
