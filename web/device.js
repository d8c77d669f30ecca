// This browser's device key: a long random secret the page keeps, sent with create, join
// and daily so that the server lists the player's games under it (the server keeps only a
// hash). It is never shown to other players; the /me page can hand it to another device.

import { store } from "./dom.js";
import { DEVICE_KEY as DEVICE_KEY_PATTERN } from "./wire.js";

export const DEVICE_KEY = "crescent-race.device";

/** The key, made on first use: 24 random bytes, base64url (32 characters). */
export function deviceKey() {
  const known = store.get(DEVICE_KEY);
  if (known && DEVICE_KEY_PATTERN.test(known)) return known;
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const key = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  store.set(DEVICE_KEY, key);
  return key;
}

/** Take another device's key (from its /me link), when it is one. */
export function adoptDeviceKey(key) {
  if (!DEVICE_KEY_PATTERN.test(key)) return false;
  store.set(DEVICE_KEY, key);
  return true;
}
