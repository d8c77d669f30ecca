// The room page before the race: the join form (or why there is none), the lobby, and the
// panel of a room that is gone.

import { h, NAME_KEY, nameInput, store } from "../dom.js";
import { t } from "../i18n.js";
import { hostAway } from "../model/select.js";
import { roomLink, shareOrigin, unreachable } from "../model/share.js";
import { hintRule } from "../model/hints.js";
import { inviteText, sentence } from "../model/words.js";
import { awayTag, watchingLine } from "./ranking.js";
import { seriesPanel } from "./series.js";
import { ratingChip } from "../ratings.js";
import { roomShare } from "./share.js";

const NOTE_ID = "join-note";

/** ``text`` with ``node`` where ``mark`` is: [before, node, after] (a link inside a sentence,
 * wherever the language puts it). */
function around(text, mark, node) {
  const at = text.indexOf(mark);
  return at < 0 ? [text, node] : [text.slice(0, at), node, text.slice(at + mark.length)];
}

/** The join form; ``join(name, {focused})`` (``focused``: the focus was in the form, lost
 * as its button turns off). ``error`` ({code, message}) is said above the button. */
export function joinForm({ code, error, join }) {
  const name = nameInput({
    id: "room-name",
    placeholder: t("home.nicknamePlaceholder"),
    value: store.get(NAME_KEY) || "",
    "data-testid": "join-name",
    "aria-describedby": error ? NOTE_ID : null,
  });
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "join-room" }, t("lobby.joinButton"));
  return h(
    "form",
    {
      class: "card-panel narrow",
      "data-testid": "join-room-form",
      onsubmit: (e) => {
        e.preventDefault();
        const value = name.value.trim();
        if (!value) return;
        store.set(NAME_KEY, value);
        const focused = e.currentTarget.contains(document.activeElement);
        submit.disabled = true;
        join(value, { focused });
      },
    },
    h("h2", {}, t("lobby.join")),
    h("p", { class: "invite", "data-testid": "join-invite", hidden: true }),
    h("label", { for: "room-name" }, t("home.nickname")),
    name,
    h("p", { class: "error", id: NOTE_ID, "data-testid": "join-error", "data-code": error?.code, hidden: !error }, sentence(error?.message)),
    submit,
    h("p", { class: "muted" }, ...around(t("lobby.or"), "{link}", h("a", { href: `/watch/${encodeURIComponent(code)}`, "data-testid": "watch-instead" }, t("lobby.watchInstead")))),
  );
}

/** Say in a join form on the page who invites, who waits, and on what (``info``: the
 * server's look-up of the room, `GET /api/rooms/CODE`). */
export function showInvite(form, info) {
  const slot = form.querySelector("[data-testid=join-invite]");
  if (!slot) return;
  slot.textContent = inviteText(info);
  slot.hidden = !slot.textContent;
}

/** Say ``note`` in a join form on the page (unless it says something already). */
export function showJoinNote(form, note) {
  const slot = form.querySelector("[data-testid=join-error]");
  if (!slot || !slot.hidden) return;
  slot.textContent = sentence(note.message);
  slot.dataset.code = note.code;
  slot.hidden = false;
  form.querySelector("input")?.setAttribute("aria-describedby", slot.id);
}

/** The lobby of state ``s`` at server time ``now``; ``send(msg)``; ``ratings``: seat ->
 * rating (ratings.js), beside each name. */
