// The wallets' part in the worker: a wallet credited or spent, its auto-recharge charges in the fan-out's
// transaction through the worker's payment processor (the server's, as the renewals'); the wallet's events go
// out with the fan-out's next batch (no job of their own to wake).
import type { JobSubscriber } from "../../tasks/job.js";
import { walletSubscriber } from "./credits.js";

export const subscribers: JobSubscriber[] = [{ subscriber: (ctx) => walletSubscriber(ctx.processor) }];
