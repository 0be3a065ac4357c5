// Renders a customer email to its two parts: HTML (React Email) and plain text (from the same component).
import { render } from "@react-email/render";
import type { CustomerEmailType } from "../billing/customer-emails/types.js";
import type { MailContext } from "./templates/data.js";
import { TEMPLATES } from "./templates/index.js";
import { plainTextOptions } from "./plain-text.js";
import { PortalCode, portalCodeSubject } from "./templates/portal-code.js";

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
  /** The message's own call to action beside the portal link (a seat's claim page), for the dev mailbox summary. */
  link?: string;
}

/** Throws (a zod error) when `data` is not the resource the type needs. */
export async function renderCustomerEmail(type: CustomerEmailType, data: unknown, ctx: MailContext): Promise<RenderedEmail> {
  const { subject, element, link } = TEMPLATES[type](data, ctx);
  const [html, text] = await Promise.all([render(element), render(element, { plainText: true, htmlToTextOptions: plainTextOptions() })]);
  return { subject, html, text, ...(link ? { link } : {}) };
}

/** The customer portal's sign-in code email, from the seller. */
export async function renderPortalCodeEmail(code: string, ctx: MailContext): Promise<RenderedEmail> {
  const element = PortalCode({ code, ctx });
  const [html, text] = await Promise.all([render(element), render(element, { plainText: true, htmlToTextOptions: plainTextOptions() })]);
  return { subject: portalCodeSubject(ctx), html, text };
}

export type { MailContext };
