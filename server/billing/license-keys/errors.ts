// The license keys' own errors: a validation that asks for more usages than the key has left (400 BadRequest).
import { declareError } from "../errors.js";

export const usagesExhausted = declareError({ status: 400, error: "BadRequest", detail: (remaining: number) => `License key only has ${remaining} more usages.` });
