// Racing games on the record again: a solo race on their deal, the games its ghosts (the
// replay page's "Race this ghost", the daily page's leader and best); or playing one on alone
// from one of its steps (the replay page's "Play on from here").

import { deviceKey } from "./device.js";
import { store, toast, tokenKey } from "./dom.js";
import { errorText } from "./i18n.js";
import { Link } from "./net.js";

/** Create the race against ``ids`` as ``name`` and go to it; ``token``: the daily player's
 * (a game of today's daily deal may be raced by a player on that day's board); ``done()``
 * when it was refused (the reason is toasted). Returns the connection, to close on leaving. */
export function raceGhosts({ name, ids, token = null, navigate, done = () => {} }) {
  const msg = { type: "create", name, ghosts: ids, device: deviceKey() };
  if (token) msg.token = token;
  return openRoom(msg, navigate, done);
}

/** Play on alone from step ``step`` of game ``id`` (0: its start): a practice room at the
 * position the server finds there (replay page's "Play on from here"), as ``name``. */
export function playOn({ name, id, step, navigate, done = () => {} }) {
  return openRoom({ type: "create", name, from: { replay: id, step }, device: deviceKey() }, navigate, done);
}

/** Send ``msg`` (a create) and go to the room it opens; ``done()`` when it was refused. */
function openRoom(msg, navigate, done) {
  const link = new Link({
    onOpen: () => link.send(msg),
    onMessage: (m) => {
      if (m.type === "joined") {
        store.set(tokenKey(m.room.code), m.token);
        navigate(`/r/${m.room.code}`, { link, joined: m });
      } else if (m.type === "error") {
        toast(errorText(m), "error");
        link.close();
        done();
      }
    },
  });
  link.connect();
  return link;
}

/** The newest game of room ``code`` on the record (a daily attempt's room holds one), as
 * seen by the daily player of ``token``; null when there is none to see. */
export async function newestGame(code, token = null) {
  const headers = token ? { "X-Player-Token": token } : {};
  const response = await fetch(`/api/rooms/${encodeURIComponent(code)}/replays`, { headers });
  if (!response.ok) return null;
  return (await response.json()).replays[0]?.id ?? null;
}
