// How a command's result reaches the user. Commands gather their data, then hand it here once:
// - `--json`: only JSON on stdout (the data as gathered), errors as {"error":{message,code,hint}} on stderr;
// - a terminal: Ink components (tables, spinners), loaded lazily, so --json and --help never load Ink/React;
// - a pipe: plain text (tables as tab-separated rows without a header, like the GitHub CLI).
// Colour is off with NO_COLOR, TERM=dumb, --no-color, or when the stream is not a terminal.
import type { CliEnv } from "./env.js";
import { asCliError } from "./errors.js";
import { scopeHint } from "./hints.js";
import type { JsonPrinter } from "./json-filter.js";

export interface Column<T> {
  header: string;
  value: (row: T) => string;
}

export interface Field {
  label: string;
  value: string;
}

type Ui = typeof import("./ui/index.js");
type Live = typeof import("./ui/live.js");

export interface Output {
  readonly json: boolean;
  /** stdout is a terminal and we are not in --json mode: Ink renders. */
  readonly interactive: boolean;
  /** stderr is a terminal (and not --json): progress such as spinners may be drawn there. */
  readonly interactiveErr: boolean;
  /** Rows as a table; --json prints `rows` themselves. */
  table<T>(rows: readonly T[], columns: Column<T>[], opts?: { empty?: string }): Promise<void>;
  /** One object as labelled fields; --json prints `data`. */
  record(data: unknown, fields: Field[]): Promise<void>;
  /**
   * Rows whose text is too long for a table: on a terminal each row's `title` on a line and its `text` wrapped under
   * it; otherwise tab-separated as a table's lines (`title`'s columns, then the text); --json prints `rows`.
   */
  entries<T>(rows: readonly T[], title: Column<T>[], text: (row: T) => string): Promise<void>;
  /** A finished action: --json prints `data`, otherwise the message on stdout. */
  done(data: unknown, message: string): void;
  /** Always JSON on stdout, whatever the mode (`till api`). */
  printJson(data: unknown): void;
  /** Progress and notes for a person: stderr, silent under --json. */
  info(message: string): void;
  /** For the person at the terminal even under --json (login's one-time code): always stderr. */
  notice(message: string): void;
  /** Something the user should know even in scripts: always stderr. */
  warn(message: string): void;
  error(err: unknown): void;
  /** Awaits `work`, with a spinner on stderr if it takes a while on a terminal; preloads Ink meanwhile. */
  loading<T>(label: string, work: Promise<T>): Promise<T>;
  /** Static Ink rendering (tables, fields). */
  ui(): Promise<Ui>;
  /** Live Ink screens on a stream (spinner, login's device-code box). */
  live(): Promise<Live>;
  style: Style;
  styleErr: Style;
}

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

function makeStyle(on: boolean): Style {
  const wrap = (open: number, close: number) => (s: string) => (on ? `\u001B[${open}m${s}\u001B[${close}m` : s);
  return { bold: wrap(1, 22), dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39) };
}

/** A spinner shows only for work slower than this, so fast answers print without flicker. */
const SPINNER_DELAY_MS = 150;