export function lobbyPanel(s, { send, now, ratings = null }) {
  const { room, seat, code, presence } = s;
  const disabled = s.kicked;
  const me = room.players.find((p) => p.seat === seat);
  // The host, or anyone here once the host is gone (the server then makes them host).
  const away = hostAway(s, now);
  const host = room.host === seat || away;
  const url = roomLink(shareOrigin(location, s.shareOrigin), code);
  const ready = !!me?.ready;
  return h(
    "div",
    { class: "card-panel lobby-panel" },
    h("h2", {}, t("lobby.waiting")),
    roomShare({ url, code, unreachable: unreachable(location, s.shareOrigin) }),
    h(
      "ul",
      { class: "players", "data-testid": "lobby-players" },
      room.players.map((p) =>
        h(
          "li",
          { "data-testid": "lobby-player", "data-seat": p.seat, "data-ready": p.ready ? "true" : "false" },
          h("span", { class: "name", dir: "auto" }, p.name),
          ratingChip(ratings?.get(p.seat)),
          p.seat === room.host ? h("span", { class: "tag" }, t("tag.host")) : null,
          p.seat === seat ? h("span", { class: "tag" }, t("tag.you")) : null,
          awayTag(presence, p.seat, seat),
          h("span", { class: `ready ${p.ready ? "yes" : "no"}` }, p.ready ? t("lobby.ready") : t("lobby.notReady")),
          host && p.seat !== seat
            ? h(
                "button",
                { type: "button", class: "small", "data-testid": "remove-player", disabled, "aria-label": t("lobby.removeLabel", { name: p.name }), onclick: () => send({ type: "remove", seat: p.seat }) },
                t("lobby.remove"),
              )
            : null,
        ),
      ),
    ),
    seriesPanel(room, { me: seat }),
    hintRule(room) ? h("p", { class: "muted lobby-hints", "data-testid": "lobby-hints", "data-hints": room.hints }, hintRule(room)) : null,
    room.ghosts?.length
      ? h(
          "p",
          { class: "muted lobby-ghosts", "data-testid": "lobby-ghosts" },
          t("lobby.ghosts"),
          room.ghosts.map((g, i) => [i ? ", " : "", h("span", { class: "name", dir: "auto" }, g.name)]),
          t("lobby.ghostsTail"),
        )
      : null,
    h(
      "div",
      { class: "actions" },
      h(
        "button",
        {
          type: "button",
          "data-testid": "ready",
          "aria-pressed": ready ? "true" : "false",
          class: ready ? "on" : null,
          disabled,
          onclick: () => send({ type: "ready", ready: !ready }),
        },
        ready ? t("lobby.readyOn") : t("lobby.readyOff"),
      ),
      host
        ? h("button", { type: "button", class: "primary", "data-testid": "start", disabled, onclick: () => send({ type: "start" }) }, t("lobby.start"))
        : h("p", { class: "muted" }, t("lobby.hostStarts")),
      away ? h("p", { class: "muted", "data-testid": "host-away" }, t("lobby.hostAway")) : null,
      h("button", { type: "button", "data-testid": "leave", disabled, onclick: () => send({ type: "leave" }) }, t("lobby.leave")),
    ),
    watchingLine(presence),
    // (in a new tab: here, the page would leave the seat)
    h(
      "p",
      { class: "muted" },
      t("lobby.watchLink"),
      h("a", { href: `/watch/${code}`, target: "_blank", rel: "noopener", "data-testid": "watch-link" }, `/watch/${code}`, h("span", { class: "sr-only" }, ` ${t("common.newTab")}`)),
    ),
  );
}

/** Instead of the join form, for a room that takes no seat: why (``note``), the way to watch. */
export function closedPanel(code, note) {
  const title = t(note.code === "daily" ? "closed.daily" : note.code === "tutorial" ? "closed.tutorial" : note.over ? "closed.over" : "closed.started");
  const watch = { href: `/watch/${encodeURIComponent(code)}`, class: "button primary", "data-testid": "watch-instead", "aria-describedby": "join-closed-why" };
  return h(
    "div",
    { class: "card-panel narrow", "data-testid": "join-closed", "data-code": note.code },
    h("h2", { tabindex: "-1" }, title), // (the focus goes here when this panel takes the form's place)
    h("p", { id: "join-closed-why", "data-testid": "join-error" }, sentence(note.message)),
    h("p", { class: "actions" }, h("a", watch, note.over ? t("closed.results") : t("closed.watch")), h("a", { href: "/", class: "button" }, t("common.home"))),
  );
}

/** A room that no longer exists, and the way home. */
export function gonePanel(message) {
  return h(
    "div",
    { class: "card-panel narrow", "data-testid": "room-gone" },
    h("h2", {}, t("gone.title")),
    h("p", {}, sentence(message)),
    h("a", { href: "/", class: "button" }, t("common.home")),
  );
}
