// What a client sees of the server's auth mount: where better-auth is mounted, and how an organization API key
// starts (the server tells a key from a session token by it; so does the CLI).
export const AUTH_BASE_PATH = "/api/auth";
/** Prefix of every organization API key, so a leaked key is recognisable (secret scanners, logs). */
export const API_KEY_PREFIX = "till_";
/** New keys say their side (docs/architecture.md, "Sandbox"); keys made before say only till_ and are live. */
export const LIVE_API_KEY_PREFIX = "till_live_";
export const SANDBOX_API_KEY_PREFIX = "till_test_";
