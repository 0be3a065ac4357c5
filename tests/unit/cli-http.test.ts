// cli/http.ts, the CLI's one-request HTTP client, against real node:http and raw TCP servers on loopback.
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dechunk, exchange } from "../../cli/http.js";

let http: ReturnType<typeof createServer>;
let base: string;
const seen: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[] = [];

async function listen(server: Server | ReturnType<typeof createServer>): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** A TCP server that answers every connection with these bytes, then closes it. */
async function rawServer(answer: string): Promise<{ url: string; close: () => void }> {
  const server = createTcpServer((socket) => {
    socket.once("data", () => socket.end(answer));
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/`, close: () => server.close() };
}

beforeAll(async () => {
  http = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      if (req.url === "/chunked") {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"items":[1,');
        res.end('2,"é"]}');
      } else if (req.url === "/empty") {
        res.writeHead(204).end();
      } else {
        const text = JSON.stringify({ method: req.method, body });
        res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(req.method === "HEAD" ? undefined : text);
      }
    });
  });
  base = `http://127.0.0.1:${await listen(http)}`;
});
afterAll(() => http.close());

const get = (path: string, method = "GET", body?: string) =>
  exchange(new URL(`${base}${path}`), { method, headers: { accept: "application/json", authorization: "Bearer t" }, body, timeoutMs: 5_000 });

describe("exchange", () => {
  it("sends the method, path, query, headers and body; reads a Content-Length answer", async () => {
    const r = await get("/things?x=1&y=%C3%A9", "POST", JSON.stringify({ name: "Ünïcode" }));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toEqual({ method: "POST", body: '{"name":"Ünïcode"}' });
    const req = seen.at(-1);
    expect(req?.url).toBe("/things?x=1&y=%C3%A9");
    expect(req?.headers).toMatchObject({ authorization: "Bearer t", accept: "application/json", connection: "close", "content-length": "20" });
  });

  it("reads a chunked answer, a 404, a 204 and a HEAD; a bodyless POST sends Content-Length: 0", async () => {
    expect(JSON.parse((await get("/chunked")).text)).toEqual({ items: [1, 2, "é"] });
    expect((await get("/missing")).status).toBe(404);
    expect(await get("/empty")).toMatchObject({ status: 204, text: "" });
    expect(await get("/", "HEAD")).toMatchObject({ status: 200, text: "" });
    await get("/", "DELETE");
    expect(seen.at(-1)?.headers["content-length"]).toBe("0");
  });

  it("reads to the end of the connection when the answer has no length", async () => {
    const server = await rawServer("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the end");
    try {
      expect(await exchange(new URL(server.url), { method: "GET", headers: {}, timeoutMs: 5_000 })).toMatchObject({ status: 200, text: "until the end" });
    } finally {
      server.close();
    }
  });

  it("rejects a malformed or cut answer, a refused connection and a header with a line break", async () => {
    for (const answer of ["garbage\r\n\r\n", "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n", ""]) {
      const server = await rawServer(answer);
      try {
        await expect(exchange(new URL(server.url), { method: "GET", headers: {}, timeoutMs: 5_000 })).rejects.toThrow();
      } finally {
        server.close();
      }
    }
    const closed = createTcpServer();
    const port = await listen(closed);
    closed.close();
    await expect(exchange(new URL(`http://127.0.0.1:${port}/`), { method: "GET", headers: {}, timeoutMs: 5_000 })).rejects.toThrow(/ECONNREFUSED/);
    await expect(exchange(new URL(base), { method: "GET", headers: { "x-a": "1\r\nx-b: 2" }, timeoutMs: 5_000 })).rejects.toThrow(/line breaks/);
  });

  it("gives up after the timeout", async () => {
    const silent = createTcpServer(() => {});
    const port = await listen(silent);
    try {
      await expect(exchange(new URL(`http://127.0.0.1:${port}/`), { method: "GET", headers: {}, timeoutMs: 200 })).rejects.toThrow(/no answer within/);
    } finally {
      silent.close();
    }
  });
});

describe("dechunk", () => {
  it("joins the chunks, ignores extensions and trailers", () => {
    expect(dechunk(Buffer.from("3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nx-trailer: 1\r\n\r\n")).toString()).toBe("abcde");
  });
});
