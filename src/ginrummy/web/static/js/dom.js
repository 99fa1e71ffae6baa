// Small DOM helpers and words shared by the pages (no rules, no state).

import { number, t, tn } from "./i18n.js";

/** Build an element: attributes (class, text, data-*, aria-*, role, properties) and children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("data-") || k.startsWith("aria-") || k === "role") node.setAttribute(k, v);
    else node[k] = v;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/** A score-sheet table: header texts, then rows of cells (a node, or a value shown as
 *  text); each row marked `data-testid` ROW_ID when given. */
export function table(head, rows, rowId = undefined) {
  const cell = (tag, c) => (c instanceof Node ? el(tag, {}, c) : el(tag, { text: String(c) }));
  return el("table", { class: "score-sheet" },
    el("thead", {}, el("tr", {}, ...head.map((h) => cell("th", h)))),
    el("tbody", {}, ...rows.map((r) => el("tr", { "data-testid": rowId }, ...r.map((c) => cell("td", c))))));
}

/** A span of time in words, as a person says it: "45 minutes", "24 hours", "3 days" (the
 *  largest unit that reads well, rounded; never "1440 min"). */
export function durationWords(seconds) {
  const minutes = Math.max(0, Math.round(seconds / 60));
  if (minutes < 1) return t("less than a minute");
  if (minutes < 60) return tn("{n} minute", "{n} minutes", minutes);
  const hours = Math.round(minutes / 60);
  if (minutes < 90) {
    return minutes === 60 ? tn("{n} hour", "{n} hours", 1)
      : tn("1 hour {n} minute", "1 hour {n} minutes", minutes - 60);
  }
  if (hours < 48) return tn("{n} hour", "{n} hours", hours);
  return tn("{n} day", "{n} days", Math.round(hours / 24));
}

/** `x` with `digits` decimals, as the page's language writes them ("45.7", "45,7"): the
 *  digits are toFixed's, so English reads exactly as before. */
export function decimal(x, digits = 1) {
  return number(Number(x.toFixed(digits)), { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A sentence with nodes in it (a link, a <code>): `text`, already translated, split at
 *  each {name} of `values` (a node, or text) and each put in its place; a list for
 *  append() or replaceChildren(). The translation may move the placeholders. */
export function withNodes(text, values) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/\{([a-z_][a-z0-9_]*)\}/g)) {
    if (!Object.prototype.hasOwnProperty.call(values, m[1])) continue;
    if (m.index > last) out.push(text.slice(last, m.index));
    const v = values[m[1]];
    out.push(v instanceof Node ? v : String(v));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
