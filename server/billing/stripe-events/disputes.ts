// Disputes opened, updated and closed in Stripe (`charge.dispute.*`): each event reads the dispute as it is now
// and hands it to billing/disputes, which records it, follows its status and settles its close once — so a
// `created` arriving after the `closed` it preceded changes nothing more.
import { fromStripe, upsertFromProcessor } from "../disputes/service.js";
import type { StripeEventHandler, StripeEventOutcome } from "./registry.js";

export const disputeEvents: StripeEventHandler = {
  name: "disputes",
  types: ["charge.dispute.created", "charge.dispute.updated", "charge.dispute.closed"],
  async handle(ctx): Promise<StripeEventOutcome> {
    if (!ctx.event.objectId) return "ignored";
    const dispute = await ctx.stripe.disputes.retrieve(ctx.event.objectId);
    return (await upsertFromProcessor(ctx.db, ctx.organizationId, fromStripe(dispute))) ? "handled" : "ignored";
  },
};
