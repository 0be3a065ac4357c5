// How a table fits a terminal: columns as wide as their widest cell, two spaces between them. When that is wider
// than the terminal, the widest columns that are not identifiers give way first (their cells end in "…"), never
// below a readable width; ids stay whole because they are what a user copies into the next command. When even that
// is too wide, the last columns are left out, and the table says which: columns never run into each other and a
// line never wraps.

/** Code points, not UTF-16 units; wide (CJK) characters may still misalign, which is acceptable here. */
export const cellWidth = (s: string) => [...s].length;

export const COLUMN_GAP = 2;
/** The narrowest a column is cut to (or its header's width, if wider). */
export const MIN_COLUMN = 7;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id column: its header says so, or every cell is a UUID. */
function isId(header: string, cells: string[]): boolean {
  return /^(ID|.* ID)$/i.test(header) || (cells.length > 0 && cells.every((c) => UUID.test(c)));
}

const span = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + COLUMN_GAP * Math.max(0, widths.length - 1);

/**
 * Each column's width so that the table fits in `columns`: the widest columns cut first, then, when even their
 * readable widths are too wide, the last columns left out (the answer is shorter than the headers; one always stays).
 */
export function columnWidths(headers: string[], rows: string[][], columns: number): number[] {
  const widths = headers.map((h, i) => Math.max(cellWidth(h), ...rows.map((r) => cellWidth(r[i] ?? ""))));
  const floors = headers.map((h, i) => (isId(h, rows.map((r) => r[i] ?? "")) ? (widths[i] ?? 0) : Math.min(widths[i] ?? 0, Math.max(MIN_COLUMN, cellWidth(h)))));
  while (floors.length > 1 && span(floors) > columns) {
    floors.pop();
    widths.pop();
  }
  const total = () => span(widths);
  while (total() > columns) {
    let widest = -1;
    for (const [i, w] of widths.entries()) if (w > (floors[i] ?? 0) && (widest < 0 || w > (widths[widest] ?? 0))) widest = i;
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 1) - 1;
  }
  return widths;
}

/** A cell cut to `width` ("…" as its last character when cut) and padded to it. */
export function fitCell(cell: string, width: number, pad: boolean): string {
  const chars = [...cell];
  const cut = chars.length > width ? `${chars.slice(0, Math.max(0, width - 1)).join("")}…` : cell;
  return pad ? cut + " ".repeat(Math.max(0, width - cellWidth(cut))) : cut;
}

/**
 * The table's lines (header first), each cell fitted and padded, the last column unpadded; and the headers of the
 * columns left out to fit.
 */
export function layoutTable(headers: string[], rows: string[][], columns: number): { lines: string[][]; left: string[] } {
  const widths = columnWidths(headers, rows, columns);
  const last = widths.length - 1;
  const gap = " ".repeat(COLUMN_GAP);
  const lines = [headers, ...rows].map((cells) => widths.map((w, i) => fitCell(cells[i] ?? "", w, i !== last) + (i === last ? "" : gap)));
  return { lines, left: headers.slice(widths.length) };
}