export interface OutputOptions {
  json: boolean;
  env: CliEnv;
  /** false with --no-color */
  color: boolean;
  /** --verbose/--debug: errors also name the request they come from and its request id. */
  verbose?: boolean;
  /** How --json data becomes text (`--json=<fields>`, --jq, --template: cli/json-filter.ts); pretty JSON without it. */
  printer?: JsonPrinter;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

/**
 * An error as the CLI prints it: one JSON object under --json, else the message and its hint (and the request,
 * verbose).
 */
function writeError(err: unknown, opts: OutputOptions, styleErr: Style, writeErr: (s: string) => unknown): void {
  const e = asCliError(err);
  const message = scopeHint(e.message);
  const hint = e.hint === undefined ? undefined : scopeHint(e.hint);
  if (opts.json) {
    const request = opts.verbose && e.request ? { request: { method: e.request.method, path: e.request.path, status: e.request.status, request_id: e.request.requestId ?? null } } : {};
    writeErr(JSON.stringify({ error: { message, code: e.code, hint: hint ?? null, ...request } }));
    return;
  }
  writeErr(`${styleErr.red("error:")} ${message}`);
  if (hint) writeErr(`${styleErr.dim("hint:")} ${hint}`);
  if (opts.verbose && e.request) {
    const r = e.request;
    writeErr(styleErr.dim(`request: ${r.method} ${r.path} → ${r.status}${r.requestId ? ` (request id ${r.requestId})` : ""}`));
  }
}

export function createOutput(opts: OutputOptions): Output {
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  const colorAllowed = opts.color && !opts.env.noColor;
  const interactive = !opts.json && (stdout.isTTY === true || opts.env.forceTty);
  const interactiveErr = !opts.json && (stderr.isTTY === true || opts.env.forceTty);
  const style = makeStyle(colorAllowed && stdout.isTTY === true);
  const styleErr = makeStyle(colorAllowed && stderr.isTTY === true);
  const writeOut = (s: string) => stdout.write(s.endsWith("\n") ? s : `${s}\n`);
  const writeErr = (s: string) => stderr.write(s.endsWith("\n") ? s : `${s}\n`);
  const columns = () => stdout.columns || 100;

  // Ink's colour library decides when it is first imported and does not know NO_COLOR
  const beforeInk = () => {
    if (!colorAllowed) process.env.FORCE_COLOR = "0";
  };
  let uiPromise: Promise<Ui> | undefined;
  let livePromise: Promise<Live> | undefined;
  const ui = (): Promise<Ui> => {
    beforeInk();
    return (uiPromise ??= import("./ui/index.js"));
  };
  const live = (): Promise<Live> => {
    beforeInk();
    return (livePromise ??= import("./ui/live.js"));
  };

  return {
    json: opts.json,
    interactive,
    interactiveErr,
    style,
    styleErr,
    ui,
    live,

    async table(rows, cols, tableOpts = {}) {
      if (opts.json) return this.printJson(rows);
      if (rows.length === 0) {
        if (tableOpts.empty) this.info(tableOpts.empty);
        return;
      }
      const cells = rows.map((r) => cols.map((c) => c.value(r)));
      if (!interactive) {
        writeOut(cells.map((line) => line.join("\t")).join("\n"));
        return;
      }
      const { renderTable } = await ui();
      writeOut(renderTable(cols.map((c) => c.header), cells, columns()));
    },

    async entries(rows, title, text) {
      if (opts.json) return this.printJson(rows);
      if (!interactive) {
        writeOut(rows.map((r) => [...title.map((c) => c.value(r)), text(r)].join("\t")).join("\n"));
        return;
      }
      const { renderEntries } = await ui();
      writeOut(renderEntries(rows.map((r) => ({ title: title.map((c) => c.value(r)).join("  "), text: text(r) })), columns()));
    },

    async record(data, fields) {
      if (opts.json) return this.printJson(data);
      if (!interactive) {
        writeOut(fields.map((f) => `${f.label}: ${f.value}`).join("\n"));
        return;
      }
      const { renderFields } = await ui();
      writeOut(renderFields(fields, columns()));
    },

    done(data, message) {
      if (opts.json) this.printJson(data);
      else writeOut(scopeHint(message));
    },

    printJson(data) {
      const text = opts.printer ? opts.printer(data) : JSON.stringify(data, null, 2);
      // a --jq filter may print nothing at all
      if (text !== "") writeOut(text);
    },

    info(message) {
      if (!opts.json) writeErr(scopeHint(message));
    },

    notice(message) {
      writeErr(scopeHint(message));
    },

    warn(message) {
      writeErr(opts.json ? scopeHint(message) : `${styleErr.yellow("warning:")} ${scopeHint(message)}`);
    },

    error(err) {
      writeError(err, opts, styleErr, writeErr);
    },

    loading: (label, work) => showLoading(label, work, { interactive, interactiveErr, ui, live, stderr }),
  };
}

interface LoadingTerminal {
  interactive: boolean;
  interactiveErr: boolean;
  ui: () => Promise<Ui>;
  live: () => Promise<Live>;
  stderr: Parameters<Live["showSpinner"]>[1];
}

/** `loading`: a spinner on stderr once the work is slower than SPINNER_DELAY_MS; Ink loaded meanwhile for the rest. */
async function showLoading<T>(label: string, work: Promise<T>, t: LoadingTerminal): Promise<T> {
  if (!t.interactive && !t.interactiveErr) return work;
  // a terminal will render the result with Ink: load it while the request is in flight
  if (t.interactive) t.ui().catch(() => {});
  let settled = false;
  let stop: (() => void) | undefined;
  const timer = t.interactiveErr
    ? setTimeout(() => {
        t.live()
          .then((l) => {
            if (!settled) stop = l.showSpinner(label, t.stderr);
          })
          .catch(() => {});
      }, SPINNER_DELAY_MS)
    : undefined;
  try {
    return await work;
  } finally {
    settled = true;
    clearTimeout(timer);
    stop?.();
  }
}
