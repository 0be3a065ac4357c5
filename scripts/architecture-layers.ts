// docs/architecture.md's layer picture, written from server/layers.ts: the mermaid block (one box per layer, top
// to bottom) and the numbered order (bottom to top, every unit and the doors it declares beyond a domain's usual
// ones). `node --import tsx scripts/architecture-layers.ts` rewrites the part of the file between the two markers;
// tests/unit/folder-order.test.ts fails when the file and the module disagree.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { LAYERS, type Unit } from "../server/layers.js";

export const ARCHITECTURE = fileURLToPath(new URL("../docs/architecture.md", import.meta.url));
export const BEGIN = "<!-- layers: written by scripts/architecture-layers.ts from server/layers.ts -->";
export const END = "<!-- layers: end -->";

const USUAL_DOORS = new Set(["service.ts", "wire.ts", "errors.ts", "jobs.ts"]);

/** A unit as the picture names it: billing's domains without the `billing/` in front. */
const shortName = (unit: Unit) => unit.path.replace(/^billing\/(?=[a-z-]+$)/, "");

function listed(unit: Unit): string {
  const more = unit.doors === "all" ? [] : unit.doors.filter((d) => !USUAL_DOORS.has(d));
  return more.length === 0 ? `\`${unit.path}\`` : `\`${unit.path}\` (also ${more.map((d) => `\`${d}\``).join(", ")})`;
}

/** `words` joined by `separator` into lines of at most `width` characters (a word longer stays whole). */
function wrapped(words: string[], separator: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of words) {
    const last = lines[lines.length - 1];
    if (last !== undefined && last.length + separator.length + word.length <= width) lines[lines.length - 1] = `${last}${separator}${word}`;
    else lines.push(word);
  }
  return lines;
}

/** The house's width for prose. */
const WIDTH = 115;

/** The generated part of docs/architecture.md, markers included. */
export function renderLayers(): string {
  const top = [...LAYERS].reverse();
  const boxes = top.map((layer, i) => `  l${top.length - i}["<b>${layer.name}</b><br/>${wrapped(layer.units.map(shortName), " · ", 80).join("<br/>")}"]`);
  const chain = `  ${top.map((_, i) => `l${top.length - i}`).join(" --> ")}`;
  const order = LAYERS.flatMap((layer, i) => {
    const items = layer.units.map(listed).map((item, k, all) => (k < all.length - 1 ? `${item},` : `${item}.`));
    const [first = "", ...rest] = wrapped([`${i + 1}. **${layer.name}**:`, ...items.flatMap((item) => item.split(" "))], " ", WIDTH);
    return [first, ...rest.map((line) => `   ${line}`)];
  });
  return [BEGIN, "```mermaid", "flowchart TB", ...boxes, chain, "```", "", ...order, END].join("\n");
}

/** docs/architecture.md with its generated part replaced by `renderLayers()`. */
export function withLayers(text: string): string {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/architecture.md: the markers ${BEGIN} … ${END} are missing`);
  return text.slice(0, begin) + renderLayers() + text.slice(end + END.length);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ARCHITECTURE, withLayers(readFileSync(ARCHITECTURE, "utf8")));
}
