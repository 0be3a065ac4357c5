// What entitlement checks read of benefits besides their one statement (entitlements/facts-repository.ts): whether a
// feature_flag benefit is named by a feature, asked when a check refuses (an unknown feature is the seller's 422).
import type { Queryable } from "../../db/client.js";
import { isUuid } from "../http.js";
import * as repo from "./repository.js";

/** Whether a live feature_flag benefit of the organization is named by `feature` (its id or `metadata.key`). */
export const featureFlagExists = (db: Queryable, organizationId: string, feature: string) =>
  repo.featureFlagExists(db, organizationId, feature, isUuid(feature) ? feature.toLowerCase() : null);
