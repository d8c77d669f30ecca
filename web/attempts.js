// The daily challenge's attempts, asked of the server: a new one (the `daily` message, on a
// websocket of its own that then plays it), and whether a saved one's room still runs.

import { deviceKey } from "./device.js";
import { Link } from "./net.js";

/** Ask for an attempt at today's ``difficulty`` deal as ``name``, the daily player of
 * ``token`` (null: a new player). ``joined(link, m)`` with the answer and the link that plays
 * it; ``refused(m)`` with the error, the link closed; ``forgotten()`` when the server no
 * longer knows the player (kept too long, another server): asked again as a new one. Returns
 * the link. */
export function askAttempt({ name, difficulty, token, joined, refused, forgotten }) {
  let sent = false;
  const link = new Link({
    onOpen: () => {
      if (sent) return;
      sent = true;
      const msg = { type: "daily", name, difficulty, device: deviceKey() };
      if (token) msg.token = token;
      link.send(msg);
    },
    onMessage: (m) => {
      if (m.type === "joined" && m.daily) {
        joined(link, m);
      } else if (m.type === "error") {
        if (m.code === "bad_token" && token) {
          token = null;
          forgotten();
          link.send({ type: "daily", name, difficulty, device: deviceKey() });
          return;
        }
        link.close();
        refused(m);
      }
    },
  });
  link.connect();
  return link;
}

/** Whether room ``code`` still races: true, false (over, or gone), or null when the server
 * could not be asked. */
export async function roomRacing(code) {
  try {
    const res = await fetch(`/api/rooms/${encodeURIComponent(code)}`, { cache: "no-store" });
    if (res.ok) return (await res.json()).phase === "racing";
    return res.status === 404 ? false : null;
  } catch {
    return null;
  }
}
