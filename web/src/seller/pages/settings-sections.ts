// The settings' sections, each its own address (/settings/<section>) so a link or the back button lands on it.
// Kept apart from their forms (settings-fields.ts) so the routes know the sections without loading the page.

export const SETTINGS_SECTIONS = [
  { slug: "organization", label: "Organization", intro: "Your organization's name and contacts, and where it stands on the way to live payments." },
  { slug: "legal", label: "Legal details", intro: "Who you are on your invoices and receipts." },
  { slug: "payments", label: "Payments", intro: "The Stripe account that takes your customers' payments, and your default currency." },
  { slug: "tax", label: "Tax", intro: "Where you collect tax, and whether your prices include it." },
  { slug: "dunning", label: "Failed payments", intro: "What happens when a renewal's charge fails." },
  { slug: "plans", label: "Plans and trials", intro: "How subscriptions change, and how trials start and end." },
  { slug: "portal", label: "Customer portal", intro: "What your customers may do for themselves in the portal." },
  { slug: "emails", label: "Emails", intro: "The emails your customers receive, and in which language." },
  { slug: "team", label: "Team", intro: "Who works in this organization, and what each may do." },
  { slug: "developers", label: "Developers", intro: "API keys, webhooks, and the sandbox's test clock." },
] as const;

export type SettingsSlug = (typeof SETTINGS_SECTIONS)[number]["slug"];

export const isSettingsSlug = (s: string): s is SettingsSlug => SETTINGS_SECTIONS.some((x) => x.slug === s);
