// The embedded checkout overlay for sellers' pages: till's fork of @polar-sh/checkout's EmbedCheckout. It
// opens a till checkout URL in a full-screen iframe (with embed=true, embed_origin and theme added), shows a
// loader until the page says `loaded`, and follows the page's `{type:"POLAR_CHECKOUT", event}` messages:
// `close` closes it while closable, `confirmed` makes it unclosable (payment in progress), `success` makes it
// closable again and redirects when asked. Unlike the official package, which trusts only polar.sh, the
// trusted origin is the till server the script was loaded from. It is bundled on its own, with its two words in
// each locale (web/src/i18n/embed) and nothing else.
import { embedMessages } from "../i18n/embed/index.js";

export type Theme = "light" | "dark";
export type EmbedEvent = "loaded" | "close" | "confirmed" | "success";

export interface EmbedOptions {
  theme?: Theme;
  /** The language of the overlay's loader label and frame title (default: the page's `<html lang>`, the browser's). */
  locale?: string;
  onLoaded?: (event: CustomEvent) => void;
}

interface EmbedMessage {
  type: "POLAR_CHECKOUT";
  event: EmbedEvent;
  successURL?: string;
  redirect?: boolean;
}

const MESSAGE_TYPE = "POLAR_CHECKOUT";
const STYLE_ID = "till-embed-style";
const NO_SCROLL = "till-no-scroll";
const EVENTS: readonly string[] = ["loaded", "close", "confirmed", "success"];

const CSS = `
body.${NO_SCROLL}{overflow:hidden}
.till-embed-loader{position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;justify-content:center;background:rgba(0,0,0,.5)}
.till-embed-loader::after{content:"";width:2.5rem;height:2.5rem;border-radius:50%;border:4px solid rgba(255,255,255,.35);border-top-color:#fff;animation:till-spin .8s linear infinite}
@keyframes till-spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.till-embed-loader::after{animation-duration:3s}}
.till-embed-frame{position:fixed;inset:0;width:100%;height:100%;border:none;z-index:2147483647;background:rgba(0,0,0,.5);color-scheme:normal}
`;

function isMessage(data: unknown): data is EmbedMessage {
  if (typeof data !== "object" || data === null) return false;
  const m = data as Record<string, unknown>;
  return m.type === MESSAGE_TYPE && typeof m.event === "string" && EVENTS.includes(m.event);
}

/** One open overlay. Listeners get a cancelable CustomEvent per message; preventDefault() skips the default. */
export class EmbedCheckout extends EventTarget {
  private closable = true;
  private loader: HTMLElement | null;
  readonly iframe: HTMLIFrameElement;
  private readonly onMessage: (e: MessageEvent) => void;
  private loadedResolve: (() => void) | null = null;
  /** Where focus was when the overlay opened: it goes back there on close, for keyboard users. */
  private readonly returnFocus: Element | null;
  readonly loaded: Promise<void>;

  constructor(
    url: string,
    private readonly trustedOrigin: string,
    options: EmbedOptions = {},
  ) {
    super();
    this.returnFocus = document.activeElement;
    if (!document.getElementById(STYLE_ID)) {
      const style = document.createElement("style");
      style.id = STYLE_ID;
      style.textContent = CSS;
      document.head.appendChild(style);
    }
    this.loaded = new Promise((resolve) => (this.loadedResolve = resolve));
    const loader = document.createElement("div");
    loader.className = "till-embed-loader";
    loader.setAttribute("role", "progressbar");
    const words = embedMessages(options.locale);
    loader.setAttribute("aria-label", words["embed.loading"]);
    document.body.appendChild(loader);
    this.loader = loader;
    document.body.classList.add(NO_SCROLL);

    const src = new URL(url, window.location.href);
    src.searchParams.set("embed", "true");
    src.searchParams.set("embed_origin", window.location.origin);
    // light unless the seller asks for dark: the checkout then looks the same whatever the buyer's system prefers
    src.searchParams.set("theme", options.theme ?? "light");
    const iframe = document.createElement("iframe");
    iframe.className = "till-embed-frame";
    iframe.src = src.toString();
    iframe.title = words["embed.title"];
    iframe.setAttribute("allow", `payment 'self' ${trustedOrigin}`);
    document.body.appendChild(iframe);
    this.iframe = iframe;

    if (options.onLoaded) this.addEventListener("loaded", options.onLoaded as EventListener);
    this.onMessage = (e) => this.handle(e);
    window.addEventListener("message", this.onMessage);
  }

