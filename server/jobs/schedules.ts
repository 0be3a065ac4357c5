// Periodic jobs beside the webhook worker: the trial reminders (billing/renewal/trial-reminders.ts), the billing
// run (billing/renewal/run.ts renews subscriptions whose period has ended), then dunning's retries and the checkout expiries (billing/checkouts/expiry.ts), which claim
// the same way, every interval until stopped.
import { runDunning } from "../billing/dunning/service.js";
import { runCheckoutExpiries } from "../billing/checkouts/expiry.js";
import { runRenewals, type RenewalRun } from "../billing/renewal/run.js";
import { runTrialReminders } from "../billing/renewal/trial-reminders.js";

export interface Schedules {
  stop(): Promise<void>;
}

/** Runs the trial reminders, the renewals, then the dunning retries, then the checkout expiries, every `intervalMs` until stopped. */
export function startSchedules(deps: Omit<RenewalRun, "now" | "organizationId"> & { intervalMs?: number }): Schedules {
  const intervalMs = deps.intervalMs ?? 60_000;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    // trials without a card ending soon are reminded first (billing/renewal/trial-reminders.ts), then renewed
    running = runTrialReminders(deps)
      .then(() => runRenewals(deps))
      // failed renewal charges whose retry is due (billing/dunning), after the renewals of the same pass
      .then(() => runDunning(deps))
      // open checkouts past their expiry, announced once with checkout.expired (billing/checkouts/expiry.ts)
      .then(() => runCheckoutExpiries(deps))
      .then(() => undefined)
      .catch((err: unknown) => deps.log?.error(err, "renewals: run failed"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
