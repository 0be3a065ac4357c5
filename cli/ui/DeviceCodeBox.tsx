// The device-flow screen of `till login`: the one-time code, where to enter it, and the wait.
import { Box, Text } from "ink";
import { Spinner } from "./Spinner.js";

export interface DeviceCodeBoxProps {
  /** Already formatted for reading (ABCD-EFGH). */
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  browserOpened: boolean;
  waiting: boolean;
}

export function DeviceCodeBox(props: DeviceCodeBoxProps) {
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" paddingX={2} flexDirection="column">
        <Text>
          Your one-time code: <Text bold>{props.userCode}</Text>
        </Text>
        <Text>
          {props.browserOpened ? "Opened in your browser: " : "Open in a browser: "}
          <Text underline>{props.verificationUriComplete}</Text>
        </Text>
        <Text dimColor>or go to {props.verificationUri} and enter the code</Text>
      </Box>
      {props.waiting ? <Spinner label="Waiting for you to approve in the browser…" /> : null}
    </Box>
  );
}
