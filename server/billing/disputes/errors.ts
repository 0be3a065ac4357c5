// The disputes' own errors: accepting a dispute that is closed already, or that the processor would not close
// (409 DisputeNotOpenError). A processor that cannot be reached is the shared badGateway.
import { declareError } from "../errors.js";
import type { DisputeRow } from "./wire.js";

export const disputeNotOpen = declareError({
  status: 409,
  error: "DisputeNotOpenError",
  detail: (row: Pick<DisputeRow, "id" | "status">) => `Dispute ${row.id} is not open: it is ${row.status}.`,
});

/** The processor is not connected, or refused to close the dispute: `why` says which. */
export const disputeNotClosable = declareError({ status: 409, error: "DisputeNotOpenError", detail: (why: string) => why });
