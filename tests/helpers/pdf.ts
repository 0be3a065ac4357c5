// Reading a PDF's text in tests (unpdf, PDF.js underneath): what a person would read, whitespace collapsed.
import { extractText, getDocumentProxy } from "unpdf";

export async function pdfTextOf(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
  return text.replace(/\s+/g, " ");
}
