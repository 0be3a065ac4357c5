// `till catalog pull`: the organization's catalog as a file. Live objects are written; archived products and
// meters only when something written refers to them (marked `archived: true`), so the file stays valid.
import { plural } from "../resources.js";
import { catalogToJson, catalogToYaml } from "./file.js";
import { emptyCatalog, entriesOf, KINDS, type Catalog, type Kind } from "./model.js";
import {
  fetchServerCatalog,
  indexServer,
  isArchived,
  refsOf,
  unknownRef,
  type CatalogClient,
  type ServerCatalog,
  type ServerIndex,
} from "./server.js";
import { specOf } from "./specs.js";

export interface PullResult {
  catalog: Catalog;
  /** What the file leaves out, for the person running pull. */
  warnings: string[];
}

/** Keys of archived products/meters that live entries refer to. */
function referencedArchived(index: ServerIndex, catalog: Catalog): { product: Set<string>; meter: Set<string> } {
  const product = new Set<string>();
  const meter = new Set<string>();
  for (const d of catalog.discounts.values()) d.products.forEach((p) => product.add(p));
  for (const p of catalog.products.values()) {
    for (const price of p.prices) if (price.amount_type === "metered_unit") meter.add(price.meter);
  }
  for (const b of catalog.benefits.values()) if (b.type === "meter_credit") meter.add(String(b.properties.meter));
  const archived = (kind: "product" | "meter", keys: Set<string>) =>
    new Set([...keys].filter((k) => {
      const hit = index.keys[kind].byKey.get(k);
      return hit !== undefined && isArchived(kind, hit.object);
    }));
  return { product: archived("product", product), meter: archived("meter", meter) };
}

/** Made by `till trigger` (its metadata mark, cli/trigger-recipes.ts). */
const madeByTrigger = (object: { metadata?: Record<string, unknown> }) => object.metadata?.till_trigger !== undefined;

export function catalogFromServer(server: ServerCatalog): PullResult {
  const index = indexServer(server);
  const refs = refsOf(index);
  const catalog = emptyCatalog();
  const warnings: string[] = [];
  let triggered = 0;
  const add = <K extends Kind>(kind: K, keep: (key: string, archived: boolean) => boolean) => {
    const entries = entriesOf(catalog, kind);
    for (const [key, { object }] of index.keys[kind].byKey) {
      if (!keep(key, isArchived(kind, object))) continue;
      // what `till trigger` made to cause an event is not the seller's catalog
      if (madeByTrigger(object)) {
        triggered++;
        continue;
      }
      entries.set(key, specOf(kind, object, refs));
    }
  };
  for (const kind of KINDS) add(kind, (_key, archived) => !archived);
  // a second pass: archived products first, since an archived product's metered prices may name archived meters
  const needed = referencedArchived(index, catalog);
  add("product", (key, archived) => archived && needed.product.has(key));
  const neededMeters = referencedArchived(index, catalog).meter;
  add("meter", (key, archived) => archived && (needed.meter.has(key) || neededMeters.has(key)));

  if (triggered > 0) warnings.push(`${plural(triggered, "object")} made by \`till trigger\` left out (metadata till_trigger; \`till sandbox reset\` clears them)`);
  for (const p of index.legacy) {
    warnings.push(`product "${p.name}" (${p.id}) has legacy recurring prices; till catalog leaves it out (set its recurring interval first)`);
  }
  for (const kind of KINDS) {
    for (const d of index.keys[kind].duplicates) {
      const obj = d as { id: string; metadata: Record<string, unknown> };
      warnings.push(`${kind.replace("_", " ")} ${obj.id} carries the key of another ${kind.replace("_", " ")}; left out`);
    }
  }
  // references to objects the file does not contain (e.g. a benefit that was deleted) cannot be written
  const dangling = JSON.stringify([...catalog.products.values(), ...catalog.discounts.values(), ...catalog.benefits.values()]).match(
    new RegExp(`"${unknownRef("[0-9a-f-]{36}")}"`, "g"),
  );
  if (dangling) warnings.push(`the file refers to ${plural(dangling.length, "object")} that could not be read: ${[...new Set(dangling)].join(", ")}`);
  return { catalog, warnings };
}

export async function pullCatalog(client: CatalogClient, format: "yaml" | "json" = "yaml"): Promise<PullResult & { text: string }> {
  const { catalog, warnings } = catalogFromServer(await fetchServerCatalog(client));
  return { catalog, warnings, text: format === "json" ? catalogToJson(catalog) : catalogToYaml(catalog) };
}
