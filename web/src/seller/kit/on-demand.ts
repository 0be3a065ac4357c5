// A part of a page kept in its own chunk and loaded when it is first wanted (a dialog when it opens, a row's menu
// once the list has painted), so a section's first paint does not wait for the headless library behind it.
import { useEffect, useState, type ComponentType } from "react";

export interface OnDemand<P> {
  /** Starts the load (on a hover or a focus, before the part is wanted); the same load for every caller. */
  preload: () => Promise<void>;
  /** The part once loaded, else null; asks for it while `wanted`, and renders again when it arrives. */
  useLoaded: (wanted: boolean) => ComponentType<P> | null;
}

export function onDemand<P>(load: () => Promise<ComponentType<P>>): OnDemand<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<void> | null = null;
  const preload = () =>
    (pending ??= load().then(
      (part) => {
        loaded = part;
      },
      () => {
        // a chunk that failed to arrive (the network) is asked again next time rather than never
        pending = null;
      },
    ));
  function useLoaded(wanted: boolean): ComponentType<P> | null {
    const [, arrived] = useState(0);
    useEffect(() => {
      if (!wanted || loaded) return;
      let live = true;
      void preload().then(() => {
        if (live && loaded) arrived((n) => n + 1);
      });
      return () => {
        live = false;
      };
    }, [wanted]);
    return loaded;
  }
  return { preload, useLoaded };
}
