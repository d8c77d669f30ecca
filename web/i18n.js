// The page's words in the reader's language: `t(key, params)` looks a key up in the
// catalogue of the current language (web/i18n/en.js, web/i18n/es.js), and numbers, dates,
// plurals and relative times go through the platform's Intl. No DOM needed: in node (the
// tests) the language is English until `setLang` says otherwise.
//
// The language: the one chosen with the top bar's switch (remembered in localStorage), else
// the first of `navigator.languages` we have, else English.

import { en } from "./i18n/en.js";
import { es } from "./i18n/es.js";

export const CATALOGUES = { en, es };
/** The languages offered, each named in itself (the switch's options). */
export const LANGUAGES = [
  { code: "en", name: "English" },
  { code: "es", name: "Español" },
];
export const LANG_KEY = "crescent.lang";

const state = { lang: "en", cache: new Map() };

/** The language of a list of BCP 47 tags (``navigator.languages``): the first we have. */
export function pickLang(tags, saved = null) {
  if (saved && saved in CATALOGUES) return saved;
  for (const tag of tags || []) {
    const primary = String(tag).toLowerCase().split("-")[0];
    if (primary in CATALOGUES) return primary;
  }
  return "en";
}

/** The current language's code ("en", "es"). */
export function lang() {
  return state.lang;
}

/** Use ``code`` from now on (an unknown one: English). */
export function setLang(code) {
  state.lang = code in CATALOGUES ? code : "en";
  state.cache.clear();
  return state.lang;
}

/** Whether the catalogue has ``key`` (in English, the reference). */
export function has(key) {
  return Object.hasOwn(en, key);
}

function cached(name, make) {
  const key = `${state.lang}|${name}`;
  if (!state.cache.has(key)) state.cache.set(key, make());
  return state.cache.get(key);
}

/** ``n`` as the language writes a number: 1,234.5 or 1234,5. */
export function num(n, options = null) {
  if (n === null || n === undefined || !Number.isFinite(Number(n))) return String(n ?? "");
  const key = options ? JSON.stringify(options) : "";
  return cached(`num${key}`, () => new Intl.NumberFormat(state.lang, options || {})).format(Number(n));
}

/** The plural form of ``n`` (``type``: "cardinal" or "ordinal"): one, two, few, many, other. */
export function pluralForm(n, type = "cardinal") {
  return cached(`plural-${type}`, () => new Intl.PluralRules(state.lang, { type })).select(Number(n));
}

/** A day ("2026-12-01", UTC) in words: "Dec 1, 2026" / "1 dic 2026". */
export function dayText(iso, style = "medium") {
  const d = new Date(`${iso}T12:00:00Z`);
  if (Number.isNaN(d.getTime())) return String(iso);
  return cached(`day-${style}`, () => new Intl.DateTimeFormat(state.lang, { dateStyle: style, timeZone: "UTC" })).format(d);
}

/** A moment (ms since the epoch) as a date and time, in the reader's time zone. */
export function dateTimeText(ms) {
  return cached("datetime", () => new Intl.DateTimeFormat(state.lang, { dateStyle: "medium", timeStyle: "short" })).format(new Date(ms));
}

const UNITS = [
  ["year", 365 * 86_400_000],
  ["month", 30 * 86_400_000],
  ["week", 7 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1000],
];

/** How long ago (or how soon) ``ms`` is from ``now``: "3 days ago", "hace 3 días", "yesterday". */
export function relativeText(ms, now = Date.now()) {
  const diff = ms - now;
  const format = cached("relative", () => new Intl.RelativeTimeFormat(state.lang, { numeric: "auto" }));
  for (const [unit, size] of UNITS) {
    if (Math.abs(diff) >= size || unit === "second") return format.format(Math.round(diff / size), unit);
  }
  return "";
}

/** A past day ("2026-12-01", UTC) as a reader says it: "today", "yesterday", "3 days ago"
 * ("hoy", "ayer", "hace 3 días") within a week of ``now``, else the day itself. */
export function dayAgo(iso, now = Date.now()) {
  const day = Date.parse(`${iso}T00:00:00Z`);
  if (Number.isNaN(day)) return String(iso);
  const today = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00Z`);
  const days = Math.round((today - day) / 86_400_000);
  if (days < 0 || days > 6) return dayText(iso);
  return cached("relative", () => new Intl.RelativeTimeFormat(state.lang, { numeric: "auto" })).format(-days, "day");
}

/** A list in words: "Ann, Bob and Cy" / "Ann, Bob y Cy". */
export function listText(items) {
  return cached("list", () => new Intl.ListFormat(state.lang, { style: "long", type: "conjunction" })).format(items.map(String));
}

/** The placeholders of a catalogue entry (a string, or plural forms): {"n", "name"}. */
export function placeholders(entry) {
  const texts = typeof entry === "string" ? [entry] : Object.entries(entry).filter(([k]) => k !== "type").map(([, v]) => v);
  const names = new Set();
  for (const text of texts) for (const m of text.matchAll(/\{(\w+)\}/g)) names.add(m[1]);
  return names;
}

/**
 * The words of ``key`` in the current language, with ``params`` put in their {placeholders}.
 * An entry of plural forms ({one, other, …; type: "ordinal" for places}) is chosen by
 * ``params.n`` through Intl.PluralRules, and ``n`` is written as a number of the language.
 * A key missing from a catalogue falls back to English, then to the key itself.
 */
export function t(key, params = {}) {
  let entry = CATALOGUES[state.lang][key] ?? en[key];
  if (entry === undefined) return key;
  if (typeof entry !== "string") entry = entry[pluralForm(params.n ?? 0, entry.type || "cardinal")] ?? entry.other;
  return entry.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return name === "n" && typeof value === "number" ? num(value) : String(value ?? "");
  });
}

/** The words of a server's error ``{code, message}``: the catalogue's for its code (with the
 * error's own fields as parameters; ``error.CODE.REASON`` for an error with a ``reason``),
 * else the server's English message. */
export function errorText(error) {
  if (!error) return "";
  if (error.reason && has(`error.${error.code}.${error.reason}`)) return t(`error.${error.code}.${error.reason}`, error);
  const key = `error.${error.code}`;
  return has(key) ? t(key, error) : error.message || t("error.internal");
}

/** The language chosen on this device with the switch (null: none yet). */
export function savedLang() {
  try {
    return globalThis.localStorage?.getItem(LANG_KEY) ?? null;
  } catch {
    return null; // storage blocked: the browser's languages decide
  }
}

/** Remember ``code`` as this device's language (the switch), and use it. */
export function chooseLang(code) {
  try {
    globalThis.localStorage?.setItem(LANG_KEY, code);
  } catch {
    /* storage blocked: this page only */
  }
  return setLang(code);
}

/** The language a page starts in: the one saved, else the browser's. */
export function startLang() {
  const tags = typeof navigator === "undefined" ? [] : navigator.languages || [navigator.language];
  return setLang(pickLang(tags, savedLang()));
}

/** The language's decimal separator: "." or ",". */
export function decimalSeparator() {
  return cached("decimal", () => new Intl.NumberFormat(state.lang).formatToParts(1.5).find((p) => p.type === "decimal")?.value ?? ".");
}

// Chosen before any page draws a word (modules that import this one run after it).
startLang();
