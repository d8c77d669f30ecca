// A card's flight in the win cascade (cascade.js), pure: thrown sideways from where it
// stands, it falls, bounces off the floor losing a part of its speed each time, and goes
// until it leaves the screen at a side or its time is up. No DOM here.

/**
 * The points of a flight from (x, y) (the card's top-left, px) with speeds ``vx``, ``vy``
 * (px/ms), a card ``w`` x ``h`` in a screen ``width`` x ``height``: [{t, x, y}] every
 * ``step`` ms, the last one where the card is out of sight or at ``maxMs``.
 */
export function bouncePath({ x, y, vx, vy, w, h, width, height, gravity = 0.0025, keep = 0.72, step = 32, maxMs = 1800 }) {
  const floor = height - h;
  const out = [{ t: 0, x, y }];
  for (let t = step; t <= maxMs; t += step) {
    vy += gravity * step;
    x += vx * step;
    y += vy * step;
    if (y > floor) {
      y = floor - (y - floor) * keep;
      vy = -Math.abs(vy) * keep;
      if (-vy < 2 * gravity * step) [y, vy] = [floor, 0]; // too low a bounce to see: it rolls
    }
    out.push({ t, x, y });
    if (x + w < 0 || x > width) break;
  }
  return out;
}

/** The cards of a full foundation ``key`` ("uH": A up to K; "dH": K down to A), top first. */
export function foundationCards(key) {
  const ranks = "A23456789TJQK";
  const order = key[0] === "u" ? [...ranks].reverse() : [...ranks];
  return order.map((r) => r + key[1]);
}
