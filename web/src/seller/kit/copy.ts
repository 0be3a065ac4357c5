// Copying a value (an id, a URL) to the clipboard from a page's action or a row's menu.

/** Copies `text`; false where the browser refuses (no clipboard permission, an insecure origin). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
