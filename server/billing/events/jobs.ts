// The meter rollups' upkeep beside the worker's other jobs: rebuilds every meter marked `building` (a new meter,
// a changed filter or aggregation, an unarchived meter, or all meters right after migration 0031), in case the
// rebuild started by the change did not run (the process stopped, or it failed). Rebuilds of one organization
// are serialized by its ingest lock, so workers sharing a database never build one meter at the same time twice.
// It runs at once on start, then `intervalMs` after each pass ends.
import type { Db } from "../../db/client.js";
import type { Job, WorkerLog } from "../../tasks/job.js";
import { rebuildPendingRollups } from "./service.js";

export interface RollupUpkeep {
  start(): void;
  stop(): Promise<void>;
}

export function createRollupUpkeep(deps: { db: Db; log: WorkerLog; intervalMs?: number }): RollupUpkeep {
  const intervalMs = deps.intervalMs ?? 5_000;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = rebuildPendingRollups(deps.db)
      .then(() => undefined)
      .catch((err: unknown) => deps.log.error(err, "rollups: rebuild failed"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

export const jobs: Job[] = [
  {
    name: "rollups",
    create(ctx) {
      const upkeep = createRollupUpkeep({ db: ctx.db, log: ctx.log });
      return {
        start: () => upkeep.start(),
        wake() {},
        stop: () => upkeep.stop(),
        // a crash does not wait for a rebuild in progress
        kill: () => void upkeep.stop(),
      };
    },
  },
];
