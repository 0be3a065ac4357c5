// The meter rollups' upkeep beside the worker's other jobs: rebuilds every meter marked `building` (a new meter,
// a changed filter or aggregation, an unarchived meter, or all meters right after migration 0031), in case the
// rebuild started by the change did not run (the process stopped, or it failed). Rebuilds of one organization
// are serialized by its ingest lock, so workers sharing a database never build one meter at the same time twice.
// It runs at once on start, then five seconds after each pass ends.
import type { Job } from "../../tasks/job.js";
import { periodicJob } from "../../tasks/periodic.js";
import { rebuildPendingRollups } from "./service.js";

export const jobs: Job[] = [
  periodicJob({
    name: "rollups",
    firstMs: 0,
    everyMs: 5_000,
    failure: "rollups: rebuild failed",
    pass: (ctx) => () => rebuildPendingRollups(ctx.db),
  }),
];
