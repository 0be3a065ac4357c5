// A column chart of a series for a terminal (`till metrics`): one column per period, eight rows tall drawn in
// eighths of a character, the value axis labelled at its top, middle and zero, the first, middle and last
// periods labelled under it; more periods than columns are grouped (summed, or the last of a level). Plain
// block characters, so it reads the same with NO_COLOR; colour only tints the columns. Also the one-line
// sparkline of the metrics overview. Loaded lazily by the command, after output.ts's ui().
import { Box, Text, renderToString } from "ink";

export interface ChartPoint {
  label: string;
  value: number;
}

export interface ChartOptions {
  columns: number;
  /** An axis label ("$1.5K", "12%"). */
  axis: (value: number) => string;
  /** How grouped periods combine: flows add up, levels keep the last. */
  combine: "sum" | "last" | "mean";
  height?: number;
}

const PARTS = ["", "▁", "▂", "▃", "▄", "▅", "▆", "▇"];
const SPARKS = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

/** Points grouped by `size` (the first period's label), combined as the metric's total is. */
export function group(points: ChartPoint[], size: number, combine: ChartOptions["combine"]): ChartPoint[] {
  if (size <= 1) return points;
  const out: ChartPoint[] = [];
  for (let i = 0; i < points.length; i += size) {
    const part = points.slice(i, i + size);
    const values = part.map((p) => p.value);
    const sum = values.reduce((a, b) => a + b, 0);
    const value = combine === "sum" ? sum : combine === "mean" ? sum / values.length : (values[values.length - 1] ?? 0);
    out.push({ label: part[0]?.label ?? "", value });
  }
  return out;
}

interface Layout {
  rows: string[];
  yLabels: string[];
  xLine: string;
  axisWidth: number;
  note: string | null;
}

function layout(points: ChartPoint[], opts: ChartOptions): Layout {
  const height = opts.height ?? 8;
  // the axis is as wide as its widest label (grouping may raise the top: a rough width first, then the exact)
  const roughWidth = Math.max(...[1, 0.5, 0].map((f) => opts.axis(f * Math.max(0, ...points.map((p) => p.value))).length)) + 1;
  const size = Math.ceil(points.length / Math.max(8, opts.columns - roughWidth - 4));
  const shown = group(points, size, opts.combine);
  const max = Math.max(0, ...shown.map((p) => p.value));
  const axisWidth = Math.max(...[max, max / 2, 0].map((v) => opts.axis(v).length)) + 1;
  const plotWidth = Math.max(8, opts.columns - axisWidth - 2);
  const slot = Math.max(1, Math.min(8, Math.floor(plotWidth / Math.max(1, shown.length))));
  const gap = slot >= 3 ? 1 : 0;
  const bar = slot - gap;
  const eighths = shown.map((p) => (max > 0 && p.value > 0 ? Math.max(1, Math.round((p.value / max) * height * 8)) : 0));
  const rows: string[] = [];
  for (let r = 0; r < height; r++) {
    const floor = (height - 1 - r) * 8;
    rows.push(
      eighths
        .map((e) => {
          const cell = e >= floor + 8 ? "█" : e > floor ? (PARTS[e - floor] ?? "") : " ";
          return cell.repeat(bar) + " ".repeat(gap);
        })
        .join("")
        .trimEnd(),
    );
  }
  const yLabels = rows.map((_, r) => (r === 0 ? opts.axis(max) : r === height / 2 ? opts.axis(max / 2) : ""));
  // the first, middle and last periods under their columns, when they fit
  const width = shown.length * slot;
  const x = Array<string>(width + 20).fill(" ");
  const put = (at: number, text: string) => {
    const start = Math.max(0, Math.min(at, width + 20 - text.length));
    if (x.slice(Math.max(0, start - 1), start + text.length + 1).some((c) => c !== " ")) return;
    for (let i = 0; i < text.length; i++) x[start + i] = text[i] ?? " ";
  };
  const last = shown.length - 1;
  put(0, shown[0]?.label ?? "");
  if (last > 0) put(Math.max(0, last * slot + bar - (shown[last]?.label.length ?? 0)), shown[last]?.label ?? "");
  const mid = Math.floor(last / 2);
  if (mid > 0 && mid < last) put(mid * slot, shown[mid]?.label ?? "");
  return {
    rows,
    yLabels,
    xLine: x.join("").trimEnd(),
    axisWidth,
    note: size > 1 ? `each column: ${size} periods` : null,
  };
}

