// The currencies a price or a discount can be in, as a list the browser offers while typing a code: the
// browser's own list (Intl) with each code's name in the reader's language, so no table weighs on the bundle.
// The server remains the judge of a code (ISO 4217, lower-case); the field stays free text.
import { useMemo } from "react";

const COMMON = ["usd", "eur", "gbp", "cad", "aud", "jpy", "chf", "sek", "nok", "dkk", "inr", "brl"];

function codes(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  const all = intl.supportedValuesOf ? intl.supportedValuesOf("currency").map((c) => c.toLowerCase()) : [];
  return [...COMMON, ...all.filter((c) => !COMMON.includes(c))];
}

/** A <datalist id={id}> of currency codes; an input names it with `list={id}`. */
export function CurrencyList({ id }: { id: string }) {
  const options = useMemo(() => {
    let names: Intl.DisplayNames | null = null;
    try {
      names = new Intl.DisplayNames(undefined, { type: "currency" });
    } catch {
      names = null;
    }
    return codes().map((c) => ({ code: c, name: names?.of(c.toUpperCase()) ?? c.toUpperCase() }));
  }, []);
  return (
    <datalist id={id}>
      {options.map((o) => (
        <option key={o.code} value={o.code}>
          {o.name}
        </option>
      ))}
    </datalist>
  );
}
