// Sellers write product descriptions in markdown; pages show them as HTML through micromark, which escapes
// any HTML in the source (allowDangerousHtml is off) and drops link and image URLs with unsafe protocols
// (javascript:, data:, …), so a description can never inject markup or script into the checkout or the portal.
// The parser is its own chunk, loaded only by a page that has a description to show (the text shows as it is
// until then).
import { useEffect, useState } from "react";

/** The HTML of `source`, safe to insert: no raw HTML passes, only http(s)/mailto links and http(s) images. */
export const markdownToHtml = async (source: string): Promise<string> => (await import("micromark")).micromark(source);

export function Markdown({ source, className }: { source: string; className?: string }) {
  const [html, setHtml] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void markdownToHtml(source).then((h) => live && setHtml(h));
    return () => {
      live = false;
    };
  }, [source]);
  const classes = ["markdown", className].filter(Boolean).join(" ");
  return html === null ? <div className={classes}>{source}</div> : <div className={classes} dangerouslySetInnerHTML={{ __html: html }} />;
}
