// Requests written on a bare socket, for the bodies fetch cannot send: longer or shorter than they declare,
// cut off midway, or streamed past every limit.
import net from "node:net";

export interface RawAnswer {
  /** The answer's status, or null when the connection ended without one. */
  status: number | null;
  text: string;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Bytes sent after the head. */
  body?: Buffer | string;
  /** Content-Length to declare (default: the body's length); "chunked" streams `chunked` bytes instead. */
  length?: number | "chunked";
  /** With length "chunked": how many bytes to stream before the last chunk (stopped early if the server hangs up). */
  chunked?: number;
  /**
   * What the client does once the body is written: wait for the answer (default), half-close its side (a body
   * that ends before its declared length), or drop the connection (a body aborted midway).
   */
  then?: "answer" | "half-close" | "destroy";
}

/** Sends `req` to `base` on a new connection (Connection: close) and resolves with what came back. */
export function rawHttp(base: string, req: RawRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  const body = req.body === undefined ? Buffer.alloc(0) : Buffer.from(req.body);
  const headers: Record<string, string> = { host: `${hostname}:${port}`, connection: "close", ...req.headers };
  if (req.length === "chunked") headers["transfer-encoding"] = "chunked";
  else headers["content-length"] = String(req.length ?? body.length);
  const head = [`${req.method} ${req.path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), "", ""].join("\r\n");
  return new Promise<RawAnswer>((resolve) => {
    const received: Buffer[] = [];
    let closed = false;
    const socket = net.connect(Number(port), hostname);
    const finish = () => {
      closed = true;
      const text = Buffer.concat(received).toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, text });
    };
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    // a server that hangs up on an oversized body resets the connection: what it answered first still counts
    socket.on("error", () => {});
    socket.on("close", finish);
    socket.once("connect", () => {
      socket.write(head);
      if (req.length === "chunked") void streamChunks(socket, req.chunked ?? 0, () => closed);
      else if (body.length > 0) socket.write(body);
      if (req.then === "half-close") socket.end();
      else if (req.then === "destroy") socket.write("", () => socket.destroy());
    });
  });
}

/** Writes `total` bytes as 64 KiB chunks, then the last chunk, waiting for the socket to drain between them. */
async function streamChunks(socket: net.Socket, total: number, closed: () => boolean): Promise<void> {
  const piece = Buffer.alloc(64 * 1024, 0x20);
  for (let sent = 0; sent < total && !closed(); sent += piece.length) {
    const n = Math.min(piece.length, total - sent);
    const ok = socket.write(`${n.toString(16)}\r\n`) && socket.write(piece.subarray(0, n)) && socket.write("\r\n");
    if (!ok) await new Promise((r) => (socket.once("drain", r), socket.once("close", r)));
  }
  if (!closed()) socket.write("0\r\n\r\n");
}
