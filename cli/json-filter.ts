// What `--json` prints, shaped the way gh does it: `--json=<fields>` keeps only those fields (of the object, or
// of each item of a list), `--jq <expr>` filters the result through jq, `--template <text>` formats it.
// Both of the last two imply --json. jq is jq itself compiled to WebAssembly (jq-web), loaded only when --jq
// is given, so every other run costs nothing more; the expression is compiled before anything is sent.
import { CliError, UsageError } from "./errors.js";
import { isRecord } from "./flags.js";

export interface JsonShape {
  /** `--json=id,name`: the fields to keep. */
  fields?: string[];
  jq?: string;
  template?: string;
}

/** Turns the data a command gathered into the text printed on stdout. */
export type JsonPrinter = (data: unknown) => string;

const pretty = (data: unknown) => JSON.stringify(data, null, 2);

/** `--json=id,name,` → ["id", "name"]; an empty list is a usage error. */
export function parseFields(value: string): string[] {
  const fields = value.split(",").map((f) => f.trim()).filter((f) => f !== "");
  if (fields.length === 0) throw new UsageError("--json=<fields>: name at least one field, such as --json=id,name");
  return fields;
}

/** The fields of `data` (an object, or the objects of a list), keeping only `fields`, in that order. */
export function selectFields(data: unknown, fields: string[]): unknown {
  const objects = (Array.isArray(data) ? data : [data]).filter(isRecord);
  if (objects.length > 0) {
    const known = new Set(objects.flatMap((o) => Object.keys(o)));
    const unknown = fields.filter((f) => !known.has(f));
    if (unknown.length > 0) {
      throw new UsageError(
        `--json: unknown field${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")}`,
        `this command's fields: ${[...known].join(", ")}`,
      );
    }
  }
  const pick = (v: unknown) => (isRecord(v) ? Object.fromEntries(fields.map((f) => [f, v[f] ?? null])) : v);
  return Array.isArray(data) ? data.map(pick) : pick(data);
}

// ---- templates -------------------------------------------------------------------------------------

/** `{{.a.b}}` or `{{a.b}}`, and `{{.}}` for the value itself; `{{json .a}}` prints it as JSON. */
const PLACEHOLDER = /\{\{\s*(json\s+)?(\.?[A-Za-z0-9_.-]*)\s*\}\}/g;

function lookup(value: unknown, path: string): unknown {
  const keys = path.replace(/^\./, "").split(".").filter((k) => k !== "");
  let v: unknown = value;
  for (const k of keys) {
    if (Array.isArray(v) && /^\d+$/.test(k)) v = v[Number(k)];
    else if (isRecord(v)) v = v[k];
    else return undefined;
  }
  return v;
}

function show(v: unknown, asJson: boolean): string {
  if (asJson) return JSON.stringify(v ?? null);
  if (v === undefined || v === null) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** Checks a template's syntax before anything is sent: every `{{` must open a placeholder. */
export function checkTemplate(template: string): void {
  const leftover = template.replace(PLACEHOLDER, "");
  if (leftover.includes("{{") || leftover.includes("}}")) {
    throw new UsageError(`--template: expected placeholders such as {{.id}} or {{json .metadata}}, got ${JSON.stringify(template)}`);
  }
}

/** The template once per item of a list (once for an object); \n and \t stand for a newline and a tab. */
export function renderTemplate(data: unknown, template: string): string {
  const text = template.replace(/\\n/g, "\n").replace(/\\t/g, "\t");
  const one = (item: unknown) => text.replace(PLACEHOLDER, (_m, json: string | undefined, path: string) => show(lookup(item, path), json !== undefined));
  const out = Array.isArray(data) ? data.map(one) : [one(data)];
  return out.map((line) => (line.endsWith("\n") ? line : `${line}\n`)).join("");
}

// ---- jq --------------------------------------------------------------------------------------------

/** jq-web's error message: "Non-zero exit code: 3\njq: error: …". jq exits 3 on a compile error, 5 at run time. */
function jqFailure(err: unknown): { compile: boolean; message: string } {
  const text = err instanceof Error ? err.message : String(err);
  const code = /Non-zero exit code: (\d+)/.exec(text)?.[1];
  const message = text
    .replace(/^Non-zero exit code: \d+\n?/, "")
    .split("\n")
    .map((l) => l.replace(/^jq: error(?: \(at [^)]*\))?: /, "").replace(/^jq: /, "").replace(/ \(Unix shell quoting issues\?\)/, "").trim())
    .filter((l) => l !== "" && !/^\d+ compile errors?$/.test(l))
    .join(" ");
  return { compile: code === "3", message: message || text };
}

async function jqPrinter(expr: string): Promise<JsonPrinter> {
  const { default: loading } = await import("jq-web");
  const jq = await loading;
  try {
    jq.raw("null", expr, ["-r"]);
  } catch (err) {
    const failure = jqFailure(err);
    // a filter that fails on null may still work on the real result (`.[]`): only a compile error stops here
    if (failure.compile) throw new UsageError(`--jq: ${failure.message}`, "see https://jqlang.org/manual/ for the language");
  }
  return (data) => {
    try {
      return jq.raw(JSON.stringify(data), expr, ["-r"]);
    } catch (err) {
      throw new CliError(`--jq: ${jqFailure(err).message}`, { hint: "the command itself succeeded; only printing its result through --jq failed" });
    }
  };
}

/** The printer for these options; plain pretty JSON when none is given. */
export async function jsonPrinter(shape: JsonShape): Promise<JsonPrinter> {
  if (shape.jq !== undefined && shape.template !== undefined) throw new UsageError("--jq and --template: pick one");
  if (shape.jq !== undefined && shape.jq.trim() === "") throw new UsageError("--jq: expected a jq expression, such as '.[].id'");
  const select = shape.fields ? (d: unknown) => selectFields(d, shape.fields as string[]) : (d: unknown) => d;
  if (shape.jq !== undefined) {
    const jq = await jqPrinter(shape.jq);
    return (data) => jq(select(data));
  }
  if (shape.template !== undefined) {
    const template = shape.template;
    checkTemplate(template);
    return (data) => renderTemplate(select(data), template);
  }
  return (data) => pretty(select(data));
}
