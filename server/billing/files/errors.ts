// The files' own errors: an upload completed twice (409 Conflict).
import { declareError } from "../errors.js";

export const alreadyUploaded = declareError({ status: 409, error: "Conflict", detail: "The file is already uploaded." });
