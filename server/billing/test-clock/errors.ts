// The test clock's own errors: an advance that moved the clock but could not do all it had due (409).
import { declareError } from "../errors.js";

export const advanceIncomplete = declareError({
  status: 409,
  error: "TestClockAdvanceIncomplete",
  detail: (what: string) => `${what}; the clock moved to the target and the schedule will retry it.`,
});
