// The overlay script's two words (the loader's label, the frame's title), in the seller's page's language or the
// one the seller passes (`locale`); everything inside the frame is the checkout page's, in the buyer's. The
// catalogs are a few bytes each, so the script carries them all instead of loading one.
import { matchLocale, type AnyLocale } from "../../../../shared/i18n/locales.js";
import de from "./de.json" with { type: "json" };
import en from "./en.json" with { type: "json" };
import es from "./es.json" with { type: "json" };
import fr from "./fr.json" with { type: "json" };
import it from "./it.json" with { type: "json" };
import ja from "./ja.json" with { type: "json" };
import nl from "./nl.json" with { type: "json" };
import pl from "./pl.json" with { type: "json" };
import ptBR from "./pt-BR.json" with { type: "json" };
import sv from "./sv.json" with { type: "json" };

type EmbedMessages = typeof en;
const CATALOGS: Record<Exclude<AnyLocale, "en-XA">, EmbedMessages> = { en, de, fr, es, it, nl, "pt-BR": ptBR, pl, sv, ja };

/** The overlay's words for `wanted` (else the page's `<html lang>`, else the browser's language), English last. */
export function embedMessages(wanted?: string): EmbedMessages {
  for (const tag of [wanted, document.documentElement.lang, ...(navigator.languages ?? [navigator.language])]) {
    const found = matchLocale(tag);
    if (found && found !== "en-XA") return CATALOGS[found];
  }
  return en;
}
