// Asking before an action that cannot be undone (`catalog apply`, `subscriptions revoke`, `refunds create`):
// a person at a terminal answers y/N; with --yes nobody is asked; CI, pipes and --json have nobody to ask, so
// the command stops (exit 2, nothing sent) and the hint says how to run it with --yes.
import type { Context } from "./context.js";
import { EXIT, ExitStatus, UsageError } from "./errors.js";

/** A person can answer: stdin and stderr are terminals, not --json, not CI. */
export function canAsk(ctx: Context): boolean {
  return !ctx.json && !ctx.env.ci && process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** y/yes on the terminal; anything else declines. */
export async function ask(question: string): Promise<boolean> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export interface Confirmation {
  /** --yes was given. */
  yes: boolean | undefined;
  /** The verb, as the errors name it: "revoke", "refund". */
  action: string;
  /** Why it needs a yes, after "needs confirmation: ". */
  reason: string;
  /** The hint when nobody can answer: what to check, and the command again with --yes. */
  hint: string;
  /** The question, built only when someone can answer it (it may load what it shows). Ends with "[y/N] ". */
  question: () => Promise<string>;
}

/**
 * Returns when the action may go ahead: --yes, or a yes at the terminal. Throws a UsageError (exit 2) when
 * nobody can answer; any answer but yes prints "Cancelled: nothing was changed." (not an error) and exits 2.
 */
export async function confirm(ctx: Context, c: Confirmation): Promise<void> {
  if (c.yes) return;
  if (!canAsk(ctx)) throw new UsageError(`${c.action} needs confirmation: ${c.reason} and nobody to ask`, c.hint);
  if (!(await ask(await c.question()))) {
    ctx.out.info("Cancelled: nothing was changed.");
    throw new ExitStatus(EXIT.usage);
  }
}

/** One line typed at the terminal (an email), trimmed. */
export async function askLine(question: string): Promise<string> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/**
 * Throws away what reached the terminal before a question was shown (`wait` ms for it to arrive) and returns
 * how many lines that was: a block of commands pasted after `till orgs create …` must not answer its questions.
 */
async function dropTypedAhead(wait = 50): Promise<number> {
  const stdin = process.stdin;
  let dropped = "";
  const onData = (chunk: Buffer) => (dropped += chunk.toString("utf8"));
  stdin.setRawMode(true);
  stdin.on("data", onData);
  stdin.resume();
  await new Promise((r) => setTimeout(r, wait));
  stdin.off("data", onData);
  stdin.pause();
  stdin.setRawMode(false);
  return dropped.split(/\r\n|\r|\n/).filter((l) => l.trim() !== "").length;
}

/**
 * Several lines typed at the terminal, one per question, trimmed: one reader, so lines typed ahead while the
 * questions are shown are kept; lines typed before the first one are dropped (`onDropped` says how many).
 * Ctrl-C or Ctrl-D at any question resolves null: the caller cancels, having done nothing yet.
 */
export async function askLines(questions: readonly string[], onDropped: (lines: number) => void = () => {}): Promise<string[] | null> {
  const dropped = await dropTypedAhead();
  if (dropped > 0) onDropped(dropped);
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  let cancel: () => void = () => {};
  const cancelled = new Promise<null>((resolve) => (cancel = () => resolve(null)));
  // in raw mode Ctrl-C reaches readline as a key, not as a signal: without a listener readline pauses and waits
  rl.on("SIGINT", cancel);
  rl.on("close", cancel);
  // the iterator queues every line read, also those typed before their question is shown
  const lines = rl[Symbol.asyncIterator]();
  try {
    const answers: string[] = [];
    for (const q of questions) {
      rl.setPrompt(q);
      rl.prompt();
      const next = await Promise.race([lines.next(), cancelled]);
      if (next === null || next.done) {
        process.stderr.write("\n");
        return null;
      }
      answers.push(String(next.value).trim());
    }
    return answers;
  } finally {
    rl.off("close", cancel);
    rl.close();
    process.stdin.pause();
  }
}

/**
 * A secret typed at the terminal without echo (a password): raw mode, Enter ends it, Backspace erases,
 * Ctrl-C or Ctrl-D cancels (null: the caller says "Cancelled" and exits 2).
 */
export function askSecret(question: string): Promise<string | null> {
  const stdin = process.stdin;
  return new Promise((resolve) => {
    let typed = "";
    const finish = (value: string | null) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return finish(typed);
        if (ch === "\u0003" || ch === "\u0004") return finish(null);
        if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
        else if (ch >= " ") typed += ch;
      }
    };
    // echo off before the question shows: what is typed as soon as it appears must not be echoed
    stdin.setRawMode(true);
    process.stderr.write(question);
    stdin.resume();
    stdin.on("data", onData);
  });
}
