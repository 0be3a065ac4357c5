// The side navigation's icons: a small inline set (24-unit strokes in the current colour, drawn after Lucide's
// shapes, ISC), decorative beside their label, so screen readers skip them. Inline, they cost no request and no
// package; the set is as small as the sections.
import type { ReactNode } from "react";

const PATHS: Record<string, ReactNode> = {
  home: <path d="M3 10.5 12 3l9 7.5V20a1 1 0 0 1-1 1h-5v-6H9v6H4a1 1 0 0 1-1-1z" />,
  orders: (
    <>
      <path d="M6 2 3 6v14a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2V6l-3-4z" />
      <path d="M3 6h18M16 10a4 4 0 0 1-8 0" />
    </>
  ),
  subscriptions: (
    <>
      <path d="M21 12a9 9 0 0 1-15.5 6.2L3 16M3 12a9 9 0 0 1 15.5-6.2L21 8" />
      <path d="M21 3v5h-5M3 21v-5h5" />
    </>
  ),
  customers: (
    <>
      <circle cx="9" cy="7" r="4" />
      <path d="M2 21v-2a4 4 0 0 1 4-4h6a4 4 0 0 1 4 4v2M16 3.1a4 4 0 0 1 0 7.8M22 21v-2a4 4 0 0 0-3-3.9" />
    </>
  ),
  products: (
    <>
      <path d="M21 8 12 3 3 8v8l9 5 9-5z" />
      <path d="M3 8l9 5 9-5M12 13v8" />
    </>
  ),
  discounts: (
    <>
      <path d="M19 5 5 19" />
      <circle cx="6.5" cy="6.5" r="2.5" />
      <circle cx="17.5" cy="17.5" r="2.5" />
    </>
  ),
  "checkout-links": <path d="M10 13a5 5 0 0 0 7.5.5l3-3a5 5 0 0 0-7-7l-1.7 1.7M14 11a5 5 0 0 0-7.5-.5l-3 3a5 5 0 0 0 7 7l1.7-1.7" />,
  "custom-fields": (
    <>
      <rect x="3" y="5" width="18" height="14" rx="2" />
      <path d="M7 12h6M7 9h10M7 15h3" />
    </>
  ),
  meters: <path d="M3 3v18h18M7 15l4-4 3 3 5-6" />,
  "api-keys": (
    <>
      <circle cx="7.5" cy="15.5" r="4.5" />
      <path d="m10.7 12.3 9.3-9.3M16 7l3 3M19 4l2 2" />
    </>
  ),
  webhooks: <path d="M18 16.5a3.5 3.5 0 1 1-3.3 4.6H9M6 16.5a3.5 3.5 0 1 1 3-5.3l3-5.2M12 6a3.5 3.5 0 1 1 3 5.3l3 5.2" />,
  settings: <path d="M21 4h-7M10 4H3M21 12h-9M8 12H3M21 20h-5M12 20H3M14 2v4M8 10v4M16 18v4" />,
};

/** The icon of a section by its path's name ("orders"); nothing for one without. */
export function SectionIcon({ name }: { name: string }) {
  const shape = PATHS[name];
  if (!shape) return null;
  return (
    <svg
      className="section-icon" viewBox="0 0 24 24" width="18" height="18" fill="none"
      stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false"
    >
      {shape}
    </svg>
  );
}
