// The organizations' own errors: creating one with an organization's API key, or refused by the accounts'
// service (403 CannotCreateOrganizationError), and deciding a review of details not under review (409).
import { z } from "zod";
import { declareError } from "../errors.js";

export const apiKeyCannotCreateOrganization = declareError({
  status: 403,
  error: "CannotCreateOrganizationError",
  detail: "An organization's API key cannot create organizations: sign in as a user (till login) to create one.",
});

/** The accounts' service refused: its own message, when it gave one. */
export const cannotCreateOrganization = declareError({
  status: 403,
  error: "CannotCreateOrganizationError",
  detail: (message: string) => message || "You cannot create organizations.",
});

/** till's own (Polar has no review): the document shows its body's shape. */
export const notUnderReview = declareError({
  status: 409,
  error: "OrganizationNotUnderReview",
  model: z.object({ error: z.string(), detail: z.string() }),
  detail: (why: string) => why,
});
