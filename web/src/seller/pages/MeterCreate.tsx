// A new meter from the web: its name, which events it counts (their name, and one more condition on a property if
// wanted) and how (count them, or sum / max / min / average / unique values of a property), as `till meters
// create` and POST /v1/meters/ take them. The API checks the filter; its 422 is shown as it says.
import { useState, type FormEvent } from "react";
import { Field, SelectField, Status, type Tone } from "../../ui.js";
import { v1 } from "../api.js";
import { useSeller } from "../context.js";
import { href } from "../url.js";
import type { Meter } from "./Meters.js";

const OPERATORS = [
  { value: "ne", label: "is not" },
  { value: "gt", label: "is more than" },
  { value: "gte", label: "is at least" },
  { value: "lt", label: "is less than" },
  { value: "lte", label: "is at most" },
  { value: "like", label: "contains" },
  { value: "not_like", label: "does not contain" },
];

const FUNCTIONS = [
  { value: "sum", label: "Sum of a property" },
  { value: "max", label: "Largest value of a property" },
  { value: "min", label: "Smallest value of a property" },
  { value: "avg", label: "Average of a property" },
  { value: "unique", label: "Distinct values of a property" },
];

const text = (f: FormData, name: string) => String(f.get(name) ?? "").trim();

/** A number stays a number in the filter (the API compares numbers as numbers), anything else a string. */
const valueOf = (raw: string): string | number => (/^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw);

export function CreateMeter() {
  const { scope } = useSeller();
  const [said, setSaid] = useState<{ tone: Tone; text: string } | undefined>(undefined);
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const clauses: Array<{ property: string; operator: string; value: string | number }> = [{ property: "name", operator: "eq", value: text(f, "event") }];
    const property = text(f, "where_property");
    if (property) clauses.push({ property, operator: text(f, "where_operator") || "eq", value: valueOf(text(f, "where_value")) });
    const func = text(f, "func") || "count";
    const aggregation = func === "count" ? { func } : { func, property: text(f, "property") };
    const r = await v1<Meter>(scope, "POST", "/meters/", { body: { name: text(f, "name"), filter: { conjunction: "and", clauses }, aggregation } });
    if (!r.ok) return setSaid({ tone: "error", text: r.error.message });
    window.location.assign(href(`/meters/${r.data.id}`));
  }
  return (
    <form onSubmit={(e) => void onSubmit(e)} aria-label="New meter" className="stack">
      <Field label="Name" name="name" required maxLength={100} hint="What the customer sees, e.g. API calls." />
      <Field label="Events named" name="event" required maxLength={400} hint="The name your app ingests them with, e.g. api.call." />
      <fieldset>
        <legend>Only those where (optional)</legend>
        <Field label="Property" name="where_property" optional hint="metadata.<key>, or source." />
        <SelectField label="Condition" name="where_operator" placeholder="is" options={OPERATORS} />
        <Field label="Value" name="where_value" optional />
      </fieldset>
      <SelectField label="Counts" name="func" placeholder="The number of events" options={FUNCTIONS} />
      <Field label="Of the property" name="property" optional hint="For a sum, largest, smallest, average or distinct values: metadata.<key>." />
      <button type="submit" className="primary">
        Make the meter
      </button>
      <Status tone={said?.tone}>{said?.text}</Status>
    </form>
  );
}
