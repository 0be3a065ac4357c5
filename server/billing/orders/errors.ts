// The orders' own errors: a manual order finalized twice (412 OrderNotDraft).
import { declareError } from "../errors.js";

export const orderNotDraft = declareError({ status: 412, error: "OrderNotDraft", detail: "Only a draft order can be finalized." });
