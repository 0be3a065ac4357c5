// Creating an organization from the web app (better-auth's route, with the cookie), and the slug it gets.
import { auth } from "./api.js";

/** "Acme Inc." → "acme-inc": the slug the CLI derives too (`till orgs create`). */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
}

export const createOrganization = (name: string, slug: string) => auth.post<{ id: string; slug: string }>("/organization/create", { name, slug });
