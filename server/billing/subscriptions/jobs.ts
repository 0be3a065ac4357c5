// The subscriptions' part in the worker: a product's benefits changed, its subscribers are re-granted in the
// fan-out's transaction; the grants' events go out with the fan-out's next batch (no job of their own to wake).
// The monthly credits of longer billing periods are the renewal's schedule (renewal/monthly-usage.ts: it bills the
// month's overage before crediting the next).
import type { JobSubscriber } from "../../tasks/job.js";
import { outboxSubscriber } from "./product-benefits.js";

export const subscribers: JobSubscriber[] = [{ subscriber: () => outboxSubscriber }];
