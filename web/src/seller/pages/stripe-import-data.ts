// The import page's data: one run, asked again while it runs until it settles (as `till import stripe` waits), and
// the calls that start a run or undo one. Pure reading of a run is in shared/stripe-import-plan.ts.
import { useEffect, useState } from "react";
import { isSettled, type StripeImportWire } from "../../../../shared/stripe-import.js";
import type { Result } from "../../api.js";
import { v1, type Scope } from "../api.js";

export type Run = StripeImportWire;

/** How often a running import is asked about. */
const POLL_MS = 1500;

export interface RunState {
  run: Run | undefined;
  error: string | undefined;
}

/** The run `id`, read now and every POLL_MS until it settles; nothing when `id` is undefined. */
export function useImportRun(scope: Scope, id: string | undefined): RunState {
  const [state, setState] = useState<RunState>({ run: undefined, error: undefined });
  useEffect(() => {
    if (!id) return;
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      const r = await v1<Run>(scope, "GET", `/stripe/imports/${id}`);
      if (!current) return;
      if (!r.ok) return setState((s) => ({ run: s.run, error: r.error.message }));
      setState({ run: r.data, error: undefined });
      if (!isSettled(r.data.status)) timer = setTimeout(() => void read(), POLL_MS);
    };
    void read();
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [scope, id]);
  return state;
}

/** POST /stripe/imports: a dry run, or the import for real. */
export const startRun = (scope: Scope, dryRun: boolean): Promise<Result<Run>> => v1<Run>(scope, "POST", "/stripe/imports", { body: { dry_run: dryRun } });

/** POST /stripe/imports/{id}/undo: hands back the run's subscriptions that have not renewed in till yet. */
export const undoRun = (scope: Scope, id: string): Promise<Result<Run>> => v1<Run>(scope, "POST", `/stripe/imports/${id}/undo`);

/** Whether a run may be undone (as the server allows): it imported for real and moves or moved subscriptions. */
export const mayUndo = (run: Run) => !run.dry_run && ["moving", "succeeded", "failed"].includes(run.status);

/** Whether a run's plan may be imported now: a settled dry run nothing blocks. */
export const mayImport = (run: Run) => run.dry_run && run.status === "planned" && run.blocked === 0;
