// Entitlements' own errors (till's, not Polar's: the document shows their bodies' shapes). A reservation the
// balance does not cover is refused with the check's answer; one already settled or expired cannot be settled again.
import { z } from "zod";
import { ENTITLEMENT_REASONS, type EntitlementAnswer } from "../../../shared/entitlements.js";
import { declareBody, declareError, notFound } from "../errors.js";

const REFUSED = {
  customer_not_found: "This customer is not known to till.",
  no_benefit: "The customer has no credit on this meter and no price billing it.",
  insufficient_balance: "The customer's balance on this meter does not cover the units asked.",
  subscription_past_due: "The customer's subscription is past due.",
} as const;

export const reservationRefused = declareBody(
  409,
  z.object({
    error: z.literal("ReservationRefused"),
    detail: z.string(),
    reason: z.enum(ENTITLEMENT_REASONS),
    balance: z.number().nullable(),
    units: z.number(),
  }),
  (a: EntitlementAnswer, units: number) => ({
    error: "ReservationRefused",
    detail: REFUSED[a.reason ?? "insufficient_balance"],
    reason: a.reason ?? "insufficient_balance",
    balance: a.balance,
    units,
  }),
);

export const reservationSettled = declareError({
  status: 409,
  error: "ReservationSettled",
  model: z.object({ error: z.string(), detail: z.string() }),
  detail: (status: string) =>
    status === "expired"
      ? "This reservation expired and its units were released: record the usage as an event, or reserve again with a longer expires_in."
      : `This reservation is already ${status}.`,
});

export const reservationNotFound = () => notFound("Reservation not found");
