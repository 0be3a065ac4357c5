// The imports' own errors (till's, not Polar's: the document shows their body's shape): one run at a time per
// organization, and an undo of a run that moved nothing or is still under way (409, in Polar's error shape).
import { z } from "zod";
import { declareError } from "../errors.js";

const conflict = z.object({ error: z.string(), detail: z.string() });

export const importInProgress = declareError({
  status: 409,
  error: "ImportInProgress",
  model: conflict,
  detail: "An import of this organization is under way: wait for it to finish (till import show <id>), then start another.",
});

export const importNotUndoable = declareError({
  status: 409,
  error: "ImportNotUndoable",
  model: conflict,
  detail: (why: string) => `This import cannot be undone: ${why}`,
});
