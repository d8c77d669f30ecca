// Sharing: a button that opens the device's share sheet (the Web Share API) where the
// browser has one, else copies; the room's link with its QR code for the lobby.

import { h } from "../dom.js";
import { t } from "../i18n.js";

const SAID_MS = 2000; // how long the button says what it did

// What a button last said outlives a redraw of its panel (someone arriving, a spectator).
const said = new Map(); // testid -> {text, until}

/** A button that shares ``data()`` ({title, text, url}): the share sheet where there is one,
 * else the clipboard; ``fallback(el)`` runs when neither works (say, select the text). */
export function shareButton({ testid, label, copyLabel = label, data, fallback = () => {}, attrs = {} }) {
  const canShare = typeof navigator.share === "function";
  const idle = canShare ? label : copyLabel;
  const last = said.get(testid);
  const button = h(
    "button",
    { type: "button", "data-testid": testid, "data-mode": canShare ? "share" : "copy", ...attrs, onclick: () => go() },
    last && Date.now() < last.until ? last.text : idle,
  );
  const say = (text) => {
    said.set(testid, { text, until: Date.now() + SAID_MS });
    button.textContent = text;
    setTimeout(() => {
      if (Date.now() >= (said.get(testid)?.until ?? 0) && button.isConnected) button.textContent = idle;
    }, SAID_MS);
  };
  async function go() {
    const d = data();
    if (canShare) {
      try {
        await navigator.share(d);
        say(t("share.shared"));
        return;
      } catch (e) {
        if (e?.name === "AbortError") return; // the person closed the sheet
      }
    }
    try {
      await navigator.clipboard.writeText(d.url && d.text ? `${d.text} ${d.url}` : d.url || d.text);
      say(t("share.copied"));
    } catch {
      fallback(button);
      say(t("share.select"));
    }
  }
  return button;
}

const LOOPBACK_FIX = ".ci/serve --host 0.0.0.0";

/** The room's link to share: the address, a share (or copy) button, and its QR code for a
 * friend across the table (drawn by the server: /api/rooms/CODE/qr.svg). ``unreachable``:
 * no other device can open it (a server on loopback): said, with the fix, instead of a QR. */
export function roomShare({ url, code, unreachable = false }) {
  const input = h("input", { readonly: true, value: url, "data-testid": "share-url", "aria-label": t("share.linkLabel") });
  const button = shareButton({
    testid: "copy-link",
    label: t("share.link"),
    copyLabel: t("share.copyLink"),
    data: () => ({ title: t("site.name"), text: t("share.join", { code }), url }),
    fallback: () => input.select(),
  });
  if (unreachable) {
    return h(
      "div",
      { class: "share-block loopback", "data-testid": "share-loopback" },
      h(
        "div",
        { class: "share-text" },
        h("p", {}, h("strong", {}, t("loopback.title"))),
        h("p", { class: "small" }, t("loopback.body"), " ", h("code", { class: "command", "data-testid": "loopback-fix" }, LOOPBACK_FIX), " ", t("loopback.after")),
        h("div", { class: "share" }, input, button),
      ),
    );
  }
  const qr = h("img", {
    class: "qr",
    src: `/api/rooms/${encodeURIComponent(code)}/qr.svg`,
    alt: t("share.qr", { url }),
    width: "148",
    height: "148",
    "data-testid": "room-qr",
  });
  return h(
    "div",
    { class: "share-block" },
    h("div", { class: "share-text" }, h("p", {}, t("share.invite")), h("div", { class: "share" }, input, button)),
    qr,
  );
}
