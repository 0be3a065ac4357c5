// The handlers of processor events, by the module that owns what they change: one line per kind of facts.
import type { ProcessorEventHandlers } from "./registry.js";
import { disputeEvents } from "./disputes.js";
import { paymentEvents } from "./payments.js";
import { refundEvents } from "./refunds.js";

export const PROCESSOR_EVENT_HANDLERS: ProcessorEventHandlers = { payment: paymentEvents, refunds: refundEvents, dispute: disputeEvents };
