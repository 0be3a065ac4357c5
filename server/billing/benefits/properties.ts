// Request bodies of /v1/benefits: one zod schema per benefit type (create and update), with the property
// rules of each type. Limits follow Polar's API (description 3..42 characters, activations 1..50).
import { z } from "zod";
import { assertNever, type BenefitType, type Covers } from "../../../shared/kinds.js";
import { isUuid, metadataInput } from "../http.js";
import { CREDIT_POOLS, CREDIT_SCHEDULES, meterCreditExtensions } from "./meter-credit.js";

const MAX_INT = 2_147_483_647;

const uuidString = z.string().refine(isUuid, { message: "Input should be a valid UUID" });
const description = z.string().trim().min(3).max(42);

export const REPOSITORY_PERMISSIONS = ["pull", "triage", "push", "maintain", "admin"] as const;
export const LICENSE_KEY_TIMEFRAMES = ["day", "month", "year"] as const;

const customProperties = z.object({ note: z.string().max(10_000).nullish() });

/**
 * The SDK sends only `guild_token` (in Polar a token from its Discord bot's OAuth flow that names the guild).
 * Until till has its Discord integration, the token is accepted as given and echoed, and the guild id is
 * `guild_id` when a client sends it, else the token itself.
 */
const discordProperties = z.object({
  guild_token: z.string().min(1).max(1000),
  guild_id: z.string().min(1).max(100).optional(),
  role_id: z.string().min(1).max(100),
  kick_member: z.boolean(),
});

const githubProperties = z.object({
  repository_owner: z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, "Input should be a GitHub account name"),
  repository_name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, "Input should be a GitHub repository name"),
  permission: z.enum(REPOSITORY_PERMISSIONS),
});

const downloadablesProperties = z
  .object({
    archived: z.record(uuidString, z.boolean()).optional(),
    files: z.array(uuidString).min(1).max(100),
  })
  .superRefine((p, ctx) => {
    const files = new Set(p.files.map((f) => f.toLowerCase()));
    for (const id of Object.keys(p.archived ?? {})) {
      if (!files.has(id.toLowerCase())) {
        ctx.addIssue({ code: "custom", path: ["archived", id], message: "Archived files must be among the benefit's files" });
      }
    }
  });

const licenseKeysProperties = z.object({
  prefix: z.string().trim().min(1).max(32).nullish(),
  expires: z.object({ ttl: z.number().int().min(1).max(MAX_INT), timeframe: z.enum(LICENSE_KEY_TIMEFRAMES) }).nullish(),
  activations: z.object({ limit: z.number().int().min(1).max(50), enable_customer_admin: z.boolean() }).nullish(),
  limit_usage: z.number().int().min(1).max(MAX_INT).nullish(),
});

/** Polar's three properties, and till's extensions (docs/credits.md; the SDK's request models drop them). */
const meterCreditProperties = z
  .object({
    units: z.number().int().min(1).max(MAX_INT),
    rollover: z.boolean(),
    meter_id: uuidString,
    schedule: z.enum(CREDIT_SCHEDULES).optional(),
    pool: z.enum(CREDIT_POOLS).optional(),
    per_amount: z.number().int().min(1).max(MAX_INT).nullish(),
    min_units: z.number().int().min(0).max(MAX_INT).nullish(),
    max_units: z.number().int().min(1).max(MAX_INT).nullish(),
  })
  .superRefine((p, ctx) => {
    if ((p.min_units != null || p.max_units != null) && p.per_amount == null) {
      ctx.addIssue({ code: "custom", path: [p.min_units != null ? "min_units" : "max_units"], message: "min_units and max_units bound credits in proportion to the amount paid: give per_amount too" });
    }
    if (p.min_units != null && p.max_units != null && p.min_units > p.max_units) {
      ctx.addIssue({ code: "custom", path: ["max_units"], message: "max_units must be at least min_units" });
    }
  });

const featureFlagProperties = z.object({});

const PROPERTIES = {
  custom: customProperties,
  discord: discordProperties,
  github_repository: githubProperties,
  downloadables: downloadablesProperties,
  license_keys: licenseKeysProperties,
  meter_credit: meterCreditProperties,
  feature_flag: featureFlagProperties,
} as const satisfies { readonly [K in BenefitType]: z.ZodType };

const common = {
  description,
  metadata: metadataInput.optional(),
  organization_id: z.string().nullish(),
};

const createOf = <T extends keyof typeof PROPERTIES>(type: T) =>
  z.object({ type: z.literal(type), ...common, properties: PROPERTIES[type] });

export const BenefitCreateInput = z.discriminatedUnion("type", [
  createOf("custom"),
  createOf("discord"),
  createOf("github_repository"),
  createOf("downloadables"),
  createOf("license_keys"),
  createOf("meter_credit"),
  createOf("feature_flag"),
]);
export type BenefitCreateInput = z.output<typeof BenefitCreateInput>;

const updateOf = <T extends keyof typeof PROPERTIES>(type: T) =>
  z.object({
    type: z.literal(type),
    description: description.nullish(),
    metadata: metadataInput.optional(),
    properties: PROPERTIES[type].nullish(),
  });

export const BenefitUpdateInput = z.discriminatedUnion("type", [
  updateOf("custom"),
  updateOf("discord"),
  updateOf("github_repository"),
  updateOf("downloadables"),
  updateOf("license_keys"),
  updateOf("meter_credit"),
  updateOf("feature_flag"),
]);
export type BenefitUpdateInput = z.output<typeof BenefitUpdateInput>;

/** Every benefit type can be created and updated: a type added to shared/kinds.ts fails here until it can. */
export const EVERY_BENEFIT_TYPE_HAS_INPUTS: Covers<BenefitType, BenefitCreateInput["type"] & BenefitUpdateInput["type"]> = true;

type AnyProperties = NonNullable<BenefitCreateInput["properties"]>;

/** Properties as stored: the wire shape of the type, with every nullable key present. */
export function storedProperties(type: BenefitCreateInput["type"], p: AnyProperties): Record<string, unknown> {
  const v = p as Record<string, unknown>;
  switch (type) {
    case "custom":
      return { note: v.note ?? null };
    case "discord":
      return { guild_id: v.guild_id ?? v.guild_token, role_id: v.role_id, kick_member: v.kick_member, guild_token: v.guild_token };
    case "downloadables": {
      const files = [...new Set((v.files as string[]).map((f) => f.toLowerCase()))];
      const archived = Object.fromEntries(
        Object.entries((v.archived as Record<string, boolean> | undefined) ?? {}).map(([k, b]) => [k.toLowerCase(), b]),
      );
      return { archived, files };
    }
    case "license_keys":
      return {
        prefix: v.prefix ?? null,
        expires: v.expires ?? null,
        activations: v.activations ?? null,
        limit_usage: v.limit_usage ?? null,
      };
    case "meter_credit":
      return { units: v.units, rollover: v.rollover, meter_id: (v.meter_id as string).toLowerCase(), ...meterCreditExtensions(v) };
    case "github_repository":
      return { repository_owner: v.repository_owner, repository_name: v.repository_name, permission: v.permission };
    case "feature_flag":
      return {};
    default:
      return assertNever(type, "benefit type");
  }
}
