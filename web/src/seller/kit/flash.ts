// A result said on the next page: a page that saved or deleted and moved on puts a flag in the address
// (`?deleted=1`); the page it opens says it once as a toast and takes the flag out of the address, so a reload
// or a shared link does not say it again.
import { useEffect } from "react";
import { useToast } from "../Toasts.js";
import { params } from "../url.js";

/** Toasts `said[flag]` for the first flag present in the address, once it is `ready`, then drops the flags. */
export function useFlash(said: Record<string, string>, ready = true): void {
  const toast = useToast();
  const text = JSON.stringify(said);
  useEffect(() => {
    if (!ready) return;
    const p = params();
    const messages = JSON.parse(text) as Record<string, string>;
    const flag = Object.keys(messages).find((k) => p.has(k));
    if (!flag) return;
    toast(messages[flag] ?? "");
    for (const k of Object.keys(messages)) p.delete(k);
    window.history.replaceState(null, "", `${window.location.pathname}?${p.toString()}`);
  }, [text, ready, toast]);
}
