// The subscriptions' part in the worker: a product's benefits changed, its subscribers are re-granted in the
// fan-out's transaction; the grants' events go out with the fan-out's next batch (no job of their own to wake).
// The monthly credits of longer billing periods are a schedule (monthly-credits.ts).
import type { JobSubscriber, Schedule } from "../../tasks/job.js";
import type { ScheduledPass } from "../../tasks/claim.js";
import { outboxSubscriber } from "./product-benefits.js";
import { runMonthlyCredits } from "./monthly-credits.js";

export const subscribers: JobSubscriber[] = [{ subscriber: () => outboxSubscriber }];

export const schedules: Schedule<ScheduledPass>[] = [{ name: "monthly-credits", run: runMonthlyCredits }];
