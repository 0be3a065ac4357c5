// The customer emails' catalogs (one JSON file per locale beside this one; English is the source) and the speaker
// a message is written with. Adding a language: its JSON here with exactly English's keys
// (tests/unit/server-i18n.test.ts).
import { speakers, type Catalogs, type Speaker } from "../../i18n/intl.js";
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

export type MailMessageId = keyof typeof en;
export type MailSpeaker = Speaker<MailMessageId>;

export const MAIL_CATALOGS: Catalogs<Record<MailMessageId, string>> = { en, de, fr, es, it, nl, "pt-BR": ptBR, pl, sv, ja };

/** The emails' speaker in `locale` (a supported locale or the pseudo-locale; anything else is English). */
export const mailSpeaker = speakers(MAIL_CATALOGS);
