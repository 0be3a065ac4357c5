// Reading a PDF's text in tests (unpdf, PDF.js underneath): what a person would read, whitespace collapsed.
import { extractText, getDocumentProxy } from "unpdf";

export async function pdfTextOf(bytes: Uint8Array): Promise<string> {
  const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
  return text.replace(/\s+/g, " ");
}

/** Polls `probe` until it answers, waking the server's worker between tries (an outbox job it waits for). */
export async function untilWorked<T>(server: { worker: { wake(): void } }, what: string, probe: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  for (const end = Date.now() + ms; ; ) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    server.worker.wake();
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The text of an order's invoice PDF once the worker made it (`GET /v1/orders/{id}/invoice` with `token`), whitespace
 * collapsed.
 */
export async function invoiceTextOf(server: { url: string; worker: { wake(): void } }, token: string, orderId: string): Promise<string> {
  const url = await untilWorked(server, `the invoice of ${orderId}`, async () => {
    const res = await fetch(`${server.url}/v1/orders/${orderId}/invoice`, { headers: { authorization: `Bearer ${token}` } });
    return res.status === 200 ? ((await res.json()) as { url: string }).url : null;
  });
  return (await pdfTextOf(new Uint8Array(await (await fetch(url)).arrayBuffer()))).trim();
}
