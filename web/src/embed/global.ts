// `<script src="https://till.example/embed.js">`: the plain-script build. It sets window.TillEmbedCheckout (and
// Polar's window.Polar.EmbedCheckout) and wires every `[data-till-checkout]` or `[data-polar-checkout]` link once
// the document is parsed (unless the tag says data-auto-init="false"). The till server is the origin the script
// was loaded from.
import { embedApi, type TillEmbedCheckoutApi } from "./core.js";

declare global {
  interface Window {
    TillEmbedCheckout?: TillEmbedCheckoutApi;
    Polar?: { EmbedCheckout: TillEmbedCheckoutApi };
  }
}

const script = document.currentScript as HTMLScriptElement | null;
const origin = script?.src ? new URL(script.src).origin : window.location.origin;
const api = embedApi(origin);
window.TillEmbedCheckout = api;
// @polar-sh/checkout's global (`Polar.EmbedCheckout.create(url, theme)`, `.init()`), unless that script is on the page
// too
window.Polar ??= { EmbedCheckout: api };

if (script?.getAttribute("data-auto-init") !== "false") {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => api.init());
  else api.init();
}
