// Small DOM helpers shared by the table and the review page (no rules, no state).

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
