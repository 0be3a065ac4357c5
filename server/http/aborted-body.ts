// A request whose client went away before its body ended (an upload part cut off midway): the error its handler
// sees is the body stream's, about the client's connection, not a fault of the server. The error handlers answer
// it as a client error (the client is gone; the answer is for the log) instead of logging a 500.
import type { FastifyReply, FastifyRequest } from "fastify";

/** The body stream's errors when its connection closes early (Node's "aborted", a pipeline's premature close). */
const ABORT_CODES = new Set(["ECONNRESET", "ERR_STREAM_PREMATURE_CLOSE"]);

/** Whether `err` is the request body's own end, cut short by its client. */
export function isAbortedBody(req: FastifyRequest, err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && ABORT_CODES.has(code) && req.raw.readableAborted;
}

export const ABORTED_BODY = { error: "RequestAborted", detail: "The request body ended before it was complete." } as const;

/** Answers a request whose body was cut short (400, logged at info: the client left). */
export function sendAbortedBody(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  req.log.info("request body aborted by the client");
  return reply.status(400).send(ABORTED_BODY);
}
