// Entitlements' schedule: holds past their expiry marked expired, in every pass of the schedules (they stopped
// counting against balances at their expiry already; this keeps the table's open holds few).
import type { Schedule } from "../../tasks/job.js";
import type { ScheduledPass } from "../../tasks/claim.js";
import { expireReservations } from "./reservations.js";

export const schedules: Schedule<ScheduledPass>[] = [{ name: "reservation-expiries", run: expireReservations }];
