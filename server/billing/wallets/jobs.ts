// The wallets' part in the worker: a paid order of a credit product credits its wallet in the fan-out's transaction
// (its events go out with the fan-out's next batch); a wallet spent below its threshold gets a recharge job there,
// which charges through the worker's payment processor (the server's, as the renewals') after the commit.
import type { JobSubscriber } from "../../tasks/job.js";
import { processorCallJob } from "../../tasks/processor-jobs.js";
import { rechargeSubscriber, walletSubscriber } from "./credits.js";
import { runRechargeJob } from "./recharge.js";

export const jobs = [processorCallJob({ name: "wallet-recharges", kind: "wallet_recharge", run: runRechargeJob })];

export const subscribers: JobSubscriber[] = [
  { subscriber: () => walletSubscriber },
  { subscriber: () => rechargeSubscriber, wakes: "wallet-recharges" },
];
