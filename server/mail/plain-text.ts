// How an email's HTML reads as plain text (html-to-text, through @react-email/render). Two rules html-to-text does
// not know: a receipt's line is its label and amount on one line (its table would put each cell on a line of its
// own), and a link's URL is printed once — the first link to an address shows it, a later link to the same
// address is its words alone (a portal linked from the note, the button and the footer reads as one URL).
// A link whose words are its address prints them alone.
/** The attributes a receipt's line carries for the text part (receipt.tsx). */
export interface TextLineAttributes {
  "data-text-label": string;
  "data-text-amount": string;
  /** The widest label and amount of the receipt ("12,7"), so the amounts line up on the right. */
  "data-text-width": string;
}

export const textLine = (label: string, amount: string, width: { label: number; amount: number }): TextLineAttributes => ({
  "data-text-label": label,
  "data-text-amount": amount,
  "data-text-width": `${width.label},${width.amount}`,
});

/** The widest of texts, in characters as a text reader counts them. */
export const widest = (texts: string[]) => Math.max(0, ...texts.map(length));

const length = (s: string) => [...s].length;
const pad = (s: string, width: number) => " ".repeat(Math.max(0, width - length(s)));

// html-to-text's formatter API (the package ships no types): only what these formatters use.
interface Elem {
  attribs?: Record<string, string | undefined>;
  children: unknown[];
}
interface Builder {
  openBlock(o: { leadingLineBreaks: number }): void;
  closeBlock(o: { trailingLineBreaks: number }): void;
  addLiteral(s: string): void;
  addInline(s: string, o?: { noWordTransform?: boolean }): void;
  pushWordTransform(f: (s: string) => string): void;
  popWordTransform(): void;
}
type Walk = (nodes: unknown[], builder: Builder) => void;

const MAILTO = /^mailto:/;

/** The options of one message's text rendering: a link's state (the URLs printed) lives for one message. */
export function plainTextOptions() {
  const printed = new Set<string>();
  return {
    wordwrap: false as const,
    formatters: {
      receiptLine(elem: Elem, _walk: Walk, builder: Builder) {
        const a = elem.attribs ?? {};
        const [label, amount] = [a["data-text-label"] ?? "", a["data-text-amount"] ?? ""];
        const [labelWidth = 0, amountWidth = 0] = (a["data-text-width"] ?? "").split(",").map(Number);
        builder.openBlock({ leadingLineBreaks: 1 });
        builder.addLiteral(`${label}${pad(label, labelWidth)}  ${pad(amount, amountWidth)}${amount}`);
        builder.closeBlock({ trailingLineBreaks: 1 });
      },
      linkOnce(elem: Elem, walk: Walk, builder: Builder) {
        const href = (elem.attribs?.href ?? "").replace(MAILTO, "");
        let text = "";
        builder.pushWordTransform((s) => {
          text += s;
          return s;
        });
        walk(elem.children, builder);
        builder.popWordTransform();
        if (!href || href.startsWith("#")) return;
        const shown = text === href || printed.has(href);
        printed.add(href);
        // in angle brackets (RFC 3986, appendix C): a sentence's full stop after it is not read as part of it
        if (!shown) builder.addInline(text ? ` <${href}>` : href, { noWordTransform: true });
      },
    },
    selectors: [
      { selector: "table[data-text-label]", format: "receiptLine" },
      { selector: "a", format: "linkOnce" },
    ],
  };
}
