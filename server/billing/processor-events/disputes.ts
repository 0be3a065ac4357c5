// Disputes opened, updated and closed at the processor: each event's dispute, as the processor holds it now, goes to
// billing/disputes, which records it, follows its status and settles its close once — so a `created` arriving after
// the `closed` it preceded changes nothing more.
import { upsertFromProcessor } from "../disputes/service.js";
import type { ProcessorEventHandler, ProcessorEventOutcome } from "./registry.js";

export const disputeEvents: ProcessorEventHandler<"dispute"> = {
  name: "disputes",
  async handle(ctx, dispute): Promise<ProcessorEventOutcome> {
    return (await upsertFromProcessor(ctx.db, ctx.organizationId, dispute)) ? "handled" : "ignored";
  },
};
