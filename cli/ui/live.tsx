// Live Ink screens drawn on a stream (stderr) while the CLI waits: a spinner, the device-code box.
// Imported only through output.ts's lazy `live()`.
import type { ReactElement } from "react";
import { render } from "ink";
import { Spinner } from "./Spinner.js";
import { DeviceCodeBox, type DeviceCodeBoxProps } from "./DeviceCodeBox.js";

export { Spinner, DeviceCodeBox, type DeviceCodeBoxProps };

export interface LiveScreen<P> {
  update(props: P): void;
  /** Unmounts; `keep` leaves the last frame on screen, otherwise it is erased. */
  stop(keep: boolean): void;
}

/**
 * Pseudo-terminals that report no size (script(1), some CI runners): Ink would draw one column wide and,
 * taking every frame for full-screen, clear the whole screen on each spinner tick.
 */
const FALLBACK_SIZE = { columns: 80, rows: 24 };

function live<P extends object>(view: (p: P) => ReactElement, initial: P, stream: NodeJS.WriteStream): LiveScreen<P> {
  for (const key of ["columns", "rows"] as const) {
    if (!stream[key]) Object.defineProperty(stream, key, { value: FALLBACK_SIZE[key], configurable: true, writable: true });
  }
  const instance = render(view(initial), { stdout: stream, patchConsole: false, exitOnCtrlC: false });
  return {
    update: (p) => instance.rerender(view(p)),
    stop(keep) {
      // erased now, and marked as drawn so the unmount's final frame writes nothing (an empty frame would
      // still leave a blank line above the command's output)
      if (!keep) instance.clear();
      instance.unmount();
    },
  };
}

/** A spinner on `stream` until the returned function is called; it leaves nothing behind. */
export function showSpinner(label: string, stream: NodeJS.WriteStream): () => void {
  const screen = live((p: { label: string }) => <Spinner label={p.label} />, { label }, stream);
  return () => screen.stop(false);
}

/** A spinner whose label changes as the work goes on (`till import stripe`: "Reading Stripe… 1,200 customers"). */
export function showProgress(label: string, stream: NodeJS.WriteStream): { update(label: string): void; stop(): void } {
  const screen = live((p: { label: string }) => <Spinner label={p.label} />, { label }, stream);
  return { update: (next) => screen.update({ label: next }), stop: () => screen.stop(false) };
}

export function showDeviceCode(props: DeviceCodeBoxProps, stream: NodeJS.WriteStream): LiveScreen<DeviceCodeBoxProps> {
  return live((p: DeviceCodeBoxProps) => <DeviceCodeBox {...p} />, props, stream);
}
