// A rating's history as a small line chart, pure: where each point goes in a box of the
// given size (the page draws it as inline SVG), with round gridlines to read it by.

/** ``history``: [{rating}, …] oldest first, after a start at ``start`` (1500). Returns
 * {points: [[x, y], …] (the start first), lo, hi (the rating at the bottom and the top),
 * grid: [{rating, y}, …]} in a ``width`` x ``height`` box with ``pad`` around the line and
 * ``left`` on its left (room for the gridlines' labels). */
export function chartOf(history, { width = 320, height = 120, pad = 8, left = pad, start = 1500 } = {}) {
  const values = [start, ...history.map((p) => p.rating)];
  const step = gridStep(Math.max(...values) - Math.min(...values));
  const lo = Math.floor(Math.min(...values) / step) * step;
  const hi = Math.max(Math.ceil(Math.max(...values) / step) * step, lo + step);
  const x = (i) => round(left + ((width - left - pad) * i) / Math.max(1, values.length - 1));
  const y = (v) => round(height - pad - ((height - 2 * pad) * (v - lo)) / (hi - lo));
  const grid = [];
  for (let v = lo; v <= hi; v += step) grid.push({ rating: v, y: y(v) });
  return { points: values.map((v, i) => [x(i), y(v)]), lo, hi, grid };
}

/** Gridlines 10, 25, 50, 100, … apart: two to five of them across ``span``. */
export function gridStep(span) {
  for (const s of [10, 25, 50, 100, 200, 250, 500, 1000]) if (span / s <= 4) return s;
  return 1000;
}

const round = (n) => Math.round(n * 10) / 10;
