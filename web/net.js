// One websocket to the server, reconnecting with backoff, with the server's clock. No DOM:
// how the connection is doing goes out as a "status" event of `linkStatus` (the app shows it).
//
// `serverNow()` is the local clock corrected by the offset measured from "hello" and "pong"
// (the round trip with the smallest delay wins), so every timer counts from the server's
// own start time.

import { t } from "./i18n.js";
import { CLOSE_REMOVED, CLOSE_REPLACED } from "./wire.js";

/** Each link's "status" events: `detail` connecting, online, offline, replaced or idle. */
export const linkStatus = new EventTarget();

/** The links that lost their server and try again. While any has, ``linkStatus`` says so
 * with a "lost" event (``detail`` true), and with false once none has: the page then refuses
 * input and says why (app.js). A link closed on purpose, or replaced, is not lost. */
const lost = new Set();

function setLost(link, on) {
  const was = lost.size > 0;
  if (on) lost.add(link);
  else lost.delete(link);
  if (was !== lost.size > 0) linkStatus.dispatchEvent(new CustomEvent("lost", { detail: lost.size > 0 }));
}

/** How soon a page asks again when the server did not answer (the page's own wait). */
export const RETRY_MS = 5000;

export class Link {
  /**
   * @param {object} handlers onOpen(hello) after each hello, onMessage(msg),
   *   onKicked(reason) when the server closed us for good (the seat was opened elsewhere),
   *   onRemoved(reason) when the host took the seat away.
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.ws = null;
    this.offset = 0;
    this.bestRtt = Infinity;
    this.attempt = 0;
    this.stopped = false;
    this.timer = null;
    this.pingTimer = null;
    this.pingSent = 0;
    this.ready = false;
    this.hello = null; // the server's last hello
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws`;
  }

  serverNow() {
    return Date.now() + this.offset;
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.timer);
    this.status("connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    this.ready = false;
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "hello") {
        this.offset = msg.server_time - Date.now();
        this.hello = msg;
        this.attempt = 0;
        this.ready = true;
        this.status("online");
        this.ping();
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.ping(), 15000);
        this.handlers.onOpen?.(msg);
        return;
      }
      if (msg.type === "pong") {
        const now = Date.now();
        const rtt = now - this.pingSent;
        if (this.pingSent && rtt <= this.bestRtt) {
          this.bestRtt = rtt;
          this.offset = msg.server_time + rtt / 2 - now;
        }
        return;
      }
      this.handlers.onMessage?.(msg);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      this.ready = false;
      clearInterval(this.pingTimer);
      if (event.code === CLOSE_REPLACED) {
        this.stopped = true;
        this.status("replaced");
        this.handlers.onKicked?.(t("seat.kicked"));
        return;
      }
      if (event.code === CLOSE_REMOVED) {
        this.stopped = true;
        this.status("idle");
        this.handlers.onRemoved?.(t("seat.removed"));
        return;
      }
      if (this.stopped) return;
      const delay = Math.min(5000, 300 * 2 ** this.attempt++);
      this.status("offline");
      this.timer = setTimeout(() => this.connect(), delay);
    });
  }

  ping() {
    if (this.send({ type: "ping" })) this.pingSent = Date.now();
  }

  /** Send a message now; false when not connected (nothing is queued). */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || !this.ready) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Drop this connection and open a new one at once (to resume with a fresh session). */
  reconnect() {
    const old = this.ws;
    this.ws = null;
    clearInterval(this.pingTimer);
    if (old) old.close(1000);
    this.attempt = 0;
    this.connect();
  }

  close() {
    this.stopped = true;
    this.ready = false;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    const old = this.ws;
    this.ws = null;
    if (old) old.close(1000);
    this.status("idle");
  }

  status(state) {
    if (state !== "connecting") setLost(this, state === "offline");
    linkStatus.dispatchEvent(new CustomEvent("status", { detail: state }));
  }
}