export function ColumnChart({ points, opts }: { points: ChartPoint[]; opts: ChartOptions }) {
  const l = layout(points, opts);
  const pad = (s: string) => s.padStart(l.axisWidth - 1);
  return (
    <Box flexDirection="column">
      {l.rows.map((row, r) => (
        <Text key={r}>
          <Text dimColor>{`${pad(l.yLabels[r] ?? "")} ${l.yLabels[r] ? "┤" : "│"}`}</Text>
          <Text color="cyan">{row}</Text>
        </Text>
      ))}
      <Text dimColor>{`${pad(opts.axis(0))} └${"─".repeat(Math.max(8, Math.min(opts.columns - l.axisWidth - 1, l.xLine.length)))}`}</Text>
      <Text dimColor>{`${" ".repeat(l.axisWidth + 1)}${l.xLine}`}</Text>
      {l.note && <Text dimColor>{`${" ".repeat(l.axisWidth + 1)}${l.note}`}</Text>}
    </Box>
  );
}

/** The chart under its heading lines (the title, the summary), as text `columns` wide. */
export function renderColumnChart(heading: string[], points: ChartPoint[], opts: ChartOptions): string {
  return renderToString(
    <Box flexDirection="column">
      {heading.map((h, i) => (
        <Text key={i} bold={i === 0}>
          {h}
        </Text>
      ))}
      <Text> </Text>
      <ColumnChart points={points} opts={opts} />
    </Box>,
    { columns: opts.columns },
  );
}

/** A one-line sparkline of the values, at most `width` characters (grouped as the chart groups). */
export function sparkline(values: number[], width: number, combine: ChartOptions["combine"]): string {
  const points = group(
    values.map((value) => ({ label: "", value })),
    Math.ceil(values.length / Math.max(1, width)),
    combine,
  );
  const max = Math.max(0, ...points.map((p) => p.value));
  return points.map((p) => (max > 0 && p.value > 0 ? (SPARKS[Math.min(7, Math.floor((p.value / max) * 7.999))] ?? "█") : " ")).join("");
}

export interface OverviewRow {
  name: string;
  now: string;
  change: string;
  values: number[];
  combine: ChartOptions["combine"];
}

/** The overview: one line per metric, its name, value now, change over the range, and a sparkline. */
export function renderOverview(heading: string[], rows: OverviewRow[], columns: number): string {
  const nameW = Math.max(...rows.map((r) => r.name.length));
  const nowW = Math.max(...rows.map((r) => r.now.length));
  const changeW = Math.max(...rows.map((r) => r.change.length));
  const sparkW = Math.max(8, Math.min(48, columns - nameW - nowW - changeW - 6));
  return renderToString(
    <Box flexDirection="column">
      {heading.map((h, i) => (
        <Text key={i} bold={i === 0}>
          {h}
        </Text>
      ))}
      <Text> </Text>
      {rows.map((r, i) => (
        <Text key={i}>
          <Text>{`${r.name.padEnd(nameW)}  ${r.now.padStart(nowW)}  `}</Text>
          <Text dimColor>{`${r.change.padEnd(changeW)}  `}</Text>
          <Text color="cyan">{sparkline(r.values, sparkW, r.combine)}</Text>
        </Text>
      ))}
    </Box>,
    { columns },
  );
}
