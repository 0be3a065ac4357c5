// `till catalog apply`: makes a plan's changes through the SDK, one change after the other. Every call is keyed
// by the catalog key (created objects carry it in metadata from their first call), so a run that stops midway
// leaves objects a new plan recognises: running apply again plans only what is left and converges.
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
import { productsCreate } from "@polar-sh/sdk/funcs/productsCreate.js";
import { productsUpdate } from "@polar-sh/sdk/funcs/productsUpdate.js";
import { productsUpdateBenefits } from "@polar-sh/sdk/funcs/productsUpdateBenefits.js";
import { asCliError, CliError } from "../errors.js";
import type { BenefitSpec, CustomFieldSpec, DiscountSpec, Kind, MeterSpec, ProductSpec } from "./model.js";
import { renderChange, topField, type Change, type Plan } from "./plan.js";
import * as req from "./requests.js";
import type { CatalogClient } from "./server.js";

export interface ApplyOptions {
  /** Called before and after each change: progress output, and where tests inject a failure. */
  onChange?: (change: Change, stage: "start" | "done") => void | Promise<void>;
}

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
      hint:
        inner.hint ??
        `${applied.length} change(s) were made before it. Nothing is half-made: fix the cause and run apply again; it plans only what is left.`,
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

  private call<T>(result: Promise<{ ok: true; value: T } | { ok: false; error: unknown }>, what: string): Promise<T> {
    return result.then((r) => this.client.unwrap(r, what));
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
    const { core } = this.client;
    const what = `meter "${c.key}"`;
    if (c.action === "archive") {
      await this.call(metersUpdate(core, { id: c.id as string, meterUpdate: { isArchived: true } }), `archive ${what}`);
      return c.id as string;
    }
    const m = c.desired as MeterSpec;
    if (c.action === "update") {
      await this.call(metersUpdate(core, { id: c.id as string, meterUpdate: req.meterUpdate(c.key, m, this.changed(c)) }), `update ${what}`);
      return c.id as string;
    }
    const created = await this.call(metersCreate(core, req.meterCreate(c.key, m)), `create ${what}`);
    if (m.archived) await this.call(metersUpdate(core, { id: created.id, meterUpdate: { isArchived: true } }), `archive ${what}`);
    return created.id;
  }

  private async customField(c: Change<"custom_field">): Promise<string> {
    const { core } = this.client;
    const what = `custom field "${c.key}"`;
    if (c.action === "delete" || c.action === "replace") {
      await this.call(customFieldsDelete(core, { id: c.id as string }), `delete ${what}`);
      if (c.action === "delete") return c.id as string;
    }
    const f = c.desired as CustomFieldSpec;
    if (c.action === "update") {
      const body = req.customFieldUpdate(c.key, f, this.changed(c));
      await this.call(customFieldsUpdate(core, { id: c.id as string, customFieldUpdate: body }), `update ${what}`);
      return c.id as string;
    }
    return (await this.call(customFieldsCreate(core, req.customFieldCreate(c.key, f)), `create ${what}`)).id;
  }

  private async benefit(c: Change<"benefit">): Promise<string> {
    const { core } = this.client;
    const what = `benefit "${c.key}"`;
    if (c.action === "delete" || c.action === "replace") {
      await this.call(benefitsDelete(core, { id: c.id as string }), `delete ${what}`);
      if (c.action === "delete") return c.id as string;
    }
    const b = c.desired as BenefitSpec;
    if (c.action === "update") {
      const body = req.benefitUpdate(c.key, b, this.changed(c), this.ref);
      await this.call(benefitsUpdate(core, { id: c.id as string, requestBody: body }), `update ${what}`);
      return c.id as string;
    }
    return (await this.call(benefitsCreate(core, req.benefitCreate(c.key, b, this.ref)), `create ${what}`)).id;
  }

  private async product(c: Change<"product">): Promise<string> {
    const { core } = this.client;
    const what = `product "${c.key}"`;
    const archive = (id: string, metadata?: ProductSpec["metadata"]) =>
      this.call(productsUpdate(core, { id, productUpdate: { isArchived: true, ...(metadata ? { metadata } : {}) } }), `archive ${what}`);
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
      this.call(
        productsUpdateBenefits(core, { id, productBenefitsUpdate: { benefits: p.benefits.map((b) => this.ref("benefit", b)) } }),
        `set the benefits of ${what}`,
      );
    if (c.action === "update") {
      const id = c.id as string;
      const changed = this.changed(c);
      const body = req.productUpdate(c.key, p, changed, c.actualPrices, this.ref, c.adopt);
      if (body) await this.call(productsUpdate(core, { id, productUpdate: body }), `update ${what}`);
      if (changed.has("benefits")) await setBenefits(id);
      return id;
    }
    const created = await this.call(productsCreate(core, req.productCreate(c.key, p, this.ref)), `create ${what}`);
    if (p.benefits.length > 0) await setBenefits(created.id);
    if (p.archived) await archive(created.id);
    return created.id;
  }

  private async discount(c: Change<"discount">): Promise<string> {
    const { core } = this.client;
    const what = `discount "${c.key}"`;
    if (c.action === "delete" || c.action === "replace") {
      await this.call(discountsDelete(core, { id: c.id as string }), `delete ${what}`);
      if (c.action === "delete") return c.id as string;
    }
    const d = c.desired as DiscountSpec;
    if (c.action === "update") {
      const body = req.discountUpdate(c.key, d, this.changed(c), this.ref);
      await this.call(discountsUpdate(core, { id: c.id as string, discountUpdate: body }), `update ${what}`);
      return c.id as string;
    }
    return (await this.call(discountsCreate(core, req.discountCreate(c.key, d, this.ref)), `create ${what}`)).id;
  }
}

/** Makes the plan's changes in order; throws ApplyError at the first that fails (those before it stay made). */
export async function applyPlan(client: CatalogClient, plan: Plan, opts: ApplyOptions = {}): Promise<AppliedChange[]> {
  const executor = new Executor(client, plan);
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
