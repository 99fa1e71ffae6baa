// A signed-in player's notices on every page (docs/web-api.md, "Challenges"): the account's
// socket, /api/me/ws, pushes its challenges the moment they change, wherever they were
// made; each open challenge to the player shows as a notice with Accept and Decline (with
// a reason). Accepting in one tab removes the notice from every other tab (the next push).
// Pages that load online.js start it with the account online.js already asked for; the
// others (the table) start it here. An open arena that a followed player made shows as a
// notice too (the snapshot's "arenas"), once: closing it or opening the arena puts it away
// for good in this browser.

import { rememberSeat, signedIn } from "./api.js";
import { number, t } from "./i18n.js";

const REASONS = [
  ["generic", t("Not now")],
  ["later", t("Later, please")],
  ["too_fast", t("Too fast a clock")],
  ["too_slow", t("Too slow a clock")],
  ["rated", t("Rated, please")],
  ["casual", t("Casual, please")],
  ["options", t("Other options, please")],
  ["no_bot", t("No bots, please")],
];

let started = false;
let account = null;
let box = null;
let shown = [];
let backoff = 1000;
let arenas = []; // open arenas made by followed players: [{id, name, by}]
const SEEN_KEY = "ginrummy.arenas.seen"; // arena ids whose notice was put away

function el(tag, text, cls) {
  const n = document.createElement(tag);
  if (text !== undefined) n.textContent = text;
  if (cls) n.className = cls;
  return n;
}

/** A challenge's table in a few words: rated or casual, the target, options, the clock. */
export function describe(c) {
  const parts = [c.rated ? t("rated") : t("casual"), t("to {target}", { target: number(c.options.target) })];
  if (c.options.gin_only) parts.push(t("gin only"));
  if (c.options.oklahoma) parts.push(t("Oklahoma"));
  if (c.clock) {
    parts.push(t("{seconds} s a move + {minutes} min",
      { seconds: number(c.clock.move), minutes: number(Math.round(c.clock.bank / 60 * 10) / 10) }));
  }
  return parts.join(", ");
}

/** A name as pages show it: BOT accounts are marked. */
export function shownName(name, bot) {
  return bot ? `BOT ${name}` : name;
}

async function post(path, body) {
  const headers = { Accept: "application/json", "Content-Type": "application/json",
    "X-CSRF-Token": account.csrf || "" };
  const res = await fetch(path, { method: "POST", headers, body: JSON.stringify(body || {}),
    cache: "no-store" });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new Error((data && data.error) || t("Refused ({status}).", { status: String(res.status) }));
  return data;
}

function seenArenas() {
  try {
    const ids = JSON.parse(localStorage.getItem(SEEN_KEY) || "[]");
    return Array.isArray(ids) ? ids : [];
  } catch {
    return [];
  }
}

function putAway(id) {
  const ids = seenArenas().filter((x) => x !== id);
  ids.push(id);
  try {
    localStorage.setItem(SEEN_KEY, JSON.stringify(ids.slice(-200)));
  } catch {
    /* private mode: the notice comes back on the next page */
  }
}

/** "NAME started an arena: ARENA", with the arena's link and a close button. */
function renderArenas() {
  const seen = new Set(seenArenas());
  const open = arenas.filter((a) => a && a.id && !seen.has(String(a.id)));
  const ids = new Set(open.map((a) => String(a.id)));
  for (const card of box.querySelectorAll("[data-arena]")) {
    if (!ids.has(card.dataset.arena)) card.remove(); // started, finished or put away
  }
  const have = new Set([...box.querySelectorAll("[data-arena]")].map((card) => card.dataset.arena));
  for (const a of open.filter((x) => !have.has(String(x.id)))) {
    const id = String(a.id);
    const card = el("div", undefined, "notice");
    card.dataset.testid = "arena-notice";
    card.dataset.arena = id;
    const go = el("a", t("Open the arena"), "btn primary small");
    go.href = `/tournament/${encodeURIComponent(id)}`;
    go.dataset.testid = "arena-notice-link";
    go.addEventListener("click", () => putAway(id));
    const close = el("button", t("Close"), "btn small");
    close.type = "button";
    close.dataset.testid = "arena-notice-close";
    close.setAttribute("aria-label", t("Close the notice of {arena}", { arena: a.name }));
    close.addEventListener("click", () => {
      putAway(id);
      card.remove();
    });
    const row = el("div", undefined, "notice-buttons");
    row.append(go, close);
    card.append(el("p", t("{name} started an arena: {arena}", { name: a.by, arena: a.name }), "notice-title"), row);
    box.append(card);
  }
}

