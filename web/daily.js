// The daily challenge page. A placeholder until the daily feature lands: it says so and
// links back home.

import { fill, h } from "./dom.js";

export function dailyView(root) {
  root.dataset.view = "daily";
  fill(
    root,
    h(
      "section",
      { class: "card-panel narrow", "data-testid": "daily" },
      h("h2", {}, "Daily challenge"),
      h("p", {}, "Today’s deal is on its way. Check back soon."),
      h("a", { href: "/", class: "button" }, "Back home"),
    ),
  );
  return { destroy() {} };
}
