// Wire values in a reader's words, for the seller app and the customer portal alike: one mapping per kind of value,
// looked up the same way, and what a mapping does not know (a newer server's value) still read, never a blank.

/** snake_case or dotted words as a sentence: "customer_seat.assigned" → "Customer seat assigned". */
export function readable(type: string): string {
  const text = type.replace(/[._]+/g, " ").trim();
  return text ? text[0]!.toUpperCase() + text.slice(1) : "—";
}

/**
 * A mapping's words for a value: its own for one it knows, `fallback`'s for one it does not, a dash for none.
 * `key` is how a value is looked up (a card brand in any case), while `fallback` reads the value as it came.
 */
export function wordsFor(
  map: Readonly<Record<string, string>>,
  fallback: (value: string) => string = readable,
  key: (value: string) => string = (value) => value,
): (value: string | null | undefined) => string {
  return (value) => (value ? (map[key(value)] ?? fallback(value)) : "—");
}
