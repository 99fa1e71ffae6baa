// The open-data page (/open-data): the months `ginrummy export` published, newest first,
// with their games, decisions, files, sizes and checksums (GET /api/open-data).

import { api } from "./api.js";
import { el, table } from "./dom.js";
import { lang, number, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

/** 1536 -> "1.5 KB": a file's size as people read it (decimal units, as downloads show). */
function size(bytes) {
  const units = [t("bytes"), t("KB"), t("MB"), t("GB"), t("TB")];
  let i = 0;
  let x = bytes;
  while (x >= 1000 && i < units.length - 1) {
    x /= 1000;
    i += 1;
  }
  const digits = i === 0 || x >= 100 ? 0 : 1;
  return `${number(x, { maximumFractionDigits: digits })} ${units[i]}`;
}

/** "2025-01" -> "January 2025" in the page's language. */
function monthName(month) {
  const [y, m] = month.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleDateString(lang, { year: "numeric", month: "long", timeZone: "UTC" });
}

function fileCell(f) {
  const a = el("a", { text: f.name, href: f.url, download: f.name, "data-testid": "open-data-file" });
  const sum = el("code", { text: f.sha256.slice(0, 12) + "…", title: `SHA-256 ${f.sha256}` });
  return el("div", {}, a, ` (${size(f.bytes)}) `, sum);
}

async function show() {
  const box = $("months");
  let data;
  try {
    data = await api("/api/open-data");
  } catch (e) {
    box.replaceChildren(el("p", { class: "empty", text: e.message || t("The list could not be loaded: try again in a moment.") }));
    return;
  }
  if (!data.months.length) {
    box.replaceChildren(el("p", { class: "empty", text: data.published
      ? t("No month has been published yet.")
      : t("This site does not publish its games.") }));
    return;
  }
  const rows = data.months.map((m) => {
    const files = el("div", { class: "files" }, ...m.files.map(fileCell));
    return [monthName(m.month), number(m.games), number(m.decisions), files];
  });
  box.replaceChildren(table([t("Month"), t("Games"), t("Decisions"), t("Files")], rows, "open-data-month"));
  if (data.sums) {
    $("sums-link").href = data.sums;
    $("sums").hidden = false;
  }
}

show();
