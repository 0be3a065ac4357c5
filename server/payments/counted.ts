// The payments every processor takes, counted for the metrics endpoint (server/metrics/): a processor wrapped here
// counts each `pay` and `charge` by its processor, kind and outcome, whichever domain asked (a checkout, a renewal,
// a wallet's top-up), and the processors it routes to are counted alike.
import { payments } from "../metrics/registry.js";
import type { PaymentProcessor, PaymentResult } from "./processor.js";

type Kind = "payment" | "setup" | "charge";

export function countedProcessor(p: PaymentProcessor): PaymentProcessor {
  const counted = async (kind: Kind, run: () => Promise<PaymentResult>): Promise<PaymentResult> => {
    try {
      const result = await run();
      payments.inc({ processor: p.id, kind, outcome: result.ok ? "succeeded" : result.next ? "requires_action" : "failed" });
      return result;
    } catch (err) {
      payments.inc({ processor: p.id, kind, outcome: "error" });
      throw err;
    }
  };
  return {
    ...p,
    pay: (request) => counted(request.amount > 0 ? "payment" : "setup", () => p.pay(request)),
    charge: (request) => counted("charge", () => p.charge(request)),
    // a processor answering for itself (`this`) stays this one, a copy of it included; one routed to is wrapped
    async forOrganization(db, organizationId) {
      const found = await p.forOrganization.call(this, db, organizationId);
      return found === this ? found : countedProcessor(found);
    },
    forConnection(connection) {
      const found = p.forConnection.call(this, connection);
      return found === this ? found : countedProcessor(found);
    },
  };
}
