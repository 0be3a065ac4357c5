// `till catalog apply`: makes a plan's changes through the SDK, one change after the other. Every call is keyed
// by the catalog key (created objects carry it in metadata from their first call), so a run that stops midway
// leaves objects a new plan recognises: running apply again plans only what is left and converges.
// Every write also carries an Idempotency-Key derived from its step of the plan and the server state the plan
// was made from: a run restarted before the server saw its writes commit (they are not in its reading yet)
// repeats them under the same keys, and the server answers what it did instead of doing it twice.
import { createHash, randomUUID } from "node:crypto";
import type { PolarCore } from "@polar-sh/sdk/core.js";
import type { RequestOptions } from "@polar-sh/sdk/lib/sdks.js";
import { benefitsCreate } from "@polar-sh/sdk/funcs/benefitsCreate.js";
import { benefitsDelete } from "@polar-sh/sdk/funcs/benefitsDelete.js";
import { benefitsUpdate } from "@polar-sh/sdk/funcs/benefitsUpdate.js";
import { customFieldsCreate } from "@polar-sh/sdk/funcs/customFieldsCreate.js";
import { customFieldsDelete } from "@polar-sh/sdk/funcs/customFieldsDelete.js";
import { customFieldsUpdate } from "@polar-sh/sdk/funcs/customFieldsUpdate.js";
import { discountsCreate } from "@polar-sh/sdk/funcs/discountsCreate.js";
import { discountsDelete } from "@polar-sh/sdk/funcs/discountsDelete.js";
import { discountsUpdate } from "@polar-sh/sdk/funcs/discountsUpdate.js";
import { metersCreate } from "@polar-sh/sdk/funcs/metersCreate.js";
import { metersUpdate } from "@polar-sh/sdk/funcs/metersUpdate.js";
import { productsUpdate } from "@polar-sh/sdk/funcs/productsUpdate.js";
import { productsUpdateBenefits } from "@polar-sh/sdk/funcs/productsUpdateBenefits.js";
import { asCliError, CliError } from "../errors.js";
import type { BenefitSpec, CustomFieldSpec, DiscountSpec, Kind, MeterSpec, ProductSpec } from "./model.js";
import { renderChange, topField, type Change, type Plan } from "./plan.js";
import * as req from "./requests.js";
import { v1Json, type CatalogClient, type ServerCatalog } from "./server.js";
import { plural } from "../resources.js";

export interface ApplyOptions {
  /** Called before and after each change: progress output, and where tests inject a failure. */
  onChange?: (change: Change, stage: "start" | "done") => void | Promise<void>;
  /**
   * `planBasis` of the server catalog the plan was made from (part of every write's Idempotency-Key); without it
   * the keys are this run's own (a random basis), good for its retries only.
   */
  basis?: string;
}

