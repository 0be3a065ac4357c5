// Labelled fields of one object ("Server  http://…"), labels aligned.
import { Box, Text } from "ink";

export interface FieldsProps {
  fields: { label: string; value: string }[];
}

export function Fields({ fields }: FieldsProps) {
  const width = Math.max(0, ...fields.map((f) => f.label.length)) + 2;
  return (
    <Box flexDirection="column">
      {fields.map((f, i) => (
        <Box key={i}>
          <Box width={width} flexShrink={0}>
            <Text dimColor>{f.label}</Text>
          </Box>
          <Text>{f.value}</Text>
        </Box>
      ))}
    </Box>
  );
}
