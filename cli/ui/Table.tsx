// A table of strings: bold headers, columns as wide as their widest cell, two spaces between columns.
import { Box, Text } from "ink";

export interface TableProps {
  headers: string[];
  rows: string[][];
}

/** Code points, not UTF-16 units; wide (CJK) characters may still misalign, which is acceptable here. */
const width = (s: string) => [...s].length;

export function Table({ headers, rows }: TableProps) {
  const widths = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ""))));
  const last = headers.length - 1;
  const line = (cells: string[], key: string, header: boolean) => (
    <Box key={key}>
      {cells.map((cell, i) => (
        <Box key={i} width={i === last ? undefined : (widths[i] ?? 0) + 2} flexShrink={i === last ? 1 : 0}>
          <Text bold={header} dimColor={header} wrap="truncate-end">
            {cell}
          </Text>
        </Box>
      ))}
    </Box>
  );
  return (
    <Box flexDirection="column">
      {line(headers, "header", true)}
      {rows.map((r, i) => line(r, String(i), false))}
    </Box>
  );
}
