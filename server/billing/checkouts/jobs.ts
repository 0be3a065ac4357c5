// The checkouts' schedule: open checkouts past their expiry, announced once with checkout.expired (expiry.ts),
// last in every pass of the schedules (server/jobs/schedules.ts).
import type { Schedule } from "../../tasks/job.js";
import { runCheckoutExpiries, type CheckoutExpiryRun } from "./expiry.js";

export const schedules: Schedule<CheckoutExpiryRun>[] = [{ name: "checkout-expiries", run: runCheckoutExpiries }];
