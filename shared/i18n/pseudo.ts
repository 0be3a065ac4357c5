// The pseudo-locale's messages (`en-XA`, tests only): every literal accented and lengthened by about 40% inside
// [brackets], ICU arguments, plurals' structure and tags left intact — an untranslated string or a layout that
// clips longer text shows at once.
import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { printAST } from "@formatjs/icu-messageformat-parser/printer.js";

const ACCENTS: Record<string, string> = { a: "á", e: "é", i: "í", o: "ó", u: "ú", A: "Á", E: "É", I: "Í", O: "Ó", U: "Ú", n: "ñ", c: "ç" };

function accent(elements: MessageFormatElement[]): number {
  let letters = 0;
  for (const el of elements) {
    if (el.type === TYPE.literal) {
      letters += (el.value.match(/[A-Za-z]/g) ?? []).length;
      el.value = el.value.replace(/[A-Za-z]/g, (ch) => ACCENTS[ch] ?? ch);
    } else if (el.type === TYPE.tag) letters += accent(el.children);
    else if (el.type === TYPE.plural || el.type === TYPE.select) {
      for (const option of Object.values(el.options)) letters += accent(option.value);
    }
  }
  return letters;
}

/** One ICU message in the pseudo-locale. */
export function pseudoMessage(message: string): string {
  const ast = parse(message);
  const letters = accent(ast);
  return `[${printAST(ast)}${"~".repeat(Math.ceil(letters * 0.4))}]`;
}

/** A whole catalog in the pseudo-locale. */
export function pseudoCatalog<T extends Record<string, string>>(catalog: T): T {
  return Object.fromEntries(Object.entries(catalog).map(([id, m]) => [id, pseudoMessage(m)])) as T;
}
