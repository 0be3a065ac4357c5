// The wallet's auto-recharge, as a job (server/tasks/processor-jobs.ts): a movement that spent the wallet records one
// in the fan-out's transaction (credits.ts), keyed by that movement. The job decides under the wallet's lock in a short
// transaction — a balance below the threshold charges the saved card the chosen amount, not while a bank debit of the
// wallet is still on its way, nor while blocked by a decline — notes the amount on the job, charges with no
// transaction open, and records the answer under the wallet's lock in another short one. The charge is keyed by the
// movement (charge.ts), so a job asked again after a crash or a lost answer sends the same charge under the same key
// and the processor answers with the first one; a key already answered credits nothing more.
import type { Queryable } from "../../db/client.js";
import type { PaymentProcessor } from "../../payments/processor.js";
import { finishProcessorJob, retryProcessorJob, startProcessorJob, type ProcessorJobEnv, type ProcessorJobRow } from "../../tasks/processor-jobs.js";
import { orgNow } from "../clock.js";
import { chargeableMethods, processingChargeOf } from "../payments/service.js";
import { blockRecharge, chargeForWallet, planCharge, recordWalletCharge, type TopUp, type TopUpOutcome } from "./charge.js";
import * as repo from "./repository.js";

/** `processing`: this recharge's debit is on its way; `in_progress`: an earlier one's is, nothing was charged. */
export type RechargeOutcome = "none" | "blocked" | "recharged" | "declined" | "processing" | "in_progress" | "unprocessed";

/**
 * Waits before asking again when the processor could not answer (an outage, a lost answer: the money may have moved);
 * after the last, the failure is recorded as today's one-off (the seller told) and the next spend tries anew.
 */
export const RECHARGE_RETRY_MS = [30_000, 5 * 60_000, 30 * 60_000];

/** Whether the wallet (locked) is to be recharged now, and how much; else why not. */
async function decide(tx: Queryable, processor: PaymentProcessor, w: repo.WalletRow): Promise<RechargeOutcome | number> {
  if (!w.autoRechargeEnabled || w.autoRechargeAmount <= 0 || w.balance >= w.autoRechargeThreshold) return "none";
  if (await processingChargeOf(tx, w.organizationId, w.customerId, w.currency, "top_up")) return "in_progress";
  // a decline blocks recharging until a card saved after it (or the customer turns it on again)
  if (w.rechargeBlockedAt) {
    const method = (await chargeableMethods(tx, processor, w.organizationId, [w.customerId])).get(w.customerId);
    if (!method || method.createdAt <= w.rechargeBlockedAt) return "blocked";
  }
  return w.autoRechargeAmount;
}

const startedAmount = (job: ProcessorJobRow): number | null => (job.startedAt && typeof job.data?.amount === "number" ? job.data.amount : null);

/** Step one, under the wallet's lock: the amount to charge (noted on the job before the charge), or why none. */
function start(env: ProcessorJobEnv, job: ProcessorJobRow, token: string): Promise<RechargeOutcome | number> {
  return env.db.transaction(async (tx) => {
    const w = await repo.lockWallet(tx, job.organizationId, job.subject);
    if (!w) return "none";
    // started before (a crash, a lost answer): the same charge is asked again, whatever changed since
    const started = startedAmount(job);
    if (started !== null) return started;
    const decided = await decide(tx, env.processor, w);
    if (typeof decided === "number" && !(await startProcessorJob(tx, job.id, token, { amount: decided }))) throw new Error("the job's lease was lost");
    return decided;
  });
}

/** What the charge's answer means for recharging: unblocked by a paid one, blocked (the customer told) by a decline. */
async function afterCharge(tx: Queryable, w: repo.WalletRow, t: TopUp, r: TopUpOutcome, now: Date): Promise<RechargeOutcome> {
  if (r.ok && r.processing) return r.replayed ? "none" : "processing";
  if (r.ok) {
    if (w.rechargeBlockedAt) await repo.updateRecharge(tx, w.organizationId, w.id, { rechargeBlockedAt: null }, now);
    return r.replayed ? "none" : "recharged";
  }
  // the processor could not process it (not the customer's decline): recharging is not stopped and the customer is
  // not emailed; the seller was told, and the next spend below the threshold tries again
  if (r.processorError) return "unprocessed";
  await blockRecharge(tx, w, { amount: t.amount, reason: r.message }, now);
  return "declined";
}

/** The job: decide, charge outside of any transaction, record. */
export async function runRechargeJob(env: ProcessorJobEnv, job: ProcessorJobRow, token: string): Promise<void> {
  const { organizationId, subject: walletId } = job;
  const amount = await start(env, job, token);
  if (typeof amount === "string") {
    await finishProcessorJob(env.db, job.id, token, amount);
    return;
  }
  const t: TopUp = { amount, kind: "auto_recharge", key: `auto_recharge:${job.cause}` };
  // the wallet's customer and currency never change: read without a lock
  const w = await repo.findWallet(env.db, organizationId, walletId);
  const plan = w && (await planCharge(env.db, w, t));
  if (!w || !plan || "done" in plan) {
    await finishProcessorJob(env.db, job.id, token, "none");
    return;
  }
  const attempt = await chargeForWallet(env.db, env.processor, w, t);
  const error = attempt.result.ok ? undefined : attempt.result.processorError;
  const delay = error && (error.transient || error.answerLost) ? RECHARGE_RETRY_MS[job.attempts] : undefined;
  if (delay !== undefined) {
    await retryProcessorJob(env.db, job.id, token, `${error?.code ?? "error"}: ${error?.detail ?? ""}`, delay);
    return;
  }
  await env.db.transaction(async (tx) => {
    const locked = await repo.lockWallet(tx, organizationId, walletId);
    // recorded meanwhile (the bank's late answer to a debit came first): nothing more
    const again = locked && (await planCharge(tx, locked, t));
    const now = await orgNow(tx, organizationId);
    const outcome = !locked || !again || "done" in again
      ? "none"
      : await afterCharge(tx, locked, t, await recordWalletCharge(tx, env.processor, locked, t, { customer: again.customer, attempt }, now), now);
    // another worker took the job over (this lease ran out): its record is the one kept
    if (!(await finishProcessorJob(tx, job.id, token, outcome))) throw new Error("the job's lease was lost");
  });
}
