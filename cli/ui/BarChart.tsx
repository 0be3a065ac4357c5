// A horizontal bar chart (`till meters quantities` on a terminal): one row per bucket, its label, its value
// right-aligned, then a bar scaled to the largest value, drawn in eighths of a character. Loaded lazily by
// the command, after output.ts's ui() (which settles colour for Ink).
import { Box, Text, renderToString } from "ink";

export interface Bar {
  label: string;
  value: number;
  /** The value as shown ("1,234"). */
  shown: string;
}

const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/** A bar `width` characters long at `max`; at least a sliver for any value above zero. */
export function barOf(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return "";
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return "█".repeat(Math.floor(eighths / 8)) + (EIGHTHS[eighths % 8] ?? "");
}

export function BarChart({ bars, columns, total }: { bars: Bar[]; columns: number; total?: string }) {
  const labelWidth = Math.max(5, ...bars.map((b) => b.label.length));
  const valueWidth = Math.max(total?.length ?? 0, ...bars.map((b) => b.shown.length));
  const barWidth = Math.max(10, columns - labelWidth - valueWidth - 5);
  const max = Math.max(0, ...bars.map((b) => b.value));
  return (
    <Box flexDirection="column">
      {bars.map((b, i) => (
        <Box key={i}>
          <Box width={labelWidth + 2} flexShrink={0}>
            <Text dimColor>{b.label}</Text>
          </Box>
          <Box width={valueWidth} flexShrink={0} justifyContent="flex-end">
            <Text>{b.shown}</Text>
          </Box>
          <Text> </Text>
          <Text color="cyan">{barOf(b.value, max, barWidth)}</Text>
        </Box>
      ))}
      {total !== undefined && (
        <Box>
          <Box width={labelWidth + 2} flexShrink={0}>
            <Text bold>Total</Text>
          </Box>
          <Box width={valueWidth} flexShrink={0} justifyContent="flex-end">
            <Text bold>{total}</Text>
          </Box>
        </Box>
      )}
    </Box>
  );
}

export function renderBarChart(bars: Bar[], columns: number, total?: string): string {
  return renderToString(<BarChart bars={bars} columns={columns} total={total} />, { columns });
}
