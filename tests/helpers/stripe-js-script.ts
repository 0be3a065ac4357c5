// The script the Stripe.js stand-in serves in Chromium (stripe-js-standin.ts installs it on a page and says what it
// implements, with Stripe.js's names and shapes): the browser's side, kept apart from the Node side that routes
// and forwards the page's requests.

/**
 * The script served as https://js.stripe.com/…/stripe.js. Plain ES2020, no dependencies, no inline styles (the page's
 * CSP).
 */
export const STRIPE_JS = String.raw`(() => {
  "use strict";
  const API = "https://api.stripe.com";

  const form = (obj, prefix, out) => {
    for (const [k, v] of Object.entries(obj)) {
      if (v === undefined || v === null) continue;
      const name = prefix ? prefix + "[" + k + "]" : k;
      if (typeof v === "object") form(v, name, out);
      else out.append(name, String(v));
    }
    return out;
  };
  const call = async (key, method, path, params) => {
    let res;
    try {
      if (method === "GET") {
        const q = form(params || {}, "", new URLSearchParams({ key }));
        res = await fetch(API + path + "?" + q.toString());
      } else {
        const b = form(params || {}, "", new URLSearchParams({ key }));
        res = await fetch(API + path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: b.toString() });
      }
    } catch (e) {
      return { error: { type: "api_connection_error", message: "We could not reach Stripe. Check your connection and try again." } };
    }
    const json = await res.json();
    return res.ok ? { data: json } : { error: json.error || { type: "api_error", message: "Stripe answered " + res.status + "." } };
  };
  const intentPath = (clientSecret) => {
    const id = String(clientSecret || "").split("_secret_")[0];
    return (id.startsWith("seti_") ? "/v1/setup_intents/" : "/v1/payment_intents/") + id;
  };
  const intentResult = (intent) => {
    if (intent.object === "setup_intent") return intent.last_setup_error && intent.status !== "succeeded" ? { error: { ...intent.last_setup_error, setup_intent: intent } } : { setupIntent: intent };
    return intent.last_payment_error && intent.status !== "succeeded" ? { error: { ...intent.last_payment_error, payment_intent: intent } } : { paymentIntent: intent };
  };

  const ALL_TYPES = ["card", "sepa_debit", "us_bank_account"];
  const CURRENCY_OF = { sepa_debit: "eur", us_bank_account: "usd" };
  /** The types the element offers: those allowed (all without a list), in the currency when one is given. */
  const offered = (groupOptions) => {
    const allowed = Array.isArray(groupOptions.allowedPaymentMethodTypes) ? groupOptions.allowedPaymentMethodTypes : ALL_TYPES;
    const currency = String(groupOptions.currency || "").toLowerCase();
    return ALL_TYPES.filter((type) => allowed.includes(type) && (!currency || !CURRENCY_OF[type] || CURRENCY_OF[type] === currency));
  };
  const report = (call, options) => {
    const { appearance: _a, fonts: _f, ...rest } = options || {};
    if (typeof window.__stripeStandInElements === "function") void window.__stripeStandInElements(JSON.stringify({ call, options: rest }));
  };
  const integrationError = (options) => {
    // Stripe.js of the endive release refuses the option it removed, and makes no Elements instance
    if (options && options.paymentMethodTypes !== undefined) throw new Error("IntegrationError: paymentMethodTypes is not supported on this version of Stripe.js; use allowedPaymentMethodTypes.");
  };

  function PaymentElement(group, options) {
    const handlers = {};
    let node = null;
    let fields = null;
    let errorNode = null;
    const emit = (event, payload) => (handlers[event] || []).slice().forEach((h) => h(payload));
    // a type the element does not offer has no inputs: it reads as empty
    const read = (name) => (fields && fields[name] ? fields[name].value : "");
    const values = () => ({
      number: read("number").replace(/\D/g, ""),
      expiry: read("expiry").replace(/\D/g, ""),
      cvc: read("cvc").replace(/\D/g, ""),
      iban: read("iban").replace(/\s/g, "").toUpperCase(),
      name: read("name").trim(),
      routing: read("routing").replace(/\D/g, ""),
      account: read("account").replace(/\D/g, ""),
    });
    const complete = () => {
      const v = values();
      if (v.iban) return v.iban.length >= 15;
      if (v.routing || v.account) return v.routing.length === 9 && v.account.length >= 4 && !!v.name;
      return v.number.length >= 13 && v.expiry.length === 4 && v.cvc.length >= 3;
    };
    const input = (label, id, autocomplete) => {
      const wrap = document.createElement("div");
      wrap.className = "stripe-standin-field";
      const l = document.createElement("label");
      l.htmlFor = id;
      l.textContent = label;
      const i = document.createElement("input");
      i.id = id;
      i.inputMode = "numeric";
      i.autocomplete = autocomplete;
      i.addEventListener("input", () => {
        showError(null);
        const v = values();
        emit("change", {
          elementType: "payment", empty: !v.number && !v.iban && !v.account, complete: complete(), collapsed: false,
          value: { type: v.iban ? "sepa_debit" : v.account ? "us_bank_account" : "card" },
        });
      });
      i.addEventListener("focus", () => emit("focus", { elementType: "payment" }));
      i.addEventListener("blur", () => emit("blur", { elementType: "payment" }));
      wrap.append(l, i);
      return { wrap, input: i };
    };
    const showError = (message) => {
      if (!errorNode) return;
      errorNode.textContent = message || "";
    };
    const element = {
      mount(target) {
        node = typeof target === "string" ? document.querySelector(target) : target;
        if (!node) throw new Error("The selector you specified (" + target + ") applies to no DOM elements that are currently on the page.");
        const box = document.createElement("div");
        box.className = "stripe-standin-payment-element";
        box.dataset.stripeStandin = "payment";
        const types = offered(group._options);
        box.dataset.types = types.join(" ");
        fields = {};
        const add = (key, made) => {
          fields[key] = made.input;
          box.append(made.wrap);
          return made;
        };
        if (types.includes("card")) {
          add("number", input("Card number", "stripe-standin-number", "cc-number"));
          add("expiry", input("Expiration date", "stripe-standin-expiry", "cc-exp")).input.placeholder = "MM / YY";
          add("cvc", input("Security code", "stripe-standin-cvc", "cc-csc"));
        }
        if (types.includes("sepa_debit")) add("iban", input("IBAN", "stripe-standin-iban", "off")).input.inputMode = "text";
        if (types.includes("us_bank_account")) {
          add("name", input("Full name", "stripe-standin-name", "name")).input.inputMode = "text";
          add("routing", input("Routing number", "stripe-standin-routing", "off"));
          add("account", input("Account number", "stripe-standin-account", "off"));
        }
        errorNode = document.createElement("p");
        errorNode.className = "stripe-standin-error";
        errorNode.setAttribute("role", "alert");
        box.append(errorNode);
        node.append(box);
        group._mounted = element;
        setTimeout(() => emit("ready", { elementType: "payment" }), 0);
      },
      unmount() {
        if (node) node.replaceChildren();
        fields = null;
      },
      destroy() {
        element.unmount();
        if (group._mounted === element) group._mounted = null;
      },
      on(event, handler) {
        (handlers[event] = handlers[event] || []).push(handler);
        return element;
      },
      off(event, handler) {
        handlers[event] = (handlers[event] || []).filter((h) => h !== handler);
        return element;
      },
      once(event, handler) {
        const wrapped = (p) => {
          element.off(event, wrapped);
          handler(p);
        };
        return element.on(event, wrapped);
      },
      update(next) {
        Object.assign(options, next || {});
      },
      focus() {
        const first = fields && Object.values(fields)[0];
        if (first) first.focus();
      },
      blur() {},
      clear() {
        if (fields) for (const f of Object.values(fields)) f.value = "";
      },
      collapse() {},
      _values: values,
      _showError: showError,
      _validate() {
        const v = values();
        if (v.iban) return v.iban.length < 15 ? "Your IBAN is incomplete." : null;
        if (v.routing || v.account) {
          if (!v.name) return "Your full name is incomplete.";
          if (v.routing.length !== 9) return "Your routing number is incomplete.";
          return v.account.length < 4 ? "Your account number is incomplete." : null;
        }
        if (!v.number) return "Your card number is incomplete.";
        if (v.number.length < 13) return "Your card number is incomplete.";
        if (v.expiry.length !== 4) return "Your card's expiration date is incomplete.";
        const month = Number(v.expiry.slice(0, 2));
        if (month < 1 || month > 12) return "Your card's expiration date is invalid.";
        if (v.cvc.length < 3) return "Your card's security code is incomplete.";
        return null;
      },
    };
    return element;
  }

  function Elements(stripe, options) {
    integrationError(options);
    report("elements", options);
    const group = {
      _options: { ...(options || {}) },
      _mounted: null,
      _submitted: false,
      create(type, elementOptions) {
        if (type !== "payment") throw new Error("The Stripe.js stand-in implements the Payment Element only, not " + type + ".");
        return PaymentElement(group, { ...(elementOptions || {}) });
      },
      getElement(type) {
        return type === "payment" ? group._mounted : null;
      },
      update(next) {
        integrationError(next);
        report("update", next);
        Object.assign(group._options, next || {});
      },
      fetchUpdates: async () => ({}),
      async submit() {
        const el = group._mounted;
        if (!el) return { error: { type: "validation_error", message: "The Payment Element is not mounted." } };
        const problem = el._validate();
        el._showError(problem);
        group._submitted = !problem;
        return problem ? { error: { type: "validation_error", message: problem } } : {};
      },
    };
    return group;
  }

  /** The customer's 3-D Secure challenge: Complete or Fail, as Stripe's test page asks. */
  const challenge = () =>
    new Promise((resolve) => {
      const dialog = document.createElement("div");
      dialog.setAttribute("role", "dialog");
      dialog.setAttribute("aria-modal", "true");
      dialog.setAttribute("aria-label", "3D Secure authentication");
      dialog.className = "stripe-standin-3ds";
      const text = document.createElement("p");
      text.textContent = "3D Secure 2 Test Page: complete or fail the authentication.";
      const done = (outcome) => {
        dialog.remove();
        resolve(outcome);
      };
      const ok = document.createElement("button");
      ok.type = "button";
      ok.textContent = "Complete";
      ok.addEventListener("click", () => done("succeed"));
      const fail = document.createElement("button");
      fail.type = "button";
      fail.textContent = "Fail";
      fail.addEventListener("click", () => done("fail"));
      dialog.append(text, ok, fail);
      document.body.append(dialog);
      ok.focus();
    });

  function Stripe(key, _options) {
    if (typeof key !== "string" || !/^pk_(test|live)_/.test(key)) throw new Error("Invalid API Key provided: " + key);
    const runNextAction = async (clientSecret) => {
      const path = intentPath(clientSecret);
      const got = await call(key, "GET", path, { client_secret: clientSecret });
      if (got.error) return { error: got.error };
      const intent = got.data;
      if (intent.status !== "requires_action") return intentResult(intent);
      // microdeposits are no challenge: the intent waits for verifyMicrodepositsForSetup, as it is
      if (intent.next_action && intent.next_action.type === "verify_with_microdeposits") return intentResult(intent);
      const outcome = await challenge();
      const done = await call(key, "POST", "/v1/3ds2/authenticate", { intent: intent.id, client_secret: clientSecret, outcome });
      if (done.error) return { error: done.error };
      return intentResult(done.data);
    };
    const tokenOf = async (elements, params) => {
      const el = elements && elements._mounted;
      if (!el) return { error: { type: "invalid_request_error", message: "elements must be a mounted Elements group." } };
      const problem = el._validate();
      if (problem) {
        el._showError(problem);
        return { error: { type: "validation_error", message: problem } };
      }
      const v = el._values();
      const type = v.iban ? "sepa_debit" : v.account ? "us_bank_account" : "card";
      const types = offered(elements._options);
      if (!types.includes(type)) {
        // the options changed after the element was mounted: the type is no longer one it offers
        const message = "The payment method type " + type + " is not one this Payment Element offers (" + types.join(", ") + ").";
        el._showError(message);
        return { error: { type: "invalid_request_error", code: "payment_method_type_not_allowed", message } };
      }
      const sfu = elements._options.setupFutureUsage || elements._options.setup_future_usage;
      const given = (params && params.payment_method_data) || {};
      const instrument = v.iban
        ? { type: "sepa_debit", sepa_debit: { iban: v.iban } }
        : v.account
          ? { type: "us_bank_account", us_bank_account: { routing_number: v.routing, account_number: v.account, account_holder_type: "individual" } }
          : { type: "card", card: { number: v.number, exp_month: v.expiry.slice(0, 2), exp_year: "20" + v.expiry.slice(2), cvc: v.cvc } };
      // the element's own name field names the account holder unless the page gave billing details
      if (v.name && !given.billing_details) instrument.billing_details = { name: v.name };
      const created = await call(key, "POST", "/v1/confirmation_tokens", {
        payment_method_data: { ...given, ...instrument },
        ...(sfu ? { setup_future_usage: sfu } : {}),
        ...(params && params.return_url ? { return_url: params.return_url } : {}),
      });
      if (created.error) el._showError(created.error.message);
      return created.error ? { error: created.error } : { confirmationToken: created.data };
    };
    const confirmIntent = async (kind, opts) => {
      const clientSecret = opts.clientSecret || (opts.elements && opts.elements._options.clientSecret);
      if (!clientSecret) return { error: { type: "invalid_request_error", message: "A clientSecret is required." } };
      const body = { client_secret: clientSecret };
      if (opts.elements) {
        const token = await tokenOf(opts.elements, opts.confirmParams);
        if (token.error) return token;
        body.confirmation_token = token.confirmationToken.id;
      } else if (opts.confirmParams && opts.confirmParams.payment_method) body.payment_method = opts.confirmParams.payment_method;
      if (opts.confirmParams && opts.confirmParams.return_url) body.return_url = opts.confirmParams.return_url;
      const path = kind === "setup" ? "/v1/setup_intents/" : "/v1/payment_intents/";
      const confirmed = await call(key, "POST", path + clientSecret.split("_secret_")[0] + "/confirm", body);
      if (confirmed.error) {
        const el = opts.elements && opts.elements._mounted;
        if (el) el._showError(confirmed.error.message);
        return { error: confirmed.error };
      }
      if (confirmed.data.status === "requires_action") return runNextAction(clientSecret);
      return intentResult(confirmed.data);
    };
    const unsupported = (name) => async () => ({ error: { type: "invalid_request_error", message: "The Stripe.js stand-in does not implement " + name + "." } });
    return {
      _key: key,
      _registerWrapper() {},
      registerAppInfo() {},
      elements: (options) => Elements(null, options),
      createConfirmationToken: (opts) => tokenOf(opts && opts.elements, opts && opts.params),
      handleNextAction: (opts) => runNextAction(opts && opts.clientSecret),
      confirmSetup: (opts) => confirmIntent("setup", opts || {}),
      confirmPayment: (opts) => confirmIntent("payment", opts || {}),
      retrievePaymentIntent: async (clientSecret) => {
        const got = await call(key, "GET", intentPath(clientSecret), { client_secret: clientSecret });
        return got.error ? { error: got.error } : { paymentIntent: got.data };
      },
      retrieveSetupIntent: async (clientSecret) => {
        const got = await call(key, "GET", intentPath(clientSecret), { client_secret: clientSecret });
        return got.error ? { error: got.error } : { setupIntent: got.data };
      },
      verifyMicrodepositsForSetup: async (clientSecret, data) => {
        const id = String(clientSecret || "").split("_secret_")[0];
        const done = await call(key, "POST", "/v1/setup_intents/" + id + "/verify_microdeposits", { client_secret: clientSecret, ...(data || {}) });
        return done.error ? { error: done.error } : { setupIntent: done.data };
      },
      createToken: unsupported("createToken"),
      createPaymentMethod: unsupported("createPaymentMethod"),
      confirmCardPayment: unsupported("confirmCardPayment"),
      confirmCardSetup: unsupported("confirmCardSetup"),
    };
  }
  Stripe.version = "endive";
  window.Stripe = Stripe;
})();
`;