/** The state a plan was made from: every object's id and last change. Another state plans other keys. */
export function planBasis(server: ServerCatalog): string {
  const objects = [...server.meters, ...server.custom_fields, ...server.benefits, ...server.products, ...server.discounts];
  return sha256(JSON.stringify(objects.map((o) => [o.id, o.modifiedAt ?? null])));
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

type SdkCall<R, T> = (core: PolarCore, request: R, options?: RequestOptions) => PromiseLike<{ ok: true; value: T } | { ok: false; error: unknown }>;

export interface AppliedChange {
  action: Change["action"];
  kind: Kind;
  key: string;
  name: string;
  /** The server object the change ended on (the new one for create and replace). */
  id: string;
}

/** Apply stopped at `change`; the changes before it were made. Running apply again continues from there. */
export class ApplyError extends CliError {
  readonly applied: AppliedChange[];
  readonly change: Change;
  override readonly cause: unknown;
  constructor(change: Change, applied: AppliedChange[], cause: unknown) {
    const inner = asCliError(cause);
    super(`${renderChange(change).split("\n")[0]} failed: ${inner.message}`, {
      exitCode: inner.exitCode,
      code: inner.code,
      request: inner.request,
      hint:
        inner.hint ??
        `${plural(applied.length, "change was", "changes were")} made before it. Nothing is half-made: fix the cause and run apply again; it plans only what is left.`,
    });
    this.name = "ApplyError";
    this.applied = applied;
    this.change = change;
    this.cause = cause;
  }
}

class Executor {
  private readonly ids: Record<Kind, Map<string, string>>;

  constructor(
    private readonly client: CatalogClient,
    plan: Plan,
    private readonly basis: string,
  ) {
    this.ids = {
      meter: new Map(plan.ids.meter),
      custom_field: new Map(plan.ids.custom_field),
      benefit: new Map(plan.ids.benefit),
      product: new Map(plan.ids.product),
      discount: new Map(plan.ids.discount),
    };
  }

  readonly ref: req.Ref = (kind, key) => {
    const id = this.ids[kind].get(key);
    if (!id) throw new CliError(`${kind.replace("_", " ")} "${key}" does not exist on the server`);
    return id;
  };

  /** One SDK write of change `c` (its `step`), under the Idempotency-Key of that step of this plan. */
  private write<R, T>(fn: SdkCall<R, T>, c: Change, step: string, request: R, what: string): Promise<T> {
    const key = `till-catalog-${sha256(JSON.stringify([this.basis, c.kind, c.key, c.action, step, request]))}`;
    return Promise.resolve(fn(this.client.core, request, { headers: { "Idempotency-Key": key } })).then((r) => this.client.unwrap(r, what));
  }

  /** A plain /v1 JSON write of change `c` (products: the SDK would drop unit_tiers), keyed like `write`. */
  private writeJson<T>(c: Change, step: string, method: "POST" | "PATCH", path: string, body: unknown, what: string): Promise<T> {
    const key = `till-catalog-${sha256(JSON.stringify([this.basis, c.kind, c.key, c.action, step, body]))}`;
    return v1Json<T>(this.client, method, path, body, { "Idempotency-Key": key }).then((r) => this.client.unwrap(r, what));
  }

  /** Makes one change; returns the id of the object it ends on. */
  async run(c: Change): Promise<string> {
    const id = await this.dispatch(c);
    if (c.action === "create" || c.action === "replace") this.ids[c.kind].set(c.key, id);
    return id;
  }

  private dispatch(c: Change): Promise<string> {
    switch (c.kind) {
      case "meter":
        return this.meter(c as Change<"meter">);
      case "custom_field":
        return this.customField(c as Change<"custom_field">);
      case "benefit":
        return this.benefit(c as Change<"benefit">);
      case "product":
        return this.product(c as Change<"product">);
      default:
        return this.discount(c as Change<"discount">);
    }
  }

  private changed(c: Change): Set<string> {
    return new Set(c.fields.map((f) => topField(f.path)));
  }

  private async meter(c: Change<"meter">): Promise<string> {
    const what = `meter "${c.key}"`;
    if (c.action === "archive") {
      await this.write(metersUpdate, c, "archive", { id: c.id as string, meterUpdate: { isArchived: true } }, `archive ${what}`);
      return c.id as string;
    }
    const m = c.desired as MeterSpec;
    if (c.action === "update") {
      await this.write(metersUpdate, c, "update", { id: c.id as string, meterUpdate: req.meterUpdate(c.key, m, this.changed(c)) }, `update ${what}`);
      return c.id as string;
    }
    const created = await this.write(metersCreate, c, "create", req.meterCreate(c.key, m), `create ${what}`);
    if (m.archived) await this.write(metersUpdate, c, "archive", { id: created.id, meterUpdate: { isArchived: true } }, `archive ${what}`);
    return created.id;
  }

  private async customField(c: Change<"custom_field">): Promise<string> {
    const what = `custom field "${c.key}"`;
    if (c.action === "delete" || c.action === "replace") {
      await this.write(customFieldsDelete, c, "delete", { id: c.id as string }, `delete ${what}`);
      if (c.action === "delete") return c.id as string;
    }
    const f = c.desired as CustomFieldSpec;
    if (c.action === "update") {
      const body = req.customFieldUpdate(c.key, f, this.changed(c));
      await this.write(customFieldsUpdate, c, "update", { id: c.id as string, customFieldUpdate: body }, `update ${what}`);
      return c.id as string;
    }
    return (await this.write(customFieldsCreate, c, "create", req.customFieldCreate(c.key, f), `create ${what}`)).id;
  }

  private async benefit(c: Change<"benefit">): Promise<string> {
    const what = `benefit "${c.key}"`;
    if (c.action === "delete" || c.action === "replace") {
      await this.write(benefitsDelete, c, "delete", { id: c.id as string }, `delete ${what}`);
      if (c.action === "delete") return c.id as string;
    }
    const b = c.desired as BenefitSpec;
    if (c.action === "update") {
      const body = req.benefitUpdate(c.key, b, this.changed(c), this.ref);
      await this.write(benefitsUpdate, c, "update", { id: c.id as string, requestBody: body }, `update ${what}`);
      return c.id as string;
    }
    return (await this.write(benefitsCreate, c, "create", req.benefitCreate(c.key, b, this.ref), `create ${what}`)).id;
  }

  private async product(c: Change<"product">): Promise<string> {
    const what = `product "${c.key}"`;
    const archive = (id: string, metadata?: ProductSpec["metadata"]) =>
      this.write(productsUpdate, c, "archive", { id, productUpdate: { isArchived: true, ...(metadata ? { metadata } : {}) } }, `archive ${what}`);
    if (c.action === "archive") {
      await archive(c.id as string);
      return c.id as string;
    }
    if (c.action === "replace") {
      // the old product keeps its subscribers; without the key it no longer answers to this entry
      await archive(c.id as string, (c.actual as ProductSpec).metadata);
    }
    const p = c.desired as ProductSpec;
    const setBenefits = (id: string) =>
      this.write(
        productsUpdateBenefits,
        c,
        "benefits",
        { id, productBenefitsUpdate: { benefits: p.benefits.map((b) => this.ref("benefit", b)) } },
        `set the benefits of ${what}`,
      );
    if (c.action === "update") {
      const id = c.id as string;
      const changed = this.changed(c);
      const body = req.productUpdate(c.key, p, changed, c.actualPrices, this.ref, c.adopt);
      if (body) await this.writeJson(c, "update", "PATCH", `/products/${id}`, body, `update ${what}`);
      if (changed.has("benefits")) await setBenefits(id);
      return id;
    }
    const created = await this.writeJson<{ id: string }>(c, "create", "POST", "/products/", req.productCreate(c.key, p, this.ref), `create ${what}`);
    if (p.benefits.length > 0) await setBenefits(created.id);
    if (p.archived) await archive(created.id);
    return created.id;
  }

  private async discount(c: Change<"discount">): Promise<string> {
    const what = `discount "${c.key}"`;
    if (c.action === "delete" || c.action === "replace") {
      await this.write(discountsDelete, c, "delete", { id: c.id as string }, `delete ${what}`);
      if (c.action === "delete") return c.id as string;
    }
    const d = c.desired as DiscountSpec;
    if (c.action === "update") {
      const body = req.discountUpdate(c.key, d, this.changed(c), this.ref);
      await this.write(discountsUpdate, c, "update", { id: c.id as string, discountUpdate: body }, `update ${what}`);
      return c.id as string;
    }
    return (await this.write(discountsCreate, c, "create", req.discountCreate(c.key, d, this.ref), `create ${what}`)).id;
  }
}

/** Makes the plan's changes in order; throws ApplyError at the first that fails (those before it stay made). */
export async function applyPlan(client: CatalogClient, plan: Plan, opts: ApplyOptions = {}): Promise<AppliedChange[]> {
  const executor = new Executor(client, plan, opts.basis ?? randomUUID());
  const applied: AppliedChange[] = [];
  for (const change of plan.changes) {
    try {
      await opts.onChange?.(change, "start");
      const id = await executor.run(change);
      applied.push({ action: change.action, kind: change.kind, key: change.key, name: change.name, id });
    } catch (err) {
      throw new ApplyError(change, applied, err);
    }
    await opts.onChange?.(change, "done");
  }
  return applied;
}
