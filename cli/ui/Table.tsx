// A table of strings: bold headers, columns as wide as their widest cell, two spaces between columns, fitted to the
// terminal's width (table-layout.ts).
import { Box, Text } from "ink";
import { layoutTable } from "./table-layout.js";

export interface TableProps {
  headers: string[];
  rows: string[][];
  /** The terminal's width. */
  columns: number;
}

export function Table({ headers, rows, columns }: TableProps) {
  const { lines, left } = layoutTable(headers, rows, columns);
  const [head = [], ...body] = lines;
  return (
    <Box flexDirection="column">
      <Text bold dimColor wrap="truncate-end">
        {head.join("")}
      </Text>
      {body.map((cells, i) => (
        <Text key={i} wrap="truncate-end">
          {cells.join("")}
        </Text>
      ))}
      {left.length > 0 && (
        <Text dimColor wrap="wrap">
          {`Left out to fit ${columns} columns: ${left.join(", ")} (a wider terminal or --json shows ${left.length === 1 ? "it" : "them"}).`}
        </Text>
      )}
    </Box>
  );
}
