// "Your record": this browser's finished matches and, for a signed-in account, the
// account's on any device, summed up by the server from the matches' own records (wins by
// opponent level, gins, undercuts, points per hand, streaks).

import { api, loadSeats, playUrl, signedIn } from "./api.js";

const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const n = document.createElement(tag);
  if (text !== undefined) n.textContent = text;
  if (cls) n.className = cls;
  return n;
}

const LEVELS = { easy: "Easy computer", medium: "Medium computer", hard: "Hard computer", friend: "Friends" };
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** A table: header texts, then rows of cells (a <td> element, or a value shown as text). */
function table(head, rows) {
  const t = el("table", undefined, "score-sheet");
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
  t.append(thead, body);
  return t;
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
    "how many matches you have won, with your gins and undercuts, points per hand and winning streaks;",
    "how you fare against each computer level and against friends;",
    "every finished match, with its score and a link back to it.",
  ]) list.append(el("li", line));
  const go = el("p");
  const a = el("a", "Start a match in the lobby", "btn primary");
  a.href = "/";
  const learn = el("a", "Learn to play", "btn ghost");
  learn.href = "/learn";
  go.className = "not-found-actions";
  go.append(a, learn);
  box.append(p, el("p", "Once you finish a match, this page shows:"), list, go);
  return box;
}

async function load() {
  const seats = loadSeats();
  const summary = $("record-summary");
  const acct = await signedIn();
  if (!seats.length && !acct) {
    summary.replaceChildren(nothingYet("No matches in this browser yet."));
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
  if (!s.played) {
    summary.replaceChildren(nothingYet("No finished match yet: your record starts with the first one you finish."));
    return;
  }
  $("record-details").hidden = false;
  const facts = [
    [plural(s.played, "match", "matches"), `${s.won} won`],
    ["Gins", String(s.gins)],
    ["Undercuts", String(s.undercuts)],
    ["Points per hand", s.points_per_hand == null ? "–" : s.points_per_hand.toFixed(1)],
    ["Longest winning streak", String(s.longest_streak)],
    ["Current streak", String(s.current_streak)],
  ];
  const dl = el("dl", undefined, "record-facts");
  for (const [k, v] of facts) {
    const box = el("div");
    box.append(el("dt", k), el("dd", v));
    dl.append(box);
  }
  summary.replaceChildren(dl);
  const levels = Object.entries(s.by_level).map(([lv, b]) => [LEVELS[lv] || lv, b.played, b.won, b.lost, b.tied,
    b.played ? `${Math.round((100 * b.won) / b.played)}%` : "–"]);
  $("record-levels").replaceChildren(table(["Opponent", "Played", "Won", "Lost", "Tied", "Won %"], levels));
  const byToken = new Map(seats.map((x) => [`${x.id}:${x.seat}`, x.token]));
  const rows = [...data.matches].reverse().map((m) => {
    const link = el("a", `${m.players[m.seat]} v ${m.players[1 - m.seat]}`);
    const tok = byToken.get(`${m.id}:${m.seat}`);
    link.href = tok ? playUrl(m.id, tok) : `/play/${encodeURIComponent(m.id)}`; // else the account's seat
    const when = new Date(m.finished_at * 1000).toLocaleDateString();
    return [cell(link), m.won ? "won" : m.tie ? "tie" : "lost", `${m.points}–${m.against}`, m.hands, m.gins, m.undercuts, when];
  });
  const t = table(["Match", "Result", "Score", "Hands", "Gins", "Undercuts", "Finished"], rows);
  $("record-matches").replaceChildren(t);
}

load();
