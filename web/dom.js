// Tiny DOM helpers. Text always goes in as text nodes (never as markup), so names and other
// strings from the server can never inject HTML.

import { t } from "./i18n.js";
import { NAME_MAX, nameLength, sentence } from "./model/words.js";

/**
 * Create an element: h("button", {class: "x", onclick: fn, "data-testid": "go"}, "Go").
 * Attributes that are null, undefined or false are skipped; `text` sets textContent;
 * `on<event>` adds a listener; children may be nodes, strings, numbers or nested arrays.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = String(value);
    else if (key === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()), v);
    }
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "value") el.value = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replace all children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Like `fill`, for a panel redrawn while someone uses it with the keyboard: the control
 * that had the focus (the same `data-testid`, in the same player's row) has it again. */
export function refill(el, ...children) {
  const had = el.contains(document.activeElement) ? document.activeElement : null;
  const key = (e) => `${e.dataset.testid}|${e.closest("[data-seat]")?.dataset.seat ?? ""}`;
  const wanted = had?.dataset.testid ? key(had) : null;
  fill(el, ...children);
  if (wanted) [...el.querySelectorAll("[data-testid]")].find((e) => key(e) === wanted)?.focus();
  return el;
}

/** localStorage that never throws (private modes, blocked storage). */
export const store = {
  get(key) {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      window.localStorage.setItem(key, value);
    } catch {
      /* storage unavailable: the seat simply cannot be resumed after a refresh */
    }
  },
  remove(key) {
    try {
      window.localStorage.removeItem(key);
    } catch {
      /* ignore */
    }
  },
};

export const tokenKey = (code) => `crescent-race.token.${code}`;
export const NAME_KEY = "crescent-race.name";
export { NAME_MAX, nameLength } from "./model/words.js";

/** A nickname input. A name that is too long is not cut silently (as `maxlength` would cut
 * a pasted one, perhaps inside an emoji): the form will not submit, and says why. */
export function nameInput(attrs) {
  const input = h("input", { required: true, autocomplete: "nickname", ...attrs });
  const check = () => {
    const n = nameLength(input.value);
    input.setCustomValidity(n > NAME_MAX ? t("name.tooLong", { max: NAME_MAX, n }) : "");
  };
  input.addEventListener("input", check);
  check();
  return input;
}

/** Show a short message in the page's toast area (read by screen readers), gone in 4 s. */
export function toast(text, kind = "info") {
  let area = document.querySelector(".toasts");
  if (!area) {
    area = h("div", { class: "toasts", "aria-live": "polite", "data-testid": "toasts" });
    document.body.append(area);
  }
  const item = h("div", { class: `toast toast-${kind}`, "data-testid": "toast", "data-kind": kind }, sentence(text));
  area.append(item);
  setTimeout(() => item.remove(), 4000);
}

const SAID_MS = 10_000; // how long a line of news stays in its announcer

/** A live region: each `announce` adds a line of its own (news in a burst is not cut short
 * by the next), taken out after a while (unheard: only additions are spoken). */
export function announcer(testid) {
  return h("div", { class: "sr-only", role: "log", "aria-live": "polite", "data-testid": testid });
}

/** Say ``text`` in an `announcer` (nothing for ""). */
export function announce(el, text) {
  if (!text) return;
  const line = h("p", {}, text);
  el.append(line);
  setTimeout(() => line.remove(), SAID_MS);
}
