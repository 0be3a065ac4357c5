// Whether an organization has meter credits at all: a subscription change's preview (subscription-changes/preview.ts)
// asks before it lets a regrant move what the renewal credits.
import type { Queryable } from "../../db/client.js";
import * as repo from "./repository.js";

/** Whether the organization has ever made a meter_credit benefit (a deleted one's grants may still credit). */
export const hasMeterCreditBenefit = (db: Queryable, organizationId: string) => repo.hasMeterCreditBenefit(db, organizationId);
