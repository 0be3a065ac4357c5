// The checkout embedded in a seller's page (through /embed.js): the messages it sends that page, and Escape as the
// overlay's close button.
import { useCallback, useEffect } from "react";
import type { Checkout } from "../checkout-api.js";

const MESSAGE_TYPE = "POLAR_CHECKOUT";

export type PostMessage = (event: string, current: Checkout | null, extra?: Record<string, unknown>) => void;

/** Where messages go: the checkout's own embed origin when the seller set one, else the frame's parent's. */
export function useEmbedMessages(embed: { embedded: boolean; queryOrigin: string | null }): PostMessage {
  return useCallback(
    (event: string, current: Checkout | null, extra: Record<string, unknown> = {}) => {
      if (!embed.embedded) return;
      const target = current?.embed_origin ? new URL(current.embed_origin).origin : embed.queryOrigin;
      if (target) window.parent.postMessage({ ...extra, event, type: MESSAGE_TYPE }, target);
    },
    [embed],
  );
}

/** Embedded, Escape closes the overlay — but not while a payment is under way. */
export function useCloseOnEscape(embedded: boolean, closable: boolean, close: () => void): void {
  useEffect(() => {
    if (!embedded) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && closable) close();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [embedded, closable, close]);
}
