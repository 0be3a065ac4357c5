// The customer pages' message catalogs (web/src/i18n/<surface>/<locale>.json): every locale of
// shared/i18n/locales.ts has a catalog per surface with exactly the English catalog's keys, each message parses as
// ICU, names the same arguments as the English one (a translation that drops {amount} or renames it shows
// nothing there) and has the plural forms its language's rules ask for; the pseudo-locale is built from English.
import { readFileSync } from "node:fs";
import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { LOCALES } from "../../shared/i18n/locales.js";
import { pseudoCatalog } from "../../shared/i18n/pseudo.js";

const SURFACES = ["checkout", "portal", "embed"] as const;
const catalog = (surface: string, locale: string) =>
  JSON.parse(readFileSync(new URL(`../../web/src/i18n/${surface}/${locale}.json`, import.meta.url), "utf8")) as Record<string, string>;

/** The argument names a message uses (plural/select/simple), nested ones included. */
function argumentsOf(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type === TYPE.argument || el.type === TYPE.number || el.type === TYPE.date || el.type === TYPE.time) into.add(el.value);
    if (el.type === TYPE.plural || el.type === TYPE.select) {
      into.add(el.value);
      for (const o of Object.values(el.options)) argumentsOf(o.value, into);
    }
    if (el.type === TYPE.tag) argumentsOf(el.children, into);
  }
  return into;
}

/** The plural keywords a message's plurals use, which must be among the language's categories (or =n). */
function pluralKeys(elements: MessageFormatElement[], into: string[] = []): string[] {
  for (const el of elements) {
    if (el.type === TYPE.plural) {
      into.push(...Object.keys(el.options));
      for (const o of Object.values(el.options)) pluralKeys(o.value, into);
    }
    if (el.type === TYPE.select) for (const o of Object.values(el.options)) pluralKeys(o.value, into);
  }
  return into;
}

describe.each(SURFACES)("the %s catalogs", (surface) => {
  const en = catalog(surface, "en");

  it.each(LOCALES.filter((l) => l !== "en"))("%s has exactly the English keys, ICU messages with the same arguments and its plural forms", (locale) => {
    const messages = catalog(surface, locale);
    expect(Object.keys(messages).sort()).toEqual(Object.keys(en).sort());
    const categories = new Set(new Intl.PluralRules(locale).resolvedOptions().pluralCategories);
    for (const [id, message] of Object.entries(messages)) {
      const ast = parse(message);
      expect([...argumentsOf(ast)].sort(), `${locale} ${id}`).toEqual([...argumentsOf(parse(en[id] ?? ""))].sort());
      for (const key of pluralKeys(ast)) expect(key.startsWith("=") || categories.has(key as Intl.LDMLPluralRule), `${locale} ${id}: ${key}`).toBe(true);
      expect(pluralKeys(ast).every((k) => k !== "other") || pluralKeys(ast).includes("other"), `${locale} ${id}`).toBe(true);
    }
  });

  it("English parses; the pseudo-locale brackets every message and keeps its arguments", () => {
    const pseudo = pseudoCatalog(en);
    for (const [id, message] of Object.entries(en)) {
      expect(() => parse(message), id).not.toThrow();
      expect(pseudo[id]).toMatch(/^\[.*\]$/s);
      expect([...argumentsOf(parse(pseudo[id] ?? ""))].sort()).toEqual([...argumentsOf(parse(message))].sort());
    }
  });

  it("has no message that is the English one in another locale, beyond words that are the same there", () => {
    // a copy of English left behind is an untranslated string; short shared words (Total, Email, CVC) may match
    for (const locale of LOCALES.filter((l) => l !== "en")) {
      const messages = catalog(surface, locale);
      const same = Object.entries(messages).filter(([id, m]) => m === en[id] && /[a-z]{3,}.*\s.*[a-z]{3,}/i.test(m.replace(/\{[^{}]*\}/g, "")));
      expect(same.map(([id]) => id), locale).toEqual([]);
    }
  });
});
