// The imports' own errors: one run at a time per organization, and an undo of a run that moved nothing or is still
// under way (409, in Polar's error shape).
import { declareError, errorUnion } from "../errors.js";

export const importInProgress = declareError({
  status: 409,
  error: "ImportInProgress",
  detail: "An import of this organization is under way: wait for it to finish (till import show <id>), then start another.",
});

export const importNotUndoable = declareError({
  status: 409,
  error: "ImportNotUndoable",
  detail: (why: string) => `This import cannot be undone: ${why}`,
});

export const importConflict = errorUnion("ImportConflict", [importInProgress, importNotUndoable]);
