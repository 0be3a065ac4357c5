// Tiers of a metered price on the command line: `--tier <up to>:<unit amount>[+<flat fee>]`,
// repeated in order (`1000:0 --tier 10000:0.2 --tier inf:0.15+500`), and `--tier-type graduated|volume`. The
// tiers are till's own field (`unit_tiers`, sent over plain /v1 JSON: the SDKs would drop it); the rule that
// checks them is shared/tiers.ts's, the server's. Also how a tiered price reads in `till products get`.
import { InvalidArgumentError, type Command } from "commander";
import { describeTiers, tiersIssue, UNIT_TIER_TYPES, type UnitTier, type UnitTiers, type UnitTierType } from "../../shared/tiers.js";
import { UsageError } from "../errors.js";
import { oneOf } from "../flags.js";
import { markRepeatable } from "../repeated-flags.js";

/** Repeated `--tier 1000:0` (up to 1,000 units at 0), `inf:0.15+500` (the rest at 0.15, a 500 flat fee). */
export function collectUnitTier(value: string, previous: UnitTier[] = []): UnitTier[] {
  const m = /^\s*(\d+|inf)\s*:\s*(\d{1,5}(?:\.\d{1,12})?)\s*(?:\+\s*(\d+))?\s*$/.exec(value);
  const upTo = m?.[1] === "inf" ? null : Number(m?.[1]);
  const flat = m?.[3] ? Number(m[3]) : 0;
  if (!m || (upTo !== null && (!Number.isSafeInteger(upTo) || upTo < 1)) || !Number.isSafeInteger(flat) || flat > 99_999_999) {
    throw new InvalidArgumentError(
      "expected <up to>:<unit amount>[+<flat fee>] in minor units, such as 1000:0, 10000:0.2 or inf:0.15+500 (the last tier is inf).",
    );
  }
  return [...previous, { up_to: upTo, unit_amount: m[2]!.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, ""), flat_amount: flat }];
}

/** The wire's unit_tiers from the flags; a usage error names what is wrong with them. */
export function unitTiersOf(tiers: UnitTier[], type: string | undefined): UnitTiers {
  const result: UnitTiers = { tier_type: (type ?? "graduated") as UnitTierType, tiers };
  const issue = tiersIssue(result);
  if (issue) throw new UsageError(`--tier: ${issue.replace("up_to null", "inf")}`);
  return result;
}

export interface TierFlags {
  tier?: UnitTier[];
  tierType?: string;
}

/** The metered price's unit fields: its unit amount, its tiers, or both (the first tier's amount when left out). */
export function meteredAmountFields(o: TierFlags & { unitAmount?: string | undefined }): Record<string, unknown> {
  if (o.tierType && !o.tier) throw new UsageError("--tier-type: only with --tier");
  return { ...(o.unitAmount ? { unit_amount: o.unitAmount } : {}), ...(o.tier ? { unit_tiers: unitTiersOf(o.tier, o.tierType) } : {}) };
}

export function tierOptions(cmd: Command): Command {
  return cmd
    .option("--tier <tier>", "metered: one tier per flag, in order: <up to>:<unit amount>[+<flat fee>], the last up to inf (1000:0, inf:0.15+500)", collectUnitTier)
    .option("--tier-type <type>", `metered: how tiers price the units: ${UNIT_TIER_TYPES.join(" or ")} (default graduated)`, oneOf(UNIT_TIER_TYPES));
}

/** "$0.00 per call for 1–1,000, $0.002 per call above 1,000 (graduated)". */
export const describeUnitTiers = (tiers: UnitTiers, currency: string, unit: string) => describeTiers(tiers, currency, unit, "en-US");

markRepeatable(collectUnitTier);
