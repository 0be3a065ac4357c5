// Module customization hooks (they run on the loader thread): append each resolved URL to the trace file.
import { appendFileSync } from "node:fs";

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (file) appendFileSync(file, `${result.url}\n`);
  return result;
}
