// "Your record": this browser's finished matches and, for a signed-in account, the
// account's on any device, summed up by the server from the matches' own records (wins by
// opponent level, gins, undercuts, points per hand, streaks).

import { api, loadSeats, playUrl, signedIn } from "./api.js";
import { decimal } from "./dom.js";
import { lang, number, t, tn } from "./i18n.js";
import { percent } from "./training.js";

const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const n = document.createElement(tag);
  if (text !== undefined) n.textContent = text;
  if (cls) n.className = cls;
  return n;
}

const LEVELS = { easy: t("Easy computer"), medium: t("Medium computer"), hard: t("Hard computer"), friend: t("Friends") };

/** A table: header texts, then rows of cells (a <td> element, or a value shown as text). */
function table(head, rows) {
  const box = el("table", undefined, "score-sheet");
  const tr = el("tr");
  for (const h of head) tr.append(el("th", h));
  const thead = el("thead");
  thead.append(tr);
  const body = el("tbody");
  for (const r of rows) {
    const row = el("tr");
    for (const c of r) row.append(c instanceof HTMLElement && c.tagName === "TD" ? c : el("td", String(c)));
    body.append(row);
  }
  box.append(thead, body);
  return box;
}

function cell(node) {
  const td = el("td");
  td.append(node);
  return td;
}

/** What the page will show, said while there is nothing to show yet. */
function nothingYet(first) {
  const box = el("div", undefined, "record-empty");
  const p = el("p", first);
  const list = el("ul");
  for (const line of [
    t("how many matches you have won, with your gins and undercuts, points per hand and winning streaks;"),
    t("how you fare against each computer level and against friends;"),
    t("every finished match, with its score and a link back to it."),
  ]) list.append(el("li", line));
  const go = el("p");
  const a = el("a", t("Start a match in the lobby"), "btn primary");
  a.href = "/";
  const learn = el("a", t("Learn to play"), "btn ghost");
  learn.href = "/learn";
  go.className = "not-found-actions";
  go.append(a, learn);
  box.append(p, el("p", t("Once you finish a match, this page shows:")), list, go);
  return box;
}

async function load() {
  const seats = loadSeats();
  const summary = $("record-summary");
  const acct = await signedIn();
  if (acct) { // the account's record, the same on every device it signs in on
    $("record-about").textContent = t("The finished matches of your account, {name}, on "
      + "every device you sign in on (and those played in this browser as a guest).", { name: acct.username });
  }
  if (!seats.length && !acct) {
    summary.replaceChildren(nothingYet(t("No matches in this browser yet.")));
    return;
  }
  let data;
  try {
    const body = { tokens: seats.map((s) => s.token).slice(0, 200) };
    data = await api(acct ? "/api/me/record" : "/api/record", { method: "POST", body });
  } catch (e) {
    summary.replaceChildren(el("p", e.message, "message error"));
    return;
  }
  const s = data.summary;
  if (!s.played && !s.aborted) {
    summary.replaceChildren(nothingYet(t("No finished match yet: your record starts with the first one you finish.")));
    return;
  }
  $("record-details").hidden = false;
  const facts = [
    [tn("{n} match", "{n} matches", s.played), s.aborted
      ? t("{won} won (and {aborted} aborted: no result)", { won: number(s.won), aborted: number(s.aborted) })
      : t("{won} won", { won: number(s.won) })],
    [t("Gins"), number(s.gins)],
    [t("Undercuts"), number(s.undercuts)],
    [t("Points per hand"), s.points_per_hand == null ? "–" : decimal(s.points_per_hand, 1)],
    [t("Longest winning streak"), number(s.longest_streak)],
    [t("Current streak"), number(s.current_streak)],
  ];
  const dl = el("dl", undefined, "record-facts");
  for (const [k, v] of facts) {
    const box = el("div");
    box.append(el("dt", k), el("dd", v));
    dl.append(box);
  }
  summary.replaceChildren(dl);
  const levels = Object.entries(s.by_level).map(([lv, b]) => [LEVELS[lv] || lv, number(b.played), number(b.won),
    number(b.lost), number(b.tied), b.played ? percent(Math.round((100 * b.won) / b.played), 0) : "–"]);
  $("record-levels").replaceChildren(table([t("Opponent"), t("Played"), t("Won"), t("Lost"), t("Tied"), t("Won %")], levels));
  const byToken = new Map(seats.map((x) => [`${x.id}:${x.seat}`, x.token]));
  const rows = [...data.matches].reverse().map((m) => {
    const link = el("a", t("{first} v {second}", { first: m.players[m.seat], second: m.players[1 - m.seat] }));
    const tok = byToken.get(`${m.id}:${m.seat}`);
    link.href = tok ? playUrl(m.id, tok) : `/play/${encodeURIComponent(m.id)}`; // else the account's seat
    const when = new Date(m.finished_at * 1000).toLocaleDateString(lang);
    const result = m.aborted ? t("aborted") : m.won ? t("won") : m.tie ? t("tie") : t("lost");
    return [cell(link), result, `${number(m.points)}–${number(m.against)}`, number(m.hands), number(m.gins),
      number(m.undercuts), when];
  });
  $("record-matches").replaceChildren(table([t("Match"), t("Result"), t("Score"), t("Hands"), t("Gins"), t("Undercuts"), t("When")], rows));
}

load();
