// Loading a call's answer into a page: the data, the API's error, and a reload after a change.
import { useEffect, useRef, useState } from "react";
import type { Result } from "../api.js";

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` now and whenever `key` changes; an older answer arriving late is dropped. */
export function useLoad<T>(load: () => Promise<Result<T>>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  // the latest closure is called; `key` and the reload tick decide when
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    void latest.current().then((r) => {
      if (!current) return;
      setState(r.ok ? { data: r.data, loading: false } : { error: r.error.message, loading: false });
    });
    return () => {
      current = false;
    };
  }, [key, tick]);
  return { data: state.data, error: state.error, loading: state.loading, reload: () => setTick((t) => t + 1) };
}
