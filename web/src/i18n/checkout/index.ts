// The checkout surface's catalogs: English in the page's own bundle (the fallback of every message), each other
// locale a chunk of its own loaded only by a buyer who reads it; the pseudo-locale (tests) made from English.
import { englishDefault, type Catalogs } from "../intl.js";
import en from "./en.json" with { type: "json" };

const json = (m: { default: Record<string, string> }) => m.default;

export const checkoutCatalogs: Catalogs = {
  en,
  de: () => import("./de.json", { with: { type: "json" } }).then(json),
  fr: () => import("./fr.json", { with: { type: "json" } }).then(json),
  es: () => import("./es.json", { with: { type: "json" } }).then(json),
  it: () => import("./it.json", { with: { type: "json" } }).then(json),
  nl: () => import("./nl.json", { with: { type: "json" } }).then(json),
  "pt-BR": () => import("./pt-BR.json", { with: { type: "json" } }).then(json),
  pl: () => import("./pl.json", { with: { type: "json" } }).then(json),
  sv: () => import("./sv.json", { with: { type: "json" } }).then(json),
  ja: () => import("./ja.json", { with: { type: "json" } }).then(json),
  "en-XA": () => import("../../../../shared/i18n/pseudo.js").then((m) => m.pseudoCatalog(en)),
};

// importing the surface makes its English the page's messages (pure modules and tests read them through t())
englishDefault(en);
