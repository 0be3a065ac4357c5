// GET /api/auth/error?error={code}: the page social sign-in and link callbacks land on when they fail.
// better-auth ships its own page; ours carries the texts of the product spec §2.

const TEXT =
  "We encountered an issue while processing your request. Please try again or contact the application owner if the problem persists.";

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

export function errorPageHtml(code: string | undefined): string {
  const shown = code && code.length > 0 ? code.slice(0, 200) : "Unknown";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Authentication Error</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5; }
  code { font-size: 0.95em; }
  a { font-weight: 600; }
</style>
</head>
<body>
<main>
  <h1>Authentication Error</h1>
  <p>${TEXT}</p>
  <p><a href="/">Return to Application</a></p>
  <p>Error Code: <code>${escapeHtml(shown)}</code></p>
</main>
</body>
</html>
`;
}
