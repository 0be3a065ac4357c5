// Used only by `npm run auth:generate` to derive server/db/schema/auth.ts from the auth configuration.
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { loadConfig } from "../server/config.js";
import { createAuth } from "../server/auth/index.js";
import { createMailer } from "../server/mail/mailer.js";

const config = loadConfig({
  TILL_OIDC_ISSUER: "http://127.0.0.1:1/",
  TILL_OIDC_CLIENT_ID: "x",
  TILL_OIDC_CLIENT_SECRET: "x",
  GITHUB_CLIENT_ID: "x",
  GITHUB_CLIENT_SECRET: "x",
});
export const auth = createAuth({
  config,
  db: drizzle(new PGlite()),
  mailer: createMailer({ smtpUrl: undefined, from: config.mail.from, mailDir: "/tmp", log: () => {} }),
  secret: "x".repeat(32),
});
