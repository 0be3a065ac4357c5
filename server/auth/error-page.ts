// GET /api/auth/error?error={code}: the page social sign-in and link callbacks land on when they fail.
// better-auth ships its own page; ours carries the texts of the product spec's error screen in the web app's look (its
// own stylesheet, web/src/styles.css, inlined: light or dark from the system setting) and says in one line what the
// common codes mean.
import { readFileSync } from "node:fs";

const TEXT =
  "We encountered an issue while processing your request. Please try again or contact the application owner if the problem persists.";

/**
 * What went wrong, in the user's words, for the codes better-auth's callbacks and links send (the spec's error
 * catalogue).
 */
export const ERROR_EXPLANATIONS: Readonly<Record<string, string>> = {
  invalid_callback_request: "The sign-in provider sent back a request that could not be read.",
  state_not_found: "The sign-in took too long or was started in another browser; start it again from this browser.",
  state_mismatch: "The sign-in was started in another browser or tab; start it again from this one.",
  please_restart_the_process: "The sign-in could not be completed; start it again.",
  no_code: "The sign-in provider did not send an authorization code back.",
  oauth_provider_not_found: "This server does not offer that sign-in provider.",
  invalid_code: "The sign-in provider refused the authorization code; start the sign-in again.",
  unable_to_get_user_info: "Your profile could not be read from the sign-in provider.",
  no_callback_url: "The sign-in request did not say where to return to.",
  unable_to_link_account: "That account could not be linked to yours.",
  "email_doesn't_match": "The provider's account uses another email address than yours, so it was not linked.",
  account_already_linked_to_different_user: "That provider account is already linked to another user.",
  email_not_found: "The sign-in provider did not share an email address; allow it to and try again.",
  account_not_linked:
    "Account not linked - linking not allowed: an account with this email already exists, and either its email address " +
    "is not verified yet or the provider did not confirm the email. Sign in with your email and password (or reset your " +
    "password if you never set one), verify your address from the email we send, then link the provider from your account.",
  signup_disabled: "New accounts cannot be created here; sign in with an existing account.",
  banned: "This account has been suspended.",
  internal_server_error: "Something failed on the server; try again in a moment.",
  token_expired: "The link has expired; ask for a new one.",
  invalid_token: "The link is not valid or was already used; ask for a new one.",
  user_not_found: "No account matches this link.",
  unauthorized: "You need to be signed in as the right account to use this link.",
};

export const explanationOf = (code: string): string | undefined => ERROR_EXPLANATIONS[code.toLowerCase()];

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** The web app's stylesheet, read once; without it (a trimmed deployment) the page keeps the browser's look. */
let appStyles: string | undefined;
function stylesheet(): string {
  if (appStyles === undefined) {
    try {
      appStyles = readFileSync(new URL("../../web/src/styles.css", import.meta.url), "utf8");
    } catch {
      appStyles = "body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5; }";
    }
  }
  // a stylesheet never holds markup, but it must not be able to close the element it sits in
  return appStyles.replace(/<\/style/gi, "<\\/style");
}

export function errorPageHtml(code: string | undefined): string {
  const shown = code && code.length > 0 ? code.slice(0, 200) : "Unknown";
  const explanation = code ? explanationOf(shown) : undefined;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Authentication Error</title>
<style>
${stylesheet()}
.auth-error code { font-size: 0.95em; overflow-wrap: anywhere; }
</style>
</head>
<body>
<header class="site"><a href="/" class="brand">till</a></header>
<main class="auth-error">
  <h1>Authentication Error</h1>
  <p>${TEXT}</p>
  ${explanation ? `<p class="status error">${escapeHtml(explanation)}</p>\n  ` : ""}<p>Error Code: <code>${escapeHtml(shown)}</code></p>
  <p><a href="/">Return to Application</a></p>
</main>
</body>
</html>
`;
}
