// Entries of a list whose text is too long for a table's column (a reason, a message): each a title line, then its
// text wrapped to the terminal's width under it, indented.
import { Box, Text } from "ink";

export interface EntriesProps {
  entries: { title: string; text: string }[];
}

export function Entries({ entries }: EntriesProps) {
  return (
    <Box flexDirection="column">
      {entries.map((e, i) => (
        <Box key={i} flexDirection="column">
          <Text bold wrap="truncate-end">
            {e.title}
          </Text>
          <Box paddingLeft={2}>
            <Text wrap="wrap">{e.text}</Text>
          </Box>
        </Box>
      ))}
    </Box>
  );
}