function render() {
  if (!box) {
    box = el("div", undefined, "notices");
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", t("Notices"));
    box.dataset.testid = "notices";
    document.body.append(box);
  }
  renderArenas();
  const now = Date.now() / 1000;
  const open = shown.filter((x) => x.status === "open" && x.expires_at > now);
  const ids = new Set(open.map((c) => c.id));
  for (const card of box.querySelectorAll("[data-challenge]")) {
    if (!ids.has(card.dataset.challenge)) card.remove(); // answered, cancelled or expired
  }
  const have = new Set([...box.querySelectorAll("[data-challenge]")].map((card) => card.dataset.challenge));
  for (const c of open.filter((x) => !have.has(x.id))) {
    const card = el("div", undefined, "notice");
    card.dataset.testid = "challenge-notice";
    card.dataset.challenge = c.id;
    card.append(el("p", t("{name} challenges you", { name: shownName(c.from, c.from_bot) }), "notice-title"),
      el("p", describe(c), "notice-detail"));
    const said = el("p", "", "notice-said");
    const accept = el("button", t("Accept"), "btn primary small");
    accept.type = "button";
    accept.dataset.testid = "challenge-accept";
    accept.addEventListener("click", async () => {
      accept.disabled = true;
      try {
        const r = await post(`/api/challenges/${encodeURIComponent(c.id)}/accept`);
        rememberSeat({ id: r.match.id, token: r.match.token, seat: r.match.seat });
        location.href = r.match.url;
      } catch (err) {
        said.textContent = err.message;
        accept.disabled = false;
      }
    });
    const reason = el("select", undefined, "small");
    reason.setAttribute("aria-label", t("Reason"));
    reason.dataset.testid = "challenge-reason";
    for (const [key, label] of REASONS) {
      const o = el("option", label);
      o.value = key;
      reason.append(o);
    }
    const decline = el("button", t("Decline"), "btn small");
    decline.type = "button";
    decline.dataset.testid = "challenge-decline";
    decline.addEventListener("click", async () => {
      try {
        await post(`/api/challenges/${encodeURIComponent(c.id)}/decline`, { reason: reason.value });
        shown = shown.filter((x) => x.id !== c.id);
        render();
      } catch (err) {
        said.textContent = err.message;
      }
    });
    const row = el("div", undefined, "notice-buttons");
    row.append(accept, decline, reason);
    card.append(row, said);
    box.append(card);
  }
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  let ws;
  try {
    ws = new WebSocket(`${proto}://${location.host}/api/me/ws`);
  } catch {
    setTimeout(connect, backoff);
    return;
  }
  ws.addEventListener("open", () => ws.send(JSON.stringify({ type: "auth", session: true })));
  ws.addEventListener("message", (e) => {
    let msg = null;
    try {
      msg = JSON.parse(e.data);
    } catch {
      return;
    }
    if (msg.type === "notices") {
      backoff = 1000;
      shown = msg.in || [];
      arenas = Array.isArray(msg.arenas) ? msg.arenas : [];
      render();
      document.dispatchEvent(new CustomEvent("ginrummy:notices", { detail: msg }));
    }
  });
  ws.addEventListener("close", (e) => {
    if (e.code === 4401 || e.code === 4403) return; // logged out: no notices
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 30000);
  });
}

/** Start the notices for a signed-in account (once per page; nothing for a guest). */
export function startNotices(acct) {
  if (started || !acct) return;
  started = true;
  account = acct;
  connect();
  setInterval(render, 5000); // expired challenges leave on their own
}

// Pages without online.js (the table) start the notices themselves.
if (!document.querySelector('script[src$="/online.js"]')) {
  // a guest has no notices: asked of GET /api/session, which answers a guest with 200
  signedIn().then((acct) => { if (acct) startNotices(acct); }).catch(() => {});
}
