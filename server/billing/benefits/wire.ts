// The Polar `Benefit`, `BenefitPublic` and `BenefitGrant` shapes, built from benefit / benefit_grant rows.
// Emits the superset of SDK 0.47.1 and 0.49.0 (0.49.0 adds `visibility` and `visibility_configurable`).
import type { InferSelectModel } from "drizzle-orm";
import type { Metadata, benefit, benefitGrant } from "../../db/schema/index.js";
import { assertNever, isBenefitType } from "../../../shared/kinds.js";
import { toCustomerWire, type CustomerRow } from "../customers/wire.js";
import { toMemberWire, type MemberRow } from "../members/wire.js";
import { meterCreditExtensions } from "./meter-credit.js";

export type BenefitRow = InferSelectModel<typeof benefit>;
export type BenefitGrantRow = InferSelectModel<typeof benefitGrant>;


export interface BenefitPublicWire {
  id: string;
  created_at: string;
  modified_at: string | null;
  type: string;
  description: string;
  selectable: boolean;
  deletable: boolean;
  is_deleted: boolean;
  organization_id: string;
}

export interface BenefitWire extends BenefitPublicWire {
  metadata: Metadata;
  properties: Record<string, unknown>;
  /** 0.49.0: till has no draft/private benefits yet, so every benefit is public and not configurable. */
  visibility: "public";
  visibility_configurable: boolean;
}

const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);
const bool = (v: unknown, fallback = false): boolean => (typeof v === "boolean" ? v : fallback);
const obj = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/**
 * The stored properties in the wire shape of their type. Writes store this shape already; reading through it
 * again keeps rows written by other code paths (grant engine, direct inserts) from breaking the SDK's parse.
 */
export function wireProperties(storedType: string, stored: Record<string, unknown>): Record<string, unknown> {
  // a type this version does not know has no properties it could shape
  const type = isBenefitType(storedType) ? storedType : "feature_flag";
  switch (type) {
    case "custom":
      return { note: typeof stored.note === "string" ? stored.note : null };
    case "discord":
      return {
        guild_id: str(stored.guild_id),
        role_id: str(stored.role_id),
        kick_member: bool(stored.kick_member),
        guild_token: str(stored.guild_token),
      };
    case "github_repository":
      return {
        repository_owner: str(stored.repository_owner),
        repository_name: str(stored.repository_name),
        permission: str(stored.permission, "pull"),
      };
    case "downloadables": {
      const archived = obj(stored.archived) ?? {};
      return {
        archived: Object.fromEntries(Object.entries(archived).filter(([, v]) => typeof v === "boolean")),
        files: Array.isArray(stored.files) ? stored.files.filter((f) => typeof f === "string") : [],
      };
    }
    case "license_keys": {
      const expires = obj(stored.expires);
      const activations = obj(stored.activations);
      return {
        prefix: typeof stored.prefix === "string" ? stored.prefix : null,
        expires: expires ? { ttl: expires.ttl, timeframe: expires.timeframe } : null,
        activations: activations
          ? { limit: activations.limit, enable_customer_admin: bool(activations.enable_customer_admin) }
          : null,
        limit_usage: typeof stored.limit_usage === "number" ? stored.limit_usage : null,
      };
    }
    case "meter_credit":
      return { units: stored.units, rollover: bool(stored.rollover), meter_id: str(stored.meter_id), ...meterCreditExtensions(stored) };
    case "feature_flag":
      return {};
    default:
      return assertNever(type, "benefit type");
  }
}

export function toBenefitPublicWire(b: BenefitPublicWire): BenefitPublicWire {
  return {
    id: b.id,
    created_at: b.created_at,
    modified_at: b.modified_at,
    type: b.type,
    description: b.description,
    selectable: b.selectable,
    deletable: b.deletable,
    is_deleted: b.is_deleted,
    organization_id: b.organization_id,
  };
}

export function toBenefitWire(row: BenefitRow): BenefitWire {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    modified_at: row.modifiedAt?.toISOString() ?? null,
    type: row.type,
    description: row.description,
    selectable: row.selectable,
    deletable: row.deletable,
    is_deleted: row.isDeleted,
    organization_id: row.organizationId,
    metadata: row.metadata,
    properties: wireProperties(row.type, row.properties),
    visibility: "public",
    visibility_configurable: false,
  };
}

// ---- grants ------------------------------------------------------------------------------------

/** Granted means granted and not revoked since (the two timestamps of a row are exclusive in practice). */
export const grantIsGranted = (g: BenefitGrantRow) => g.grantedAt !== null && g.revokedAt === null;

/**
 * `b` may be a row or a benefit already in its wire shape (the grant engine has the product's). `m`: the team
 * member the grant was made for (its `member_id`), when it still exists; a grant whose member was removed keeps
 * `member_id` only until the removal's SET NULL clears it.
 */
export function toBenefitGrantWire(g: BenefitGrantRow, b: BenefitRow | BenefitWire, c: CustomerRow, m: MemberRow | null = null) {
  return {
    created_at: g.createdAt.toISOString(),
    modified_at: g.modifiedAt?.toISOString() ?? null,
    id: g.id,
    granted_at: g.grantedAt?.toISOString() ?? null,
    is_granted: grantIsGranted(g),
    revoked_at: g.revokedAt?.toISOString() ?? null,
    is_revoked: g.revokedAt !== null,
    subscription_id: g.subscriptionId ?? null,
    order_id: g.orderId ?? null,
    customer_id: g.customerId,
    member_id: g.memberId ?? null,
    benefit_id: g.benefitId,
    error: g.error ?? null,
    customer: toCustomerWire(c),
    member: m && m.id === g.memberId ? toMemberWire(m) : null,
    benefit: "createdAt" in b ? toBenefitWire(b) : b,
    properties: g.properties,
    previous_properties: g.previousProperties ?? null,
  };
}
export type BenefitGrantWire = ReturnType<typeof toBenefitGrantWire>;

/** An entry of `CustomerState.granted_benefits`. */
export function toCustomerStateGrantWire(g: BenefitGrantRow, b: BenefitRow) {
  return {
    id: g.id,
    created_at: g.createdAt.toISOString(),
    modified_at: g.modifiedAt?.toISOString() ?? null,
    granted_at: (g.grantedAt ?? g.createdAt).toISOString(),
    benefit_id: b.id,
    benefit_type: b.type,
    benefit_metadata: b.metadata,
    properties: g.properties,
  };
}
export type CustomerStateGrantWire = ReturnType<typeof toCustomerStateGrantWire>;
