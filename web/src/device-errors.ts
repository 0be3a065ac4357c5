// The messages better-auth's device-authorization plugin (1.7) answers with, from
// node_modules/better-auth/dist/plugins/device-authorization/error-codes.mjs. Several share the OAuth error
// code invalid_request, so the page tells them apart by their description; tests/e2e/web.test.ts drives
// every state against the real server, so a changed message fails there.
export const DEVICE_ERRORS = {
  INVALID_USER_CODE: "Invalid user code",
  EXPIRED_USER_CODE: "User code has expired",
  DEVICE_CODE_ALREADY_PROCESSED: "Device code already processed",
} as const;
