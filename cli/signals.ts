// Waiting that Ctrl-C ends: `till listen` stops there (exit 0), `till import stripe` stops waiting for a run that
// goes on at the server.

/**
 * Resolves on Ctrl-C (or SIGTERM); `dispose` removes the handlers. They stay until then (`on`, not `once`): Ink's exit
 * hook (signal-exit) kills the process when it finds itself the signal's only listener, which a `once` handler, gone
 * by the time the hook runs, would let it think.
 */
export function interrupted() {
  let resolve: () => void = () => {};
  const promise = new Promise<"stop">((r) => (resolve = () => r("stop")));
  const onSignal = () => resolve();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    promise,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** Waits `ms`, or less if `stop` comes first (its timer then goes too, so the process can exit). */
export async function pause(ms: number, stop: Promise<"stop">): Promise<"stop" | "go"> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<"go">((r) => (timer = setTimeout(() => r("go"), ms)));
  const first = await Promise.race([elapsed, stop]);
  clearTimeout(timer);
  return first;
}
