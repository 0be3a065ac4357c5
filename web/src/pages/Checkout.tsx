// The hosted checkout at /checkout/{client_secret} (and its confirmation page, /checkout/{secret}/confirmation):
// the product and price, a pay-what-you-want amount, a discount code, the customer's details, the billing
// address fields the checkout asks for, a business purchase with its tax id, the product's custom fields, the
// test processor's card form, and totals that follow the customer's choices (a debounced client update).
// Embedded (embed=true&embed_origin=…, through /embed.js) it tells the seller's page `loaded`, `close`,
// `confirmed` and `success` — to the checkout's embed origin only. `?theme=light|dark` picks the colours.
import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent, type ReactNode } from "react";
import {
  checkoutApi,
  formatMoney,
  waitForOutcome,
  type Address,
  type Checkout,
  type CheckoutError,
  type CustomField,
  type FieldMode,
  type Price,
} from "../checkout-api.js";
import { countryOptions } from "../regions.js";
import { Status } from "../ui.js";
import "./checkout.css";

const MESSAGE_TYPE = "POLAR_CHECKOUT";
const UPDATE_DELAY_MS = 400;
type AddressKey = "country" | "state" | "city" | "postal_code" | "line1" | "line2";
const ADDRESS_LABELS: Record<AddressKey, string> = {
  line1: "Address line 1",
  line2: "Address line 2",
  city: "City",
  postal_code: "Postal code",
  state: "State / Province",
  country: "Country",
};
const ADDRESS_ORDER: AddressKey[] = ["country", "line1", "line2", "city", "postal_code", "state"];

interface Route {
  secret: string;
  confirmation: boolean;
}

function routeOf(pathname: string): Route {
  const parts = pathname.split("/").filter(Boolean); // ["checkout", secret, "confirmation"?]
  return { secret: decodeURIComponent(parts[1] ?? ""), confirmation: parts[2] === "confirmation" };
}

interface Embed {
  embedded: boolean;
  queryOrigin: string | null;
}

function embedOf(search: string): Embed {
  const q = new URLSearchParams(search);
  let origin: string | null = null;
  try {
    const raw = q.get("embed_origin");
    if (raw) {
      const u = new URL(raw);
      if (u.protocol === "http:" || u.protocol === "https:") origin = u.origin;
    }
  } catch {
    origin = null;
  }
  return { embedded: q.get("embed") === "true" && window.parent !== window, queryOrigin: origin };
}

/** Applies ?theme= (light is the default when embedded, the system's setting otherwise). */
function applyTheme(search: string, embedded: boolean): void {
  const theme = new URLSearchParams(search).get("theme");
  const root = document.documentElement;
  if (theme === "dark" || theme === "light") root.dataset.theme = theme;
  else if (embedded) root.dataset.theme = "light";
  if (embedded) root.dataset.embed = "true";
}

function priceLabel(price: Price, currency: string): string {
  const every = price.recurring_interval ? ` / ${price.recurring_interval}` : "";
  switch (price.amount_type) {
    case "fixed":
      return `${formatMoney(price.price_amount ?? 0, price.price_currency ?? currency)}${every}`;
    case "free":
      return "Free";
    case "custom":
      return "Pay what you want";
    case "seat_based":
      return `Per seat${every}`;
    case "metered_unit":
      return `Usage based${every}`;
    default:
      return price.amount_type;
  }
}

/** "12 / 30", "12/2030", "1230" → {month: 12, year: 2030}; null when it is not a date. */
function parseExpiry(raw: string): { month: number; year: number } | null {
  const m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(raw);
  if (!m) return null;
  const month = Number(m[1]);
  const year = Number(m[2]);
  if (month < 1 || month > 12) return null;
  return { month, year: year < 100 ? 2000 + year : year };
}

