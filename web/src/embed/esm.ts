// `import { TillEmbedCheckout } from "https://till.example/embed.mjs"`: the ESM build. The till server is the
// origin this module was loaded from.
import { embedApi } from "./core.js";

export type { EmbedCheckout, EmbedOptions, Theme } from "./core.js";
export const TillEmbedCheckout = embedApi(new URL(import.meta.url).origin);
/** The name @polar-sh/checkout's module exports, so `import { PolarEmbedCheckout }` code works unchanged. */
export const PolarEmbedCheckout = TillEmbedCheckout;
export default TillEmbedCheckout;
