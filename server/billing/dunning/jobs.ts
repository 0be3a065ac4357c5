// Dunning's schedule: failed renewal charges whose retry is due, after the renewals of the same pass of the
// schedules (server/jobs/schedules.ts).
import type { Schedule } from "../../tasks/job.js";
import { runDunning, type DunningRun } from "./service.js";

export const schedules: Schedule<DunningRun>[] = [{ name: "dunning", run: runDunning }];
