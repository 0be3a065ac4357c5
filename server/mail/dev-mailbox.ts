// /dev/mail: the dev mailbox in the browser. In development with the dev mailbox (no SMTP_URL), the messages the
// server wrote under <data dir>/mail/ (each .eml with its .json beside it, mailer.ts) are listed, newest first,
// and each is shown (its HTML part in a sandboxed frame, its text part). Only to loopback clients; anyone
// else, and any server not in that mode, gets a 404 (the route does not exist there).
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { StoredMessage } from "./mailer.js";

/** At most this many messages are listed (the newest). */
const LIST_LIMIT = 200;

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  // the messages' own HTML runs in a frame without scripts; the page itself has none either
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src * data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
} as const;

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** 127.0.0.0/8 and ::1, also as IPv4-mapped addresses: the socket's peer, never a forwarded header. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4.startsWith("127.") || address === "::1";
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>${escape(title)} · till dev mailbox</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:60rem;padding:0 1rem}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #8884;vertical-align:top}iframe{width:100%;height:32rem;border:1px solid #8886;background:#fff}
pre{white-space:pre-wrap;border:1px solid #8886;padding:1rem}dt{font-weight:600}dd{margin:0 0 .5rem}</style></head>
<body>${body}</body></html>
`;
}

function readMessage(mailDir: string, name: string): StoredMessage | null {
  try {
    return JSON.parse(readFileSync(path.join(mailDir, `${name}.json`), "utf8")) as StoredMessage;
  } catch {
    return null;
  }
}

function listPage(mailDir: string): string {
  const names = existsSync(mailDir)
    ? readdirSync(mailDir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => f.slice(0, -5))
        .sort()
        .reverse()
        .slice(0, LIST_LIMIT)
    : [];
  const rows = names.flatMap((name) => {
    const m = readMessage(mailDir, name);
    if (!m) return [];
    return [
      `<tr><td>${escape(new Date(m.date).toLocaleString("en-GB", { timeZone: "UTC" }))} UTC</td><td>${escape(m.to)}</td><td>${escape(m.from)}</td>` +
        `<td><a href="/dev/mail/${encodeURIComponent(name)}">${escape(m.subject || "(no subject)")}</a></td></tr>`,
    ];
  });
  const table =
    rows.length === 0
      ? "<p>No messages yet. Mail the server sends (sign-in codes, receipts, invitations) shows up here.</p>"
      : `<table><thead><tr><th scope="col">Sent</th><th scope="col">To</th><th scope="col">From</th><th scope="col">Subject</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
  return page("Mailbox", `<h1>Dev mailbox</h1><p>The messages this server sent (newest first), kept in <code>${escape(mailDir)}</code>.</p>${table}`);
}

function messagePage(m: StoredMessage): string {
  const facts = `<dl><dt>From</dt><dd>${escape(m.from)}</dd><dt>To</dt><dd>${escape(m.to)}</dd><dt>Sent</dt><dd>${escape(m.date)}</dd></dl>`;
  const html = m.html ? `<h2>HTML</h2><iframe title="The message's HTML part" sandbox srcdoc="${escape(m.html)}"></iframe>` : "";
  return page(m.subject, `<p><a href="/dev/mail">All messages</a></p><h1>${escape(m.subject || "(no subject)")}</h1>${facts}${html}<h2>Text</h2><pre>${escape(m.text)}</pre>`);
}

export function devMailPlugin(opts: { mailDir: string }) {
  return async function devMail(app: FastifyInstance): Promise<void> {
    const loopbackOnly = async (req: FastifyRequest, reply: FastifyReply) => {
      if (!isLoopback(req.socket.remoteAddress)) return reply.callNotFound();
    };
    app.get("/dev/mail", { onRequest: loopbackOnly }, async (_req, reply) => reply.headers(HEADERS).send(listPage(opts.mailDir)));
    app.get<{ Params: { name: string } }>("/dev/mail/:name", { onRequest: loopbackOnly }, async (req, reply) => {
      const name = req.params.name;
      const m = /^[\w.-]{1,200}$/.test(name) && !name.startsWith(".") ? readMessage(opts.mailDir, name) : null;
      if (!m) return reply.callNotFound();
      return reply.headers(HEADERS).send(messagePage(m));
    });
  };
}
