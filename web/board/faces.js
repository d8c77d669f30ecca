// The court cards' figures, drawn here as SVG (no image is fetched): a jack in a feathered
// cap, a queen with a tiara and long hair, a king with a crown and a beard, each robed in the
// suit's colour (currentColor: the two- or four-colour deck alike) with the suit on the chest.
// A figure is made once per card text and cloned: a board draws many.

const NS = "http://www.w3.org/2000/svg";
const SKIN = "#f3d6b4";
const GOLD = "#d9a520";
const HAIR = { J: "#7a4a1e", Q: "#b8862f", K: "#d8d2c4" };

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

/** The headwear of each rank, over a head centred at (20, 17). */
function headwear(rank) {
  if (rank === "K") {
    return [
      s("path", { d: "M11 12 L11 4 L15 8 L20 2 L25 8 L29 4 L29 12 Z", fill: GOLD, stroke: "#7a5a10", "stroke-width": 0.8 }),
      s("circle", { cx: 20, cy: 9, r: 1.3, fill: "#c0262d" }),
    ];
  }
  if (rank === "Q") {
    return [
      s("path", { d: "M12 11 Q20 4 28 11 L27 12 Q20 8 13 12 Z", fill: GOLD, stroke: "#7a5a10", "stroke-width": 0.7 }),
      s("circle", { cx: 16, cy: 8.6, r: 1 , fill: "#fff" }),
      s("circle", { cx: 20, cy: 7, r: 1.3, fill: "#1a5fc4" }),
      s("circle", { cx: 24, cy: 8.6, r: 1, fill: "#fff" }),
    ];
  }
  return [
    s("path", { d: "M11 13 Q11 5 20 5 Q29 5 29 13 Z", fill: "currentColor" }),
    s("path", { d: "M27 8 Q34 1 35 9 Q31 6 28 10 Z", fill: GOLD, stroke: "#7a5a10", "stroke-width": 0.6 }),
  ];
}

function figure(rank, symbol) {
  const hair = HAIR[rank];
  const parts = [
    // the robe: shoulders in the suit's colour, a white collar
    s("path", { d: "M3 50 Q4 31 20 29 Q36 31 37 50 Z", fill: "currentColor" }),
    s("path", { d: "M13 31 Q20 37 27 31 Q20 34 13 31 Z", fill: "#fff", stroke: "currentColor", "stroke-width": 0.6 }),
  ];
  if (rank === "Q") parts.push(s("path", { d: "M10 14 Q9 28 13 31 L27 31 Q31 28 30 14 Z", fill: hair }));
  parts.push(s("ellipse", { cx: 20, cy: 18, rx: 7.5, ry: 8.5, fill: SKIN, stroke: "#8a6a50", "stroke-width": 0.6 }));
  // eyes and mouth
  parts.push(s("circle", { cx: 17.2, cy: 17, r: 0.9, fill: "#222" }), s("circle", { cx: 22.8, cy: 17, r: 0.9, fill: "#222" }));
  if (rank === "K") parts.push(s("path", { d: "M13 20 Q14 29 20 30 Q26 29 27 20 Q24 24 20 24 Q16 24 13 20 Z", fill: hair, stroke: "#9a9080", "stroke-width": 0.5 }));
  else parts.push(s("path", { d: "M18 22 Q20 23.5 22 22", fill: "none", stroke: "#a0403a", "stroke-width": 0.8, "stroke-linecap": "round" }));
  if (rank === "J") parts.push(s("path", { d: "M12.5 13 Q12 19 13.5 22 L13 14 Z M27.5 13 Q28 19 26.5 22 L27 14 Z", fill: hair }));
  parts.push(...headwear(rank));
  // the suit on the chest
  const suit = s("text", { x: 20, y: 46, "text-anchor": "middle", "font-size": 11, fill: "#fff" });
  suit.textContent = symbol;
  parts.push(suit);
  return s("svg", { class: "court", viewBox: "0 0 40 50", "aria-hidden": "true", focusable: "false" }, ...parts);
}

const made = new Map();

/** The figure of a court card (rank J, Q or K, suit ``symbol``), a fresh copy. */
export function courtFigure(rank, symbol) {
  const key = rank + symbol;
  if (!made.has(key)) made.set(key, figure(rank, symbol));
  return made.get(key).cloneNode(true);
}