  /** Whether a `close` message (or close()) would close the overlay now. */
  get isClosable(): boolean {
    return this.closable;
  }

  private handle(e: MessageEvent): void {
    // only the till server's own page, in this overlay's frame, may drive it
    if (e.origin !== this.trustedOrigin || e.source !== this.iframe.contentWindow) return;
    if (!isMessage(e.data)) return;
    const data = e.data;
    const event = new CustomEvent(data.event, { detail: data, cancelable: true });
    this.dispatchEvent(event);
    if (event.defaultPrevented) return;
    switch (data.event) {
      case "loaded":
        this.loader?.remove();
        this.loader = null;
        this.loadedResolve?.();
        this.loadedResolve = null;
        // keyboard and screen-reader users continue inside the checkout
        this.iframe.focus();
        break;
      case "close":
        this.close();
        break;
      case "confirmed":
        this.closable = false;
        break;
      case "success":
        this.closable = true;
        if (data.redirect && typeof data.successURL === "string") {
          const target = new URL(data.successURL, window.location.href);
          if (target.protocol === "http:" || target.protocol === "https:") window.location.href = target.toString();
        }
        break;
    }
  }

  /** Removes the overlay, unless a payment is in progress. */
  close(): void {
    if (!this.closable) return;
    window.removeEventListener("message", this.onMessage);
    this.loader?.remove();
    this.loader = null;
    this.iframe.remove();
    document.body.classList.remove(NO_SCROLL);
    if (this.returnFocus instanceof HTMLElement) this.returnFocus.focus();
  }
}

export interface TillEmbedCheckoutApi {
  create(url: string, options?: EmbedOptions | Theme): Promise<EmbedCheckout>;
  init(root?: ParentNode): void;
  readonly origin: string;
}

/**
 * The elements `init` wires: till's own attributes, and @polar-sh/checkout's (`data-polar-checkout`,
 * `data-polar-checkout-theme`) so a snippet copied from Polar works with only its script's address changed.
 */
const TRIGGERS = ["till", "polar"] as const;
const TRIGGER_SELECTOR = TRIGGERS.map((p) => `[data-${p}-checkout]`).join(",");

/**
 * The checkout URL and theme an element names: its href, else the attribute's value (as @polar-sh/checkout reads them).
 */
function triggerOf(el: Element): { url: string | null; theme: Theme | undefined } {
  const prefix = TRIGGERS.find((p) => el.hasAttribute(`data-${p}-checkout`)) ?? "till";
  const theme = el.getAttribute(`data-${prefix}-checkout-theme`);
  return {
    url: el.getAttribute("href") || el.getAttribute(`data-${prefix}-checkout`),
    theme: theme === "dark" || theme === "light" ? theme : undefined,
  };
}

/** The API bound to one till server: `create` opens an overlay, `init` wires `[data-till-checkout]` elements. */
export function embedApi(trustedOrigin: string): TillEmbedCheckoutApi {
  const bound = new WeakSet<Element>();
  const create = async (url: string, options: EmbedOptions | Theme = {}) => {
    // a bare theme string is accepted like @polar-sh/checkout's deprecated form
    const opts: EmbedOptions = typeof options === "string" ? { theme: options } : options;
    const embed = new EmbedCheckout(url, trustedOrigin, opts);
    await embed.loaded;
    return embed;
  };
  return {
    origin: trustedOrigin,
    create,
    init(root: ParentNode = document) {
      for (const el of Array.from(root.querySelectorAll(TRIGGER_SELECTOR))) {
        if (bound.has(el)) continue;
        bound.add(el);
        el.addEventListener("click", (e) => {
          const { url, theme } = triggerOf(el);
          if (!url) return;
          e.preventDefault();
          void create(url, { theme });
        });
      }
    },
  };
}
