// The schedules beside the worker (main.ts starts them; every replica may: each claims with SKIP LOCKED): every
// interval one pass runs each domain's schedules in the registry's order (server/jobs/registry.ts) — the trial
// reminders and the renewals (billing/renewal/jobs.ts), dunning's retries (billing/dunning/jobs.ts), then the
// checkout expiries (billing/checkouts/jobs.ts) — until stopped. A schedule that throws ends its pass.
import { SCHEDULES, type SchedulePass } from "./registry.js";

export interface Schedules {
  stop(): Promise<void>;
}

/** Runs a pass of the schedules now, then `intervalMs` after each pass ends, until stopped. */
export function startSchedules(deps: SchedulePass & { intervalMs?: number }): Schedules {
  const intervalMs = deps.intervalMs ?? 60_000;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const pass = async (): Promise<void> => {
    for (const schedule of SCHEDULES) await schedule.run(deps);
  };
  const tick = () => {
    running = pass()
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
