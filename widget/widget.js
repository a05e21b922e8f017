// @ts-check
/**
 * The mailrisk sign-up widget, served as `GET /widget.js` (docs/clients.md): checks every
 * `<input data-mailrisk>` with `POST /v2/` of the service that served this script, with
 * the publishable key of `data-key`. A block answer sets the field's custom validity, so
 * the browser's own validation stops the submit; a typo offers its fix. Fails open: no
 * answer within `data-timeout` ms, an error answer or no service leaves the field valid;
 * a service that refuses this page's key or origin is told once with `console.warn`.
 * One file, no dependencies, no request to any other host.
 */
(() => {
  const script = /** @type {HTMLScriptElement | null} */ (document.currentScript);
  const key = script?.dataset.key;
  if (!script?.src || !key) return;
  const data = script.dataset;
  const endpoint = new URL("v2/", script.src).href;
  const timeoutMs = Number(data.timeout) > 0 ? Number(data.timeout) : 2000;
  const DEBOUNCE_MS = 400;
  const FIELDS = "input[data-mailrisk]";
  const messages = {
    block: data.messageBlock || "Please use a permanent email address; this one cannot be used to sign up.",
    invalid: data.messageInvalid || "This email address cannot receive mail; please check it.",
    typo: data.messageTypo || "Did you mean {suggestion}?",
  };

  /**
   * @typedef {{ block: boolean, valid: boolean, possible_typo: string[] }} CheckRecord
   * @typedef {object} Field
   * @property {HTMLElement} message the aria-live element after the input
   * @property {string} checked the value last sent (or being sent), "" for none
   * @property {ReturnType<typeof setTimeout> | undefined} timer the debounced check
   * @property {AbortController | undefined} controller the check in flight
   * @property {Promise<void> | undefined} pending it, until it settles
   */

  /** @type {WeakMap<HTMLInputElement, Field>} */
  const fields = new WeakMap();
  /** Forms whose submit waits for a check. */
  const held = new WeakSet();
  let count = 0;

  let warned = false;
  /**
   * After a check the browser refused: a refusal (401, 403) carries no CORS headers, so
   * the page cannot read it; a no-cors request tells whether the service is up, and then
   * it was a refusal. Warns once; a service that is down is no refusal.
   */
  function warnIfRefused() {
    if (warned) return;
    warned = true;
    fetch(endpoint, { mode: "no-cors", credentials: "omit", referrerPolicy: "no-referrer" }).then(
      () =>
        console.warn(
          `mailrisk: the service refuses the checks of this page (origin_not_allowed or invalid_api_key): data-key must be a live publishable key that lists ${location.origin}. Until then every address is accepted.`,
        ),
      () => {
        warned = false;
      },
    );
  }

  /** @param {EventTarget | null} target */
  function fieldInput(target) {
    return target instanceof HTMLInputElement && target.matches(FIELDS) ? target : null;
  }

  /** @param {HTMLInputElement} input */
  function fieldOf(input) {
    let field = fields.get(input);
    if (!field) {
      const message = document.createElement("div");
      message.className = "mailrisk-message";
      message.id = `mailrisk-message-${++count}`;
      message.setAttribute("aria-live", "polite");
      input.after(message);
      const described = input.getAttribute("aria-describedby");
      input.setAttribute("aria-describedby", described ? `${described} ${message.id}` : message.id);
      field = { message, checked: "", timer: undefined, controller: undefined, pending: undefined };
      fields.set(input, field);
    }
    return field;
  }

  /**
   * @param {string} tag
   * @param {string} className
   * @param {(string | Node)[]} children
   */
  function element(tag, className, ...children) {
    const node = document.createElement(tag);
    node.className = className;
    node.append(...children);
    return node;
  }

  /**
   * Shows what `record` says about the input's value, or nothing (and a valid field) for null.
   * @param {HTMLInputElement} input
   * @param {Field} field
   * @param {CheckRecord | null} record
   */
  function show(input, field, record) {
    const blocked = record?.block === true;
    const text = blocked ? (record?.valid === false ? messages.invalid : messages.block) : "";
    input.setCustomValidity(text);
    input.classList.toggle("mailrisk-blocked", blocked);
    if (blocked) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    field.message.replaceChildren();
    if (blocked) field.message.append(element("span", "mailrisk-block", text));
    const suggestion = record?.possible_typo?.[0];
    if (suggestion) {
      const fixed = `${input.value.trim().replace(/@[^@]*$/, "")}@${suggestion}`;
      const button = element("button", "mailrisk-suggestion", fixed);
      button.setAttribute("type", "button");
      button.addEventListener("click", () => {
        input.value = fixed;
        input.dispatchEvent(new Event("input", { bubbles: true }));
        input.dispatchEvent(new Event("change", { bubbles: true }));
        input.focus();
      });
      const [before = "", after = ""] = messages.typo.split("{suggestion}");
      field.message.append(element("span", "mailrisk-typo", before, button, after));
    }
  }

  /**
   * Forgets the last answer: the field is valid again and nothing is in flight.
   * @param {HTMLInputElement} input
   * @param {Field} field
   */
  function reset(input, field) {
    clearTimeout(field.timer);
    field.timer = undefined;
    field.controller?.abort();
    field.controller = undefined;
    field.pending = undefined;
    field.checked = "";
    show(input, field, null);
  }

  /**
   * Checks the value now, unless it is the one checked (or being checked) already; settles when answered or failed.
   * @param {HTMLInputElement} input
   * @returns {Promise<void>}
   */
  function check(input) {
    const field = fieldOf(input);
    const value = input.value.trim();
    clearTimeout(field.timer);
    field.timer = undefined;
    if (value === field.checked) return field.pending ?? Promise.resolve();
    reset(input, field);
    field.checked = value;
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) || input.validity.typeMismatch) return Promise.resolve();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    field.controller = controller;
    field.pending = fetch(endpoint, {
      method: "POST",
      mode: "cors",
      credentials: "omit",
      referrerPolicy: "no-referrer",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ email: value }),
      signal: controller.signal,
    })
      .then((response) => (response.ok ? response.json() : null))
      .catch((error) => {
        if (error instanceof TypeError) warnIfRefused();
        return null;
      })
      .then((/** @type {CheckRecord | null} */ record) => {
        clearTimeout(timer);
        if (field.controller !== controller) return;
        field.controller = undefined;
        field.pending = undefined;
        if (!record || typeof record.block !== "boolean") return;
        show(input, field, record);
        input.dispatchEvent(new CustomEvent("mailrisk:result", { detail: record, bubbles: true }));
      });
    return field.pending;
  }

  document.addEventListener("focusin", (event) => {
    const input = fieldInput(event.target);
    if (input) fieldOf(input);
  });

  document.addEventListener("input", (event) => {
    const input = fieldInput(event.target);
    if (!input) return;
    const field = fieldOf(input);
    if (input.value.trim() === field.checked) return;
    reset(input, field);
    field.timer = setTimeout(() => check(input), DEBOUNCE_MS);
  });

  document.addEventListener("change", (event) => {
    const input = fieldInput(event.target);
    if (input) void check(input);
  });

  // A submit while a check is pending waits for it, at most the time-out, then submits
  // again: the browser's validation then sees the answer. Nothing else ever holds a submit.
  document.addEventListener(
    "submit",
    (event) => {
      const form = event.target;
      if (!(form instanceof HTMLFormElement) || typeof form.requestSubmit !== "function") return;
      const waiting = Array.from(form.elements).filter((node) => {
        const input = fieldInput(node);
        const field = input && fields.get(input);
        return field && (field.timer !== undefined || field.pending !== undefined);
      });
      if (waiting.length === 0 && !held.has(form)) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      if (held.has(form)) return;
      held.add(form);
      const submitter = /** @type {SubmitEvent} */ (event).submitter;
      const button =
        submitter instanceof HTMLButtonElement || submitter instanceof HTMLInputElement ? submitter : null;
      void Promise.all(waiting.map((input) => check(/** @type {HTMLInputElement} */ (input)))).then(() => {
        held.delete(form);
        form.requestSubmit(button?.form === form ? button : null);
      });
    },
    true,
  );

  function prepare() {
    for (const input of document.querySelectorAll(FIELDS)) {
      if (input instanceof HTMLInputElement) fieldOf(input);
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", prepare);
  else prepare();
})();
