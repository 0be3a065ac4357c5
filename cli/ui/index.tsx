// Static Ink output (tables, labelled fields) rendered to a string. Imported only through output.ts's lazy
// `ui()` on a terminal: never in --json mode, never for --help. Live screens (spinners) are in live.tsx,
// so a listing does not load the spinner packages.
import { renderToString } from "ink";
import { Table } from "./Table.js";
import { Fields } from "./Fields.js";
import { Entries } from "./Entries.js";

export { Table, Fields, Entries };

export function renderTable(headers: string[], rows: string[][], columns: number): string {
  return renderToString(<Table headers={headers} rows={rows} columns={columns} />, { columns });
}

export function renderEntries(entries: { title: string; text: string }[], columns: number): string {
  return renderToString(<Entries entries={entries} />, { columns });
}

export function renderFields(fields: { label: string; value: string }[], columns: number): string {
  return renderToString(<Fields fields={fields} />, { columns });
}
