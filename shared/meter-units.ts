// How one unit of a meter reads after a price ("$0.005 per API call"): the CLI and the checkout page say it
// the same way.

/** "API calls" → "API call", "Tokens" → "token": the meter's name for one unit. */
export function unitName(meterName: string): string {
  const name = meterName.trim() || "unit";
  const words = name.split(/\s+/);
  const last = words.at(-1) ?? name;
  if (/[^s]s$/i.test(last)) words[words.length - 1] = last.slice(0, -1);
  const one = words.join(" ");
  // a capital only because it starts the name reads better lower-cased after "per"
  return /^[A-Z][a-z]/.test(one) ? one[0]?.toLowerCase() + one.slice(1) : one;
}
