// The seller's credentials for delivering benefits, one document per platform, sealed at rest:
// - github: a token with admin rights on the repositories (a fine-grained or classic PAT), or a GitHub App
//   installation (app id, private key, installation id; till mints installation tokens); plus the OAuth app
//   (client id and secret) customers connect their GitHub account through.
// - discord: the bot's token and the application's OAuth client (guilds.join needs a user token issued to the
//   same application as the bot).
import { z } from "zod";

export const GithubIntegrationInput = z
  .object({
    token: z.string().min(1).max(2000).optional(),
    app_id: z.string().regex(/^\d{1,20}$/).optional(),
    private_key: z.string().min(1).max(20_000).optional(),
    installation_id: z.string().regex(/^\d{1,20}$/).optional(),
    client_id: z.string().min(1).max(200),
    client_secret: z.string().min(1).max(200),
  })
  .superRefine((v, ctx) => {
    const app = [v.app_id, v.private_key, v.installation_id].filter(Boolean).length;
    if (!v.token && app !== 3) ctx.addIssue({ code: "custom", path: ["token"], message: "Give a token, or app_id, private_key and installation_id" });
    if (v.token && app > 0) ctx.addIssue({ code: "custom", path: ["token"], message: "Give a token or a GitHub App, not both" });
    if (!v.token && app > 0 && app !== 3) ctx.addIssue({ code: "custom", path: ["app_id"], message: "A GitHub App needs app_id, private_key and installation_id" });
  });
export type GithubIntegration = z.output<typeof GithubIntegrationInput>;

export const DiscordIntegrationInput = z.object({
  bot_token: z.string().min(1).max(500),
  client_id: z.string().regex(/^\d{1,25}$/, "Input should be a Discord application id"),
  client_secret: z.string().min(1).max(200),
});
export type DiscordIntegration = z.output<typeof DiscordIntegrationInput>;

export interface Integrations {
  github: GithubIntegration;
  discord: DiscordIntegration;
}

/** Reads a stored (unsealed) document; null when it no longer parses. */
export function parseIntegration<P extends keyof Integrations>(platform: P, json: string | null): Integrations[P] | null {
  if (!json) return null;
  try {
    const schema = platform === "github" ? GithubIntegrationInput : DiscordIntegrationInput;
    const parsed = schema.safeParse(JSON.parse(json));
    return parsed.success ? (parsed.data as Integrations[P]) : null;
  } catch {
    return null;
  }
}
