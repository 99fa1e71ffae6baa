// The review's win-chance graph, drawn as inline SVG (no library, no image): one point per
// graded decision (the reviewing seat's chance to win the match after it), marks colored,
// hands separated; clicking a point jumps to that decision.

import { number, t } from "./i18n.js";
import { percent } from "./training.js";

const NS = "http://www.w3.org/2000/svg";
const W = 600;
const H = 220;
const PAD = { l: 42, r: 10, t: 12, b: 22 };

function svg(tag, attrs = {}) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/**
 * Draw `points` ([{step, y, mark, hand, label}], y in 0..1) into `box`; the point whose
 * step is `current` (or the last before it) is ringed; `onPick(step)` on a click or Enter.
 */
export function drawGraph(box, points, current, onPick) {
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`, class: "rv-graph", role: "group",
    "aria-label": t("Your chance to win the match after each graded decision"),
  });
  const x0 = PAD.l;
  const x1 = W - PAD.r;
  const y0 = PAD.t;
  const y1 = H - PAD.b;
  const n = points.length;
  const xOf = (i) => (n <= 1 ? (x0 + x1) / 2 : x0 + ((x1 - x0) * i) / (n - 1));
  const yOf = (v) => y1 - (y1 - y0) * Math.max(0, Math.min(1, v));

  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    root.append(svg("line", { x1: x0, x2: x1, y1: yOf(v), y2: yOf(v), class: v === 0.5 ? "rv-g-mid" : "rv-g-grid" }));
    const tick = svg("text", { x: x0 - 6, y: yOf(v) + 4, class: "rv-g-axis", "text-anchor": "end" });
    tick.textContent = percent(Math.round(v * 100), 0);
    root.append(tick);
  }
  if (!n) {
    const none = svg("text", { x: (x0 + x1) / 2, y: (y0 + y1) / 2, class: "rv-g-axis", "text-anchor": "middle" });
    none.textContent = t("No graded decisions yet");
    root.append(none);
    box.replaceChildren(root);
    return;
  }
  // Hand boundaries and labels.
  let prev = null;
  points.forEach((p, i) => {
    if (p.hand !== prev) {
      const x = i === 0 ? x0 : (xOf(i - 1) + xOf(i)) / 2;
      if (i > 0) root.append(svg("line", { x1: x, x2: x, y1: y0, y2: y1, class: "rv-g-hand" }));
      const label = svg("text", { x: x + 3, y: H - 6, class: "rv-g-axis" });
      // TRANSLATORS: a hand's short label on the graph's axis ("H3": hand 3)
      label.textContent = t("H{hand}", { hand: number(p.hand + 1) });
      root.append(label);
      prev = p.hand;
    }
  });
  // The area under the curve and the line.
  const path = points.map((p, i) => `${i ? "L" : "M"}${xOf(i).toFixed(1)},${yOf(p.y).toFixed(1)}`).join(" ");
  root.append(svg("path", { d: `${path} L${xOf(n - 1).toFixed(1)},${y1} L${xOf(0).toFixed(1)},${y1} Z`, class: "rv-g-area" }));
  root.append(svg("path", { d: path, class: "rv-g-line" }));
  // The current decision: the last point at or before the current step.
  let cur = -1;
  points.forEach((p, i) => {
    if (p.step <= current) cur = i;
  });
  if (cur >= 0) {
    root.append(svg("line", { x1: xOf(cur), x2: xOf(cur), y1: y0, y2: y1, class: "rv-g-now" }));
  }
  points.forEach((p, i) => {
    const r = p.mark ? 5.5 : 3;
    const g = svg("g", {
      class: `rv-g-pt ${p.mark || "none"}${i === cur ? " current" : ""}`,
      tabindex: p.mark ? "0" : "-1", role: "button", "data-step": p.step,
      "data-testid": "graph-point", "aria-label": `${p.label}: ${percent(Math.round(p.y * 100), 0)}`,
    });
    g.append(svg("circle", { cx: xOf(i), cy: yOf(p.y), r: 11, class: "rv-g-hit" }));
    g.append(svg("circle", { cx: xOf(i), cy: yOf(p.y), r }));
    const title = svg("title");
    title.textContent = `${p.label} · ${percent(Math.round(p.y * 100), 0)}`;
    g.append(title);
    g.addEventListener("click", () => onPick(p.step));
    g.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        onPick(p.step);
      }
    });
    root.append(g);
  });
  box.replaceChildren(root);
}
