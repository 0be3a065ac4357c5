// A spinner with a label, for work whose end we wait for (requests, device-flow polling).
import { Box, Text } from "ink";
import InkSpinner from "ink-spinner";

export function Spinner({ label }: { label: string }) {
  return (
    <Box>
      <Text color="cyan">
        <InkSpinner type="dots" />
      </Text>
      <Text> {label}</Text>
    </Box>
  );
}
