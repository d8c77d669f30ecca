// The catalogues: every key in every language, with the same placeholders; and the words
// of a language through Intl (plurals, places, numbers, times, cards, moves).
import assert from "node:assert/strict";
import { test } from "node:test";

import { en } from "../../web/i18n/en.js";
import { es } from "../../web/i18n/es.js";
import { CATALOGUES, dayAgo, errorText, pickLang, placeholders, setLang, t } from "../../web/i18n.js";
import { card, describeMove } from "../../web/model/cards.js";
import { raceNews } from "../../web/model/news.js";
import { resultText } from "../../web/model/share.js";
import { count, formatMs, ordinal, roomSummary } from "../../web/model/words.js";

const FORMS = new Set(["zero", "one", "two", "few", "many", "other", "type"]);

test("every catalogue has every key of the English one and no other, with the same placeholders", () => {
  for (const [code, words] of Object.entries(CATALOGUES)) {
    const missing = Object.keys(en).filter((k) => !(k in words));
    const extra = Object.keys(words).filter((k) => !(k in en));
    assert.deepEqual(missing, [], `${code} lacks these keys`);
    assert.deepEqual(extra, [], `${code} has keys English lacks`);
    for (const key of Object.keys(en)) {
      const want = [...placeholders(en[key])].sort();
      assert.deepEqual([...placeholders(words[key])].sort(), want, `${code} ${key}: its placeholders`);
      const entry = words[key];
      if (typeof entry === "string") assert.ok(entry.trim(), `${code} ${key} is empty`);
      else {
        assert.equal(typeof en[key], "object", `${code} ${key}: plural forms where English has none`);
        assert.ok(entry.other, `${code} ${key}: no "other" form`);
        assert.deepEqual(Object.keys(entry).filter((f) => !FORMS.has(f)), [], `${code} ${key}: unknown plural forms`);
        assert.equal(entry.type, en[key].type, `${code} ${key}: cardinal or ordinal as in English`);
      }
    }
  }
  assert.ok(Object.keys(es).length > 100);
});

test("the language follows the browser's list, and a saved choice wins", () => {
  assert.equal(pickLang(["es-ES", "en"]), "es");
  assert.equal(pickLang(["fr-FR", "es-MX"]), "es");
  assert.equal(pickLang(["fr-FR", "de"]), "en");
  assert.equal(pickLang(["es-ES"], "en"), "en");
  assert.equal(pickLang([], "xx"), "en");
});

test("Spanish: plurals, places, times with a decimal comma, card names, moves, share texts", () => {
  setLang("es");
  try {
    assert.deepEqual([count(1, "count.moves"), count(3, "count.moves")], ["1 movimiento", "3 movimientos"]);
    assert.deepEqual([ordinal(1), ordinal(3)], ["1.º", "3.º"]);
    assert.equal(formatMs(34_456), "0:34,4");
    assert.deepEqual([card("9H").name, card("AS").name, card("QD").name, card("JC").name], ["9 de corazones", "as de picas", "reina de diamantes", "jota de tréboles"]);
    assert.equal(card("TC").label, "10♣"); // the notation is the same in every language
    const board = { piles: [["KH", "7H"], ["8H"]], foundations: { uH: { top: "6H", count: 6 } }, shuffles_left: 2 };
    assert.equal(describeMove(board, "p0>p1"), "7♥ sobre 8♥");
    assert.equal(describeMove(board, "shuffle"), "Redistribuir");
    assert.equal(roomSummary({ difficulty: "hard", deal: 42, time_limit: 90, round: 2 }), "difícil · reparto 42 · límite de 1 min 30 s · ronda 2");
    assert.equal(t("count.players", { n: 1234 }), "1234 jugadores");
    assert.equal(t("count.players", { n: 12345 }), "12.345 jugadores");
    const news = raceNews([{ seat: "s1", name: "Ana", finished_ms: null, moves: 3 }], [{ seat: "s1", name: "Ana", finished_ms: 61_000, moves: 3 }]);
    assert.equal(news, "Ana terminó en 1:01,0 (1.º).");
    const daily = { date: "2026-12-01", difficulty: "medium" };
    assert.equal(resultText({}, { finished_ms: 252_400, moves: 131 }, { daily }), "Crescent Race, reto del día 2026-12-01, media: 4:12, 131 movimientos");
    assert.equal(errorText({ code: "room_full", message: "this room already has 8 players" }), "Esta sala está llena.");
    assert.equal(errorText({ code: "some_new_code", message: "in English" }), "in English");
    const now = Date.parse("2026-12-07T15:00:00Z");
    assert.deepEqual(["2026-12-07", "2026-12-06", "2026-12-04"].map((d) => dayAgo(d, now)), ["hoy", "ayer", "hace 3 días"]);
    assert.match(dayAgo("2026-11-01", now), /nov/);
    const waiting = { code: "not_host", message: "…: try again in 4 s", reason: "host_just_left", retry_s: 4 };
    assert.equal(errorText(waiting), "El anfitrión acaba de irse y puede volver: inténtalo de nuevo dentro de 4 s.");
    assert.equal(errorText({ code: "bad_name", message: "…", reason: "too_long", max: 20 }), "Un apodo tiene como mucho 20 caracteres.");
    assert.match(errorText({ code: "not_host", message: "…", reason: "unheard_of" }), /^Solo el anfitrión/); // (its code's words)
  } finally {
    setLang("en");
  }
  assert.equal(formatMs(34_456), "0:34.4");
  assert.equal(ordinal(22), "22nd");
});
