// Loading the checkout and sending the customer's changes: a client update now (the latest answer wins) or
// soon (debounced, for what is typed; changes typed within one pause go together, so none is dropped); the
// page shows "updating" while one is pending or in flight.
import { useCallback, useEffect, useRef, useState } from "react";
import { checkoutApi, type Checkout, type CheckoutError } from "../checkout-api.js";

const UPDATE_DELAY_MS = 400;

export interface CheckoutData {
  checkout: Checkout | null;
  /** Why the checkout could not be read (a 404: no checkout has this address). */
  loadError: CheckoutError | null;
  updating: boolean;
  setCheckout: (c: Checkout) => void;
  /** Sends an update now; resolves with its error, if any. */
  update: (body: Record<string, unknown>) => Promise<CheckoutError | null>;
  /** Sends an update after a pause in typing, merged with those still waiting; `onError` gets its error (or null). */
  updateSoon: (body: Record<string, unknown>, onError: (e: CheckoutError | null) => void) => void;
  /** Drops a pending debounced update (before a confirm, which carries the same values). */
  cancelPending: () => void;
}

export function useCheckout(secret: string, onLoaded: (c: Checkout | null) => void): CheckoutData {
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  const [loadError, setLoadError] = useState<CheckoutError | null>(null);
  const [inFlight, setInFlight] = useState(0);
  const [pending, setPending] = useState(false);
  const seq = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  /** What the pending debounced update will send: every change made since the last one was sent. */
  const waiting = useRef<Record<string, unknown>>({});
  const loaded = useRef(onLoaded);

  useEffect(() => {
    let live = true;
    void checkoutApi.get(secret).then((res) => {
      if (!live) return;
      if (res.ok) setCheckout(res.data);
      else setLoadError(res.error);
      loaded.current(res.ok ? res.data : null);
    });
    return () => {
      live = false;
    };
  }, [secret]);

  const update = useCallback(
    async (body: Record<string, unknown>) => {
      const mine = ++seq.current;
      setInFlight((n) => n + 1);
      const res = await checkoutApi.update(secret, body);
      setInFlight((n) => n - 1);
      if (!res.ok) return res.error;
      if (mine === seq.current) setCheckout(res.data);
      return null;
    },
    [secret],
  );

  const cancelPending = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    waiting.current = {};
    setPending(false);
  }, []);

  const updateSoon = useCallback(
    (body: Record<string, unknown>, onError: (e: CheckoutError | null) => void) => {
      if (timer.current) clearTimeout(timer.current);
      waiting.current = { ...waiting.current, ...body };
      setPending(true);
      timer.current = setTimeout(() => {
        const merged = waiting.current;
        timer.current = null;
        waiting.current = {};
        setPending(false);
        void update(merged).then(onError);
      }, UPDATE_DELAY_MS);
    },
    [update],
  );

  useEffect(() => () => cancelPending(), [cancelPending]);

  return { checkout, loadError, updating: inFlight > 0 || pending, setCheckout, update, updateSoon, cancelPending };
}
