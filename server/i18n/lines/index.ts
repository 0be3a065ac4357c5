// The words of an order's lines that till itself writes: a metered line's units, tiers and cap, a
// proration line's kind, a wallet top-up's kind. One catalog per locale beside this one (English is the source),
// read by every server surface that prints an order's lines — the invoice PDF and the receipt emails — so a line
// reads the same on both. Adding a language: its JSON here with exactly English's keys
// (tests/unit/server-i18n.test.ts).
import { speakers, type Catalogs, type Speaker } from "../intl.js";
import en from "./en.json" with { type: "json" };
import de from "./de.json" with { type: "json" };
import fr from "./fr.json" with { type: "json" };
import es from "./es.json" with { type: "json" };
import it from "./it.json" with { type: "json" };
import nl from "./nl.json" with { type: "json" };
import ptBR from "./pt-BR.json" with { type: "json" };
import pl from "./pl.json" with { type: "json" };
import sv from "./sv.json" with { type: "json" };
import ja from "./ja.json" with { type: "json" };

export type LineMessageId = keyof typeof en;
export type LineSpeaker = Speaker<LineMessageId>;

export const LINE_CATALOGS: Catalogs<Record<LineMessageId, string>> = { en, de, fr, es, it, nl, "pt-BR": ptBR, pl, sv, ja };

/** The lines' speaker in `locale` (a supported locale or the pseudo-locale; anything else is English). */
export const lineSpeaker = speakers(LINE_CATALOGS);