function TextField(props: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
  hint?: string | null;
  required?: boolean;
  type?: string;
  autoComplete?: string;
  inputMode?: "numeric" | "decimal" | "email" | "text";
  placeholder?: string;
  textarea?: boolean;
  name?: string;
}) {
  const id = useId();
  const describedBy = [props.hint ? `${id}-hint` : "", props.error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    name: props.name,
    value: props.value,
    required: props.required,
    placeholder: props.placeholder,
    "aria-invalid": props.error ? true : undefined,
    "aria-describedby": describedBy,
  };
  return (
    <div className="field">
      <label htmlFor={id}>
        {props.label}
        {props.required ? "" : <span className="optional"> (optional)</span>}
      </label>
      {props.textarea ? (
        <textarea {...common} onChange={(e) => props.onChange(e.target.value)} />
      ) : (
        <input
          {...common}
          type={props.type ?? "text"}
          autoComplete={props.autoComplete}
          inputMode={props.inputMode}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
      {props.hint && (
        <p className="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p className="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}

function CustomFieldInput({
  field,
  required,
  value,
  onChange,
  error,
}: {
  field: CustomField;
  required: boolean;
  value: string | number | boolean | null | undefined;
  onChange: (v: string | number | boolean | null) => void;
  error?: string;
}) {
  const id = useId();
  const label = field.properties.form_label || field.name;
  const hint = field.properties.form_help_text ?? null;
  if (field.type === "checkbox") {
    return (
      <div className="field checkbox">
        <input id={id} type="checkbox" checked={value === true} required={required} onChange={(e) => onChange(e.target.checked)} aria-invalid={error ? true : undefined} />
        <label htmlFor={id}>{label}</label>
        {hint && <p className="hint">{hint}</p>}
        {error && <p className="field-error">{error}</p>}
      </div>
    );
  }
  if (field.type === "select") {
    return (
      <div className="field">
        <label htmlFor={id}>
          {label}
          {required ? "" : <span className="optional"> (optional)</span>}
        </label>
        <select id={id} value={typeof value === "string" ? value : ""} required={required} onChange={(e) => onChange(e.target.value || null)}>
          <option value="">{field.properties.form_placeholder || "Choose…"}</option>
          {(field.properties.options ?? []).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        {hint && <p className="hint">{hint}</p>}
        {error && <p className="field-error">{error}</p>}
      </div>
    );
  }
  const type = field.type === "number" ? "number" : field.type === "date" ? "date" : "text";
  return (
    <TextField
      label={label}
      hint={hint}
      required={required}
      type={type}
      textarea={field.type === "text" && field.properties.textarea === true}
      placeholder={field.properties.form_placeholder ?? undefined}
      value={value === null || value === undefined ? "" : String(value)}
      error={error}
      onChange={(v) => onChange(v === "" ? null : field.type === "number" ? Number(v) : v)}
    />
  );
}

function Totals({ checkout }: { checkout: Checkout }) {
  const c = checkout.currency;
  return (
    <section aria-labelledby="totals-heading" className="totals">
      <h2 id="totals-heading" className="visually-hidden">
        Order summary
      </h2>
      <dl aria-live="polite" aria-atomic="true" data-testid="totals">
        <dt>Subtotal</dt>
        <dd>{formatMoney(checkout.amount, c)}</dd>
        {checkout.discount_amount > 0 && (
          <>
            <dt>Discount{checkout.discount ? ` (${checkout.discount.code ?? checkout.discount.name})` : ""}</dt>
            <dd>−{formatMoney(checkout.discount_amount, c)}</dd>
          </>
        )}
        {checkout.tax_amount !== null && (
          <>
            <dt>Taxes</dt>
            <dd>{formatMoney(checkout.tax_amount, c)}</dd>
          </>
        )}
        <dt className="total">Total</dt>
        <dd className="total">{formatMoney(checkout.total_amount, c)}</dd>
      </dl>
      {checkout.active_trial_interval && (
        <p className="hint">
          Free trial: {checkout.active_trial_interval_count} {checkout.active_trial_interval}
          {checkout.active_trial_interval_count === 1 ? "" : "s"}
        </p>
      )}
    </section>
  );
}

function Shell({ title, embedded, onClose, closeDisabled, children }: { title: string; embedded: boolean; onClose: () => void; closeDisabled: boolean; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · till`;
  }, [title]);
  return (
    <main className="checkout">
      {embedded && (
        <button type="button" className="close" onClick={onClose} disabled={closeDisabled} aria-label="Close checkout">
          ×
        </button>
      )}
      <h1 tabIndex={-1}>{title}</h1>
      {children}
    </main>
  );
}

export function CheckoutPage() {
  const route = useMemo(() => routeOf(window.location.pathname), []);
  const embed = useMemo(() => embedOf(window.location.search), []);
  const countries = useMemo(countryOptions, []);
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  /** The buyer's customer session from the confirm: the success view links to the portal with it. */
  const [portalToken, setPortalToken] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [error, setError] = useState<CheckoutError | null>(null);
  const [phase, setPhase] = useState<"form" | "paying" | "success">("form");

  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [amount, setAmount] = useState("");
  const [discountCode, setDiscountCode] = useState("");
  const [discountError, setDiscountError] = useState<string | undefined>();
  const [address, setAddress] = useState<Record<AddressKey, string>>({ country: "", state: "", city: "", postal_code: "", line1: "", line2: "" });
  const [business, setBusiness] = useState(false);
  const [billingName, setBillingName] = useState("");
  const [taxId, setTaxId] = useState("");
  const [custom, setCustom] = useState<Record<string, string | number | boolean | null>>({});
  const [card, setCard] = useState({ number: "", expiry: "", cvc: "" });
  const [cardErrors, setCardErrors] = useState<Record<string, string>>({});
  const [updating, setUpdating] = useState(false);
  const [chosenPrice, setChosenPrice] = useState<string | null>(null);
  const loadedSent = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const updateSeq = useRef(0);

  useEffect(() => applyTheme(window.location.search, embed.embedded), [embed.embedded]);

  /** Where messages go: the checkout's own embed origin when the seller set one, else the frame's parent's. */
  const post = useCallback(
    (event: string, extra: Record<string, unknown> = {}, current: Checkout | null = checkout) => {
      if (!embed.embedded) return;
      const target = current?.embed_origin ? new URL(current.embed_origin).origin : embed.queryOrigin;
      if (!target) return;
      window.parent.postMessage({ ...extra, event, type: MESSAGE_TYPE }, target);
    },
    [checkout, embed],
  );

  useEffect(() => {
    let live = true;
    void checkoutApi.get(route.secret).then((res) => {
      if (!live) return;
      if (!res.ok) {
        setLoadError(res.error.message);
      } else {
        const c = res.data;
        setCheckout(c);
        setEmail(c.customer_email ?? "");
        setName(c.customer_name ?? "");
        setBusiness(c.is_business_customer);
        setBillingName(c.customer_billing_name ?? "");
        setTaxId(c.customer_tax_id ?? "");
        setCustom(c.custom_field_data ?? {});
        if (c.product_price?.amount_type === "custom") setAmount((c.amount / 100).toFixed(2));
        const a: Address | null = c.customer_billing_address;
        if (a) {
          setAddress({ country: a.country, state: a.state ?? "", city: a.city ?? "", postal_code: a.postal_code ?? "", line1: a.line1 ?? "", line2: a.line2 ?? "" });
        }
        if (c.status === "succeeded" || c.status === "confirmed") setPhase("success");
      }
      if (!loadedSent.current) {
        loadedSent.current = true;
        post("loaded", {}, res.ok ? res.data : null);
      }
    });
    return () => {
      live = false;
    };
    // the first load only: `post` changes with the checkout, and a reload would send `loaded` twice
  }, [route.secret]);

  /** Sends a client update now; the latest answer wins. */
  const update = useCallback(
    async (body: Record<string, unknown>): Promise<CheckoutError | null> => {
      const seq = ++updateSeq.current;
      setUpdating(true);
      const res = await checkoutApi.update(route.secret, body);
      if (seq === updateSeq.current) setUpdating(false);
      if (!res.ok) return res.error;
      if (seq === updateSeq.current) setCheckout(res.data);
      return null;
    },
    [route.secret],
  );

  /** A debounced update, for what the customer types (the amount, the country). */
  const updateSoon = useCallback(
    (body: Record<string, unknown>) => {
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        void update(body).then((err) => setError(err));
      }, UPDATE_DELAY_MS);
    },
    [update],
  );

  const close = useCallback(() => post("close"), [post]);
  useEffect(() => {
    if (!embed.embedded) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && phase !== "paying") close();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [embed.embedded, phase, close]);

  const fields = checkout?.billing_address_fields;
  const addressValue = (): Address | null => {
    if (!address.country) return null;
    const out: Address = { country: address.country };
    for (const key of ADDRESS_ORDER) {
      if (key === "country" || !fields || fields[key] === "disabled") continue;
      out[key] = address[key] || null;
    }
    return out;
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!checkout || phase !== "form") return;
    setError(null);
    setCardErrors({});
    if (timer.current) clearTimeout(timer.current);
    setPhase("paying");
    const body: Record<string, unknown> = {
      customer_email: email.trim() || null,
      customer_name: name.trim() || null,
      customer_billing_address: addressValue(),
      is_business_customer: business,
      custom_field_data: custom,
    };
    if (business) {
      body.customer_billing_name = billingName.trim() || null;
      body.customer_tax_id = taxId.trim() || null;
    }
    if (checkout.product_price?.amount_type === "custom") body.amount = Math.round(Number(amount) * 100);
    if (checkout.is_payment_form_required) {
      const expiry = parseExpiry(card.expiry);
      if (!expiry) {
        setCardErrors({ expiry: "Your card's expiration date is incomplete." });
        setError({ status: 0, message: "Your card's expiration date is incomplete.", fields: {} });
        setPhase("form");
        return;
      }
      const token = await checkoutApi.testCard(route.secret, { number: card.number, exp_month: expiry.month, exp_year: expiry.year, cvc: card.cvc });
      if (!token.ok) {
        const f = token.error.fields;
        setCardErrors({ number: f.number ?? "", expiry: f.exp_month ?? f.exp_year ?? "", cvc: f.cvc ?? "" });
        setError(token.error);
        setPhase("form");
        return;
      }
      body.confirmation_token_id = token.data.confirmation_token_id;
    }
    const res = await checkoutApi.confirm(route.secret, body);
    if (!res.ok) {
      setError(res.error);
      setPhase("form");
      return;
    }
    setCheckout(res.data);
    setPortalToken(res.data.customer_session_token ?? null);
    post("confirmed", {}, res.data);
    await waitForOutcome(route.secret);
    const successURL = res.data.success_url;
    const internal = successURL.startsWith(`${window.location.origin}/checkout/`);
    setPhase("success");
    post("success", { successURL, redirect: !internal }, res.data);
    if (!embed.embedded && !internal) window.location.href = successURL;
  };

  const shell = (title: string, children: ReactNode) => (
    <Shell title={title} embedded={embed.embedded} onClose={close} closeDisabled={phase === "paying"}>
      {children}
    </Shell>
  );

  if (loadError) return shell("Checkout unavailable", <Status tone="error">{loadError}</Status>);
  if (!checkout) return shell("Checkout", <Status>Loading the checkout…</Status>);
  if (checkout.status === "expired" && phase === "form") {
    return shell("This checkout has expired", <p className="lead">Please go back to the store and start again.</p>);
  }
  if (phase === "success" || route.confirmation) {
    return shell(
      checkout.status === "succeeded" || phase === "success" ? "Thank you for your purchase" : "Your order is being processed",
      <>
        <Status tone="success">
          {checkout.status === "succeeded" || phase === "success"
            ? `Your purchase of ${checkout.product?.name ?? "the product"} from ${checkout.organization.name} was successful.`
            : "We are confirming your payment."}
        </Status>
        {checkout.customer_email && <p className="lead">A receipt goes to {checkout.customer_email}.</p>}
        {portalToken && (
          <p>
            <a
              className="button"
              href={`/portal?customer_session_token=${encodeURIComponent(portalToken)}`}
              {...(embed.embedded ? { target: "_blank", rel: "noopener noreferrer" } : {})}
            >
              See your purchase, license keys and subscriptions
            </a>
          </p>
        )}
      </>,
    );
  }

  const price = checkout.product_price;
  const choices = checkout.products.flatMap((p) => p.prices.filter((pr) => !pr.is_archived).map((pr) => ({ product: p, price: pr })));
  const fieldError = (key: string) => error?.fields[key];
  const payLabel = checkout.is_payment_required
    ? `Pay ${formatMoney(checkout.total_amount, checkout.currency)}`
    : checkout.active_trial_interval
      ? "Start trial"
      : checkout.is_free_product_price
        ? "Get for free"
        : "Subscribe";
  const mode = (key: AddressKey): FieldMode => fields?.[key] ?? "disabled";
  const customLabels = Object.fromEntries(
    checkout.attached_custom_fields.map((a) => [`custom_field_data.${a.custom_field.slug}`, a.custom_field.properties.form_label || a.custom_field.name]),
  );

  return shell(
    checkout.product?.name ?? "Checkout",
    <>
      <p className="lead">{checkout.organization.name}</p>
      {checkout.product?.description && <p>{checkout.product.description}</p>}
      <form onSubmit={(e) => void onSubmit(e)} noValidate aria-busy={phase === "paying"}>
        {choices.length > 1 && (
          <fieldset>
            <legend>Choose an option</legend>
            {choices.map(({ product, price: pr }) => (
              <label key={pr.id} className="choice">
                <input
                  type="radio"
                  name="price"
                  value={pr.id}
                  checked={(chosenPrice ?? checkout.product_price?.id) === pr.id}
                  onChange={() => {
                    // shown chosen at once; the server's answer then decides (and reverts it on an error)
                    setChosenPrice(pr.id);
                    void update({ product_id: product.id, product_price_id: pr.id }).then((err) => {
                      setChosenPrice(null);
                      setError(err);
                    });
                  }}
                />
                {checkout.products.length > 1 ? `${product.name} — ` : ""}
                {priceLabel(pr, checkout.currency)}
              </label>
            ))}
          </fieldset>
        )}
        {choices.length === 1 && price && <p className="price">{priceLabel(price, checkout.currency)}</p>}

        {price?.amount_type === "custom" && (
          <TextField
            label={`Amount (${checkout.currency.toUpperCase()})`}
            required
            inputMode="decimal"
            value={amount}
            hint={
              price.minimum_amount || price.maximum_amount
                ? [price.minimum_amount ? `at least ${formatMoney(price.minimum_amount, checkout.currency)}` : "", price.maximum_amount ? `at most ${formatMoney(price.maximum_amount, checkout.currency)}` : ""]
                    .filter(Boolean)
                    .join(", ")
                : null
            }
            error={fieldError("amount")}
            onChange={(v) => {
              setAmount(v);
              const n = Number(v);
              if (v.trim() !== "" && Number.isFinite(n) && n >= 0) updateSoon({ amount: Math.round(n * 100) });
            }}
          />
        )}

        <TextField label="Email" type="email" autoComplete="email" inputMode="email" required value={email} onChange={setEmail} error={fieldError("customer_email")} />
        <TextField label="Name" autoComplete="name" value={name} onChange={setName} error={fieldError("customer_name")} required={checkout.is_payment_form_required} />

        {mode("country") !== "disabled" && (
          <fieldset>
            <legend>Billing address</legend>
            {ADDRESS_ORDER.filter((k) => mode(k) !== "disabled").map((key) =>
              key === "country" ? (
                <CountrySelect
                  key={key}
                  value={address.country}
                  required={mode("country") === "required"}
                  countries={countries}
                  error={fieldError("customer_billing_address.country") ?? fieldError("customer_billing_address")}
                  onChange={(v) => {
                    setAddress((a) => ({ ...a, country: v }));
                    updateSoon({ customer_billing_address: v ? { country: v } : null });
                  }}
                />
              ) : (
                <TextField
                  key={key}
                  label={ADDRESS_LABELS[key]}
                  required={mode(key) === "required"}
                  autoComplete={key === "postal_code" ? "postal-code" : key === "city" ? "address-level2" : key === "state" ? "address-level1" : `address-${key}`}
                  value={address[key]}
                  error={fieldError(`customer_billing_address.${key}`)}
                  onChange={(v) => setAddress((a) => ({ ...a, [key]: v }))}
                />
              ),
            )}
          </fieldset>
        )}

        <div className="field checkbox">
          <input
            id="business"
            type="checkbox"
            checked={business}
            onChange={(e) => {
              setBusiness(e.target.checked);
              void update({ is_business_customer: e.target.checked }).then(setError);
            }}
          />
          <label htmlFor="business">I'm purchasing as a business</label>
        </div>
        {business && (
          <>
            <TextField label="Business name" autoComplete="organization" required value={billingName} onChange={setBillingName} error={fieldError("customer_billing_name")} />
            <TextField label="Tax ID" required={false} value={taxId} onChange={setTaxId} error={fieldError("customer_tax_id")} />
          </>
        )}

        {[...checkout.attached_custom_fields]
          .sort((a, b) => a.order - b.order)
          .map((a) => (
            <CustomFieldInput
              key={a.custom_field.slug}
              field={a.custom_field}
              required={a.required}
              value={custom[a.custom_field.slug]}
              error={fieldError(`custom_field_data.${a.custom_field.slug}`)}
              onChange={(v) => setCustom((c) => ({ ...c, [a.custom_field.slug]: v }))}
            />
          ))}

        {checkout.allow_discount_codes && checkout.is_discount_applicable && (
          <div className="discount">
            <TextField label="Discount code" required={false} value={discountCode} onChange={setDiscountCode} error={discountError ?? fieldError("discount_code")} />
            <button
              type="button"
              disabled={!discountCode.trim() || updating}
              onClick={() =>
                void update({ discount_code: discountCode.trim() }).then((err) => setDiscountError(err ? err.message : undefined))
              }
            >
              Apply
            </button>
          </div>
        )}

        <Totals checkout={checkout} />

        {checkout.is_payment_form_required && (
          <fieldset>
            <legend>Card</legend>
            <p className="hint">Test mode: use 4242 4242 4242 4242, any future date and any CVC.</p>
            <TextField label="Card number" required autoComplete="cc-number" inputMode="numeric" value={card.number} error={cardErrors.number || undefined} onChange={(v) => setCard((c) => ({ ...c, number: v }))} />
            <div className="row">
              <TextField label="Expiry (MM / YY)" required autoComplete="cc-exp" inputMode="numeric" placeholder="MM / YY" value={card.expiry} error={cardErrors.expiry || undefined} onChange={(v) => setCard((c) => ({ ...c, expiry: v }))} />
              <TextField label="CVC" required autoComplete="cc-csc" inputMode="numeric" value={card.cvc} error={cardErrors.cvc || undefined} onChange={(v) => setCard((c) => ({ ...c, cvc: v }))} />
            </div>
          </fieldset>
        )}

        <Status tone={error ? "error" : "info"}>{error ? errorText(error, customLabels) : phase === "paying" ? "Processing your payment…" : updating ? "Updating the total…" : null}</Status>
        <button type="submit" className="primary pay" disabled={phase !== "form" || updating}>
          {phase === "paying" ? "Processing…" : payLabel}
        </button>
      </form>
    </>,
  );
}

const FIELD_NAMES: Record<string, string> = {
  customer_email: "Email",
  customer_name: "Name",
  customer_billing_name: "Business name",
  customer_tax_id: "Tax ID",
  customer_billing_address: "Billing address",
  amount: "Amount",
  discount_code: "Discount code",
  confirmation_token_id: "Card",
  ...Object.fromEntries(Object.entries(ADDRESS_LABELS).map(([k, v]) => [`customer_billing_address.${k}`, v])),
};

/** The alert's text: a field's error names the field ("Name: Field is required."), since the alert is read alone. */
function errorText(error: CheckoutError, customLabels: Record<string, string>): string {
  const first = Object.entries(error.fields)[0];
  if (!first) return error.message;
  const [key, msg] = first;
  const name = FIELD_NAMES[key] ?? customLabels[key] ?? null;
  return name ? `${name}: ${msg}` : msg;
}

function CountrySelect(props: { value: string; required: boolean; countries: { code: string; name: string }[]; error?: string; onChange: (v: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>
        Country
        {props.required ? "" : <span className="optional"> (optional)</span>}
      </label>
      <select
        id={id}
        autoComplete="country"
        value={props.value}
        required={props.required}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? `${id}-error` : undefined}
        onChange={(e) => props.onChange(e.target.value)}
      >
        <option value="">Choose a country…</option>
        {props.countries.map((c) => (
          <option key={c.code} value={c.code}>
            {c.name}
          </option>
        ))}
      </select>
      {props.error && (
        <p className="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}
