// The customer sessions' own errors: a session code that is wrong or expired (401, in Polar's Unauthorized shape,
// with the code the portal's page translates). A missing or unknown session token is the shared `unauthorized`.
import { declareError } from "../errors.js";

export const invalidSessionCode = declareError({
  status: 401,
  error: "Unauthorized",
  detail: "This customer session code is invalid or has expired.",
  code: "session_code_invalid",
});
