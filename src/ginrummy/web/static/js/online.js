// Online play (docs/web-api.md, "Accounts" and "Online play"): the account in the top bar
// on every page that loads this, and the pages of accounts, "Play someone", the
// leaderboard, a player's profile, the live list and the spectator's view.

import { api, ApiError, loadSeats, rememberSeat, signedIn } from "./api.js";
import { cardShort } from "./cards.js";
import { challengePage } from "./challenge.js";
import { shownName, startNotices } from "./notices.js";

/** Cards as the table writes them: 7♦ 10♣. */
const cards = (codes) => codes.map(cardShort).join(" ");

const $ = (id) => document.getElementById(id);
const page = document.body.dataset.page || "";

function el(tag, text, cls) {
  const n = document.createElement(tag);
  if (text !== undefined) n.textContent = text;
  if (cls) n.className = cls;
  return n;
}

/** "1 match", "3 matches". */
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

function link(href, text, testid) {
  const a = el("a", text);
  a.href = href;
  if (testid) a.dataset.testid = testid;
  return a;
}

function say(text, kind = "error") {
  const m = $("message");
  if (!m) return;
  m.textContent = text;
  m.className = `message ${text ? kind : ""}`;
}

/** The logged-in account (with its CSRF token), or null for a guest: GET /api/session
    (no 401 in a guest's console). */
export const me = signedIn;

/** A change made with the session cookie: it carries the session's CSRF token. */
export async function change(path, { method = "POST", body = undefined, csrf } = {}) {
  const headers = { Accept: "application/json", "X-CSRF-Token": csrf || "" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method, headers, cache: "no-store",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, (data && data.error) || `Refused (${res.status}).`);
  return data;
}

let account = null;

async function topBar() {
  const bar = $("account-bar");
  if (!bar) return;
  account = await me();
  bar.textContent = "";
  if (account) {
    bar.append(link(`/player/${encodeURIComponent(account.username)}`,
      `${account.username} · ${account.rating} ± ${account.deviation}`, "account-name"));
    const out = el("button", "Log out", "btn ghost small");
    out.type = "button";
    out.dataset.testid = "logout-top";
    out.addEventListener("click", async () => {
      await change("/api/session", { method: "DELETE", csrf: account.csrf }).catch(() => null);
      location.reload();
    });
    bar.append(out);
  } else {
    const a = link("/account", "Log in", "login-link");
    a.className = "btn ghost small";
    const b = link("/account#signup", "Sign up", "signup-link");
    b.className = "btn ghost small";
    bar.append(a, b);
  }
  // a menu that scrolls sideways (a phone) shows the link to this page, scrolled no
  // further than that takes: Log in and Sign up, first in it, stay in sight where they can
  const here = document.querySelector('.topbar [aria-current="page"]');
  const nav = here && here.parentElement;
  if (nav && nav.scrollWidth > nav.clientWidth) {
    const right = here.offsetLeft - nav.offsetLeft + here.offsetWidth;
    nav.scrollLeft = right > nav.clientWidth ? right + 16 - nav.clientWidth : 0;
  }
}

// ------------------------------------------------------------------ account page

async function accountPage() {
  const show = () => {
    $("account-in").hidden = !account;
    $("account-out").hidden = !!account;
    if (account) {
      $("account-who").textContent =
        `Logged in as ${account.username}: rating ${account.rating} ± ${account.deviation}.`;
    }
  };
  show();
  const creds = () => ({ username: $("username").value.trim(), password: $("password").value });
  $("account-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await api("/api/session", { method: "POST", body: creds() });
      location.href = "/";
    } catch (err) {
      say(err.message);
    }
  });
  $("signup").addEventListener("click", async () => {
    try {
      const body = $("bot-account").checked ? { ...creds(), bot: true } : creds();
      const made = await api("/api/accounts", { method: "POST", body });
      if ($("claim").checked) {
        const tokens = loadSeats().map((s) => s.token).slice(0, 200);
        if (tokens.length) {
          await change("/api/me/matches", { body: { tokens }, csrf: made.csrf });
        }
      }
      location.href = "/";
    } catch (err) {
      say(err.message);
    }
  });
  const logout = async (all) => {
    try {
      await change(`/api/session${all ? "?all=1" : ""}`, { method: "DELETE", csrf: account.csrf });
      location.href = "/";
    } catch (err) {
      say(err.message);
    }
  };
  if (account) {
    await tokens();
    settings();
  }
  $("logout").addEventListener("click", () => logout(false));
  $("logout-all").addEventListener("click", () => logout(true));
}

/** The account's own settings: a new password (asked with the current one; other devices
 *  log in again) and closing the account (asked with the password, and confirmed). */
function settings() {
  $("password-user").value = account.username; // for password managers
  $("password-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const r = await change("/api/me/password", {
        body: { password: $("current-password").value, new_password: $("new-password").value },
        csrf: account.csrf,
      });
      account = r;
      $("current-password").value = $("new-password").value = "";
      say("Your password is changed: your other devices are logged out.", "info");
    } catch (err) {
      say(err.message);
    }
  });
  $("close-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!confirm(`Close the account ${account.username} for good?`)) return;
    try {
      await change("/api/me/close", { body: { password: $("close-password").value }, csrf: account.csrf });
      location.href = "/";
    } catch (err) {
      say(err.message);
    }
  });
}

/** The account's API tokens: listed, made (shown once), revoked. */
async function tokens() {
  const list = $("token-list");
  const show = async () => {
    const data = await api("/api/tokens").catch(() => ({ tokens: [] }));
    list.textContent = "";
    for (const t of data.tokens) {
      const li = el("li");
      const used = t.last_used ? `last used ${new Date(t.last_used * 1000).toLocaleString()}` : "never used";
      li.append(`${t.name} (${used}) `);
      const revoke = el("button", "Revoke", "btn ghost small");
      revoke.type = "button";
      revoke.dataset.testid = "token-revoke";
      revoke.addEventListener("click", async () => {
        try {
          await change(`/api/tokens/${encodeURIComponent(t.id)}`, { method: "DELETE", csrf: account.csrf });
          $("token-new").hidden = true;
          await show();
        } catch (err) {
          say(err.message);
        }
      });
      li.append(revoke);
      list.append(li);
    }
  };
  $("token-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = $("token-name").value.trim();
    try {
      const made = await change("/api/tokens", { body: name ? { name } : {}, csrf: account.csrf });
      $("token-value").textContent = made.token;
      $("token-new").hidden = false;
      $("token-name").value = "";
      await show();
    } catch (err) {
      say(err.message);
    }
  });
  await show();
}

// ------------------------------------------------------------------ play someone

const COMPUTER_AFTER_MS = 5000; // "or play the computer now" after this long unpaired
const LEVEL_NAMES = { easy: "Easy", medium: "Medium", hard: "Hard" };

/** The computer's levels as buttons, the one nearest the player's rating first; each
 *  withdraws the seek and challenges that level (it accepts at once). */
async function offerComputer(body, withdraw) {
  const box = $("seek-levels");
  if (box.childElementCount) return;
  const bots = (await api("/api/leaderboard").catch(() => ({ bots: {} }))).bots || {};
  const mine = account ? account.rating : 1500;
  const levels = Object.entries(bots).sort((a, b) => Math.abs(a[1] - mine) - Math.abs(b[1] - mine));
  levels.forEach(([level, rating], i) => {
    const b = el("button", `${LEVEL_NAMES[level] || level} · ${rating}`, `btn small${i ? "" : " primary"}`);
    b.type = "button";
    b.dataset.testid = `computer-${level}`;
    b.addEventListener("click", async () => {
      if (!(await withdraw())) return;
      const { bots, ...terms } = body; // (a seek's option, not a challenge's)
      const challenge = { ...terms, to: level, rated: Boolean(account && body.rated) };
      try {
        const r = account
          ? await change("/api/challenges", { body: challenge, csrf: account.csrf })
          : await api("/api/challenges", { method: "POST", body: challenge });
        rememberSeat({ id: r.match.id, token: r.match.token, seat: r.match.seat });
        location.href = r.match.url;
      } catch (err) {
        say(err.message);
      }
    });
    box.append(b);
  });
  $("seek-computer").hidden = false;
}

async function quickPage() {
  let seek = null;
  let started = 0;
  let timer = null;
  let asked = null; // the seek's terms, for "or play the computer now"
  const waiting = (on) => {
    $("seek-form").hidden = on;
    $("seek-waiting").hidden = !on;
  };
  const go = (m) => {
    rememberSeat({ id: m.id, token: m.token, seat: m.seat });
    location.href = m.url;
  };
  const poll = async () => {
    if (!seek) return;
    try {
      const r = await api(`/api/seeks/${encodeURIComponent(seek)}`);
      if (r.match) {
        seek = null;
        go(r.match);
        return;
      }
      $("seek-time").textContent = `${Math.round((Date.now() - started) / 1000)} s`;
      if (Date.now() - started >= COMPUTER_AFTER_MS) offerComputer(asked, withdraw);
    } catch (err) {
      seek = null;
      waiting(false);
      say(err.message);
      return;
    }
    timer = setTimeout(poll, 1000);
  };
  let sending = false;
  // a guest plays under the name it gives (kept with the lobby's), else "Guest 4821"; an
  // account under its username
  $("seek-name-row").hidden = Boolean(account);
  $("seek-name").value = localStorage.getItem("ginrummy.name") || "";
  $("seek-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (sending || seek) return; // a double click sends one seek (the server also answers
    sending = true; //               a browser's second identical seek with its first)
    $("seek-button").disabled = true;
    say("");
    const body = {
      target: Number(document.querySelector("input[name=target]:checked").value),
      gin_only: $("gin-only").checked,
      oklahoma: $("oklahoma").checked,
      rated: $("rated").checked,
    };
    if ($("bots-ok").checked) body.bots = true; // a quick match never gives a BOT unasked
    const name = $("seek-name").value.trim();
    if (!account && name) {
      body.name = name;
      localStorage.setItem("ginrummy.name", name);
    }
    const [move, bank] = $("seek-clock").value.split("+").map(Number);
    body.clock = { move, bank };
    asked = { ...body };
    try {
      const r = account
        ? await change("/api/seeks", { body, csrf: account.csrf })
        : await api("/api/seeks", { method: "POST", body });
      if (r.match) {
        go(r.match);
        return;
      }
      seek = r.seek;
      started = Date.now();
      waiting(true);
      timer = setTimeout(poll, 1000);
    } catch (err) {
      say(err.message); // e.g. the wait after aborting or leaving rated matches, in minutes
    } finally {
      sending = false;
      $("seek-button").disabled = false;
    }
  });
  /** Withdraw the waiting seek (true when it was withdrawn, or there was none). */
  const withdraw = async () => {
    clearTimeout(timer);
    const id = seek;
    seek = null;
    waiting(false);
    $("seek-computer").hidden = true;
    $("seek-levels").textContent = "";
    if (!id) return true;
    try {
      await api(`/api/seeks/${encodeURIComponent(id)}`, { method: "DELETE" });
      return true;
    } catch (err) {
      if (err.status === 409) { // paired meanwhile: play that match
        const r = await api(`/api/seeks/${encodeURIComponent(id)}`).catch(() => null);
        if (r && r.match) go(r.match);
      } else {
        say(err.message);
      }
      return false;
    }
  };
  $("seek-cancel").addEventListener("click", async () => {
    if (await withdraw()) say("Cancelled.", "info");
  });
}

// ------------------------------------------------------------------ ratings

const BOT_NAMES = { easy: "Easy", medium: "Medium", hard: "Hard", expert: "Expert" };

function table(head, rows) {
  const t = el("table", undefined, "score-sheet");
  const thead = el("thead");
  const tr = el("tr");
  for (const h of head) tr.append(el("th", h));
  thead.append(tr);
  const body = el("tbody");
  for (const r of rows) {
    const row = el("tr");
    for (const c of r) {
      const td = el("td");
      if (c instanceof Node) td.append(c);
      else td.textContent = String(c);
      row.append(td);
    }
    body.append(row);
  }
  t.append(thead, body);
  return t;
}

function botTable(bots) {
  return table(["Computer", "Rating"],
    Object.entries(bots).map(([k, v]) => [`${BOT_NAMES[k] || k} computer`, v]));
}

async function leaderboardPage() {
  const data = await api("/api/leaderboard");
  const board = $("board");
  board.textContent = "";
  if (!data.players.length) {
    board.append(el("p", "Nobody has a settled rating yet: play rated matches to be listed.", "empty"));
  } else {
    board.append(table(["#", "Player", "Rating", "Matches"], data.players.map((p) => [
      p.rank, link(`/player/${encodeURIComponent(p.username)}`, shownName(p.username, p.bot)),
      `${p.rating} ± ${p.deviation}`, p.matches])));
  }
  $("bots").append(botTable(data.bots));
}

/** Round ticks covering lo..hi: about `count` of them, on 1, 2 or 5 times a power of ten. */
function ticks(lo, hi, count) {
  const raw = Math.max(1, (hi - lo) / Math.max(1, count));
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((v) => v >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(v);
  return out;
}

/**
 * The rating history as an inline SVG chart: the rating after each rated match (a line)
 * with its deviation band, on axes: the rating up the left, the rated matches along the
 * bottom (0: the start, 1500 ± 350), each with its ticks and its name.
 */
function graph(history) {
  const NS = "http://www.w3.org/2000/svg";
  const w = 600;
  const h = 240;
  const m = { left: 56, right: 14, top: 12, bottom: 44 };
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Rating after each rated match, with its deviation band");
  svg.style.width = "100%";
  svg.style.maxWidth = `${w}px`;
  const node = (tag, attrs, text) => {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    if (text !== undefined) n.textContent = text;
    return n;
  };
  const pts = [{ rating: 1500, deviation: 350 }, ...history];
  const lo = Math.min(...pts.map((p) => p.rating - p.deviation));
  const hi = Math.max(...pts.map((p) => p.rating + p.deviation));
  const n = pts.length - 1; // rated matches
  const x = (i) => m.left + (i * (w - m.left - m.right)) / Math.max(1, n);
  const y = (r) => h - m.bottom - ((r - lo) * (h - m.top - m.bottom)) / Math.max(1, hi - lo);
  const ink = "rgba(255,255,255,0.75)";
  const yAxis = node("g", { "data-testid": "graph-y-axis", "font-size": 12, fill: ink });
  yAxis.append(node("line", { x1: m.left, y1: m.top, x2: m.left, y2: h - m.bottom, stroke: ink }));
  for (const v of ticks(lo, hi, 5)) {
    yAxis.append(node("line", { x1: m.left - 4, y1: y(v), x2: w - m.right, y2: y(v), stroke: "rgba(255,255,255,0.12)" }),
      node("text", { x: m.left - 7, y: y(v) + 4, "text-anchor": "end", "data-testid": "graph-y-tick" }, String(v)));
  }
  yAxis.append(node("text", { x: 14, y: (m.top + h - m.bottom) / 2, "text-anchor": "middle",
    transform: `rotate(-90 14 ${(m.top + h - m.bottom) / 2})` }, "Rating"));
  const xAxis = node("g", { "data-testid": "graph-x-axis", "font-size": 12, fill: ink });
  xAxis.append(node("line", { x1: m.left, y1: h - m.bottom, x2: w - m.right, y2: h - m.bottom, stroke: ink }));
  for (const i of ticks(0, n, Math.min(n, 8)).filter((v) => Number.isInteger(v))) {
    xAxis.append(node("line", { x1: x(i), y1: h - m.bottom, x2: x(i), y2: h - m.bottom + 4, stroke: ink }),
      node("text", { x: x(i), y: h - m.bottom + 17, "text-anchor": "middle", "data-testid": "graph-x-tick" }, String(i)));
  }
  xAxis.append(node("text", { x: (m.left + w - m.right) / 2, y: h - 6, "text-anchor": "middle" },
    "Rated matches played"));
  const up = pts.map((p, i) => `${x(i)},${y(p.rating + p.deviation)}`);
  const down = pts.map((p, i) => `${x(i)},${y(p.rating - p.deviation)}`).reverse();
  const band = node("path", { d: `M${up.join("L")}L${down.join("L")}Z`, fill: "rgba(255,255,255,0.12)" });
  const line = node("polyline", { points: pts.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "),
    fill: "none", stroke: "#f5c542", "stroke-width": 3 });
  const dots = pts.map((p, i) => node("circle", { cx: x(i), cy: y(p.rating), r: 3.5, fill: "#f5c542" },
    undefined));
  dots.forEach((d, i) => d.append(node("title", {}, i === 0 ? "Start: 1500 ± 350"
    : `After match ${i}: ${Math.round(pts[i].rating)} ± ${Math.round(pts[i].deviation)}`)));
  svg.append(yAxis, xAxis, band, line, ...dots);
  return svg;
}

async function playerPage() {
  const name = decodeURIComponent(location.pathname.split("/").pop() || "");
  let p;
  try {
    p = await api(`/api/players/${encodeURIComponent(name)}`);
  } catch (err) {
    say(err.message);
    return;
  }
  document.title = `${p.username} · Gin Rummy`;
  $("player-name").textContent = p.username;
  if (p.bot) {
    const mark = el("span", "BOT", "bot-mark");
    mark.dataset.testid = "bot-mark";
    mark.title = "A BOT account: a program plays it";
    $("player-name").prepend(mark);
  }
  const mine = account && account.username.toLowerCase() === p.username.toLowerCase();
  if (account && !mine) {
    const c = link(`/challenge?to=${encodeURIComponent(p.username)}`, "Challenge", "challenge-player");
    c.className = "btn primary small";
    $("player-actions").append(c);
  }
  const hard = p.bots && p.bots.hard;
  $("player-rating").textContent =
    `${Math.round(p.rating)} ± ${Math.round(p.deviation)}` +
    (p.settled ? "" : " (provisional)") +
    (hard ? `; the Hard computer plays at about ${hard}.` : ".") +
    ` ${p.rated_matches} rated of ${plural(p.matches, "match", "matches")}.`;
  $("player-graph").append(graph(p.history));
  $("player-record").append(p.record.length
    ? table(["Opponent", "Won", "Tied", "Lost"], p.record.map((r) => [
      link(`/player/${encodeURIComponent(r.opponent)}`, shownName(r.opponent, r.bot)), r.wins,
      r.ties, r.losses]))
    : el("p", "No rated matches yet.", "empty"));
  $("player-recent").append(p.recent.length
    ? table(["Opponent", "Result", "Score", ""], p.recent.map((m) => {
      const links = el("span");
      if (m.status === "finished") {
        // the review opens for the account that played it (its session is its seat) and,
        // for a public match, for anyone; the replay is the page, not the JSON
        const id = encodeURIComponent(m.id);
        links.append(link(`/review/${id}`, "Review", "profile-review"), " · ",
          link(`/replay/${id}`, "Replay", "profile-replay"));
      } else if (mine) {
        // your own match: play your seat from this browser too (the session is the seat)
        links.append(link(`/play/${encodeURIComponent(m.id)}`, "Continue", "continue-match"));
      } else {
        links.append(link(m.watch, "Watch"));
      }
      // told from this profile's side: its own score first; an aborted match is "aborted"
      return [shownName(m.opponent, m.opponent_bot), (m.result || m.status) +
        (m.rated ? " (rated)" : "") + (m.note ? ` (${m.note})` : ""), m.scores.join("–"), links];
    }))
    : el("p", "No matches yet.", "empty"));
}

// ------------------------------------------------------------------ watching

async function livePage() {
  const list = $("live");
  const refresh = async () => {
    const data = await api("/api/live").catch(() => ({ matches: [] }));
    list.textContent = "";
    if (!data.matches.length) list.append(el("li", "No public match is being played now.", "empty"));
    for (const m of data.matches) {
      const li = el("li");
      const who = (i) => shownName(m.players[i], m.bots && m.bots[i]);
      li.append(link(m.url, `${who(0)} v ${who(1)}: ${m.scores.join("–")}`
        + (m.rated ? " (rated)" : ""), "live-match"));
      list.append(li);
    }
  };
  await refresh();
  setInterval(refresh, 5000);
}

/** How a watched match ended, in a sentence (the record's `end`, STATE's `ended_by`). */
function watchEnding(s) {
  if (s.end === "aborted") return "The match was aborted: no result.";
  const won = s.winner === null ? null : s.players[s.winner];
  const by = s.ended_by === null || s.ended_by === undefined ? "" : s.players[s.ended_by];
  if (s.end === "resigned") return `${by} resigned: ${won} won the match.`;
  if (s.end === "timeout") return `${by} ran out of time three turns in a row: ${won} won the match.`;
  return won === null ? "The match is over: a tie." : `The match is over: ${won} won.`;
}

/** Seconds as m:ss (s.s under ten). */
function clockText(secs) {
  const s = Math.max(0, secs);
  if (s < 10) return s.toFixed(1);
  const whole = Math.ceil(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** Both players' clocks as the server last gave them, ticking here between polls. */
function watchClocks(s) {
  const box = $("watch-clocks");
  const c = s.clock;
  if (!c || s.status === "finished") {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const now = Date.now() / 1000;
  box.replaceChildren(...[0, 1].map((seat) => {
    const running = c.to_play === seat && c.deadline !== null;
    const left = running ? c.deadline - now : null;
    const bank = running ? Math.min(c.bank[seat], Math.max(0, left)) : c.bank[seat];
    const move = running ? Math.max(0, left - c.bank[seat]) : c.move;
    const item = el("div", undefined, `clock${running ? " running" : ""}`);
    item.dataset.testid = `watch-clock-${seat}`;
    item.append(el("span", s.players[seat], "clock-name"), el("span", clockText(move), "clock-move"),
      el("span", `bank ${clockText(bank)}`, "clock-bank"));
    if (c.timeouts[seat]) item.append(el("span", `out of time ${c.timeouts[seat]}/3`, "clock-timeouts"));
    return item;
  }));
}

async function watchPage() {
  const id = decodeURIComponent(location.pathname.split("/").pop() || "");
  let last = null;
  setInterval(() => { if (last) watchClocks(last); }, 250);
  const show = (raw) => {
    // BOT accounts are marked wherever their names appear
    const s = { ...raw, players: raw.players.map((n, i) => shownName(n, raw.bots && raw.bots[i])) };
    last = s;
    watchClocks(s);
    $("watch-title").textContent = `${s.players[0]} v ${s.players[1]}`;
    $("watch-score").textContent = `Scores ${s.scores[0]}–${s.scores[1]} (to ${s.options.target}); hand ${s.hand_index + 1}`;
    // who is to play now, as the clocks show it (the cards are shown a few moves behind)
    const who = s.to_play === null ? "" : `${s.players[s.to_play]} to play`;
    const behind = s.behind ? ` (the cards are shown ${plural(s.behind, "move", "moves")} behind)` : "";
    $("watch-status").textContent = s.status === "finished" ? watchEnding(s) : `${who}${behind}`;
    $("watch-pile").textContent = cards(s.discards);
    $("watch-stock").textContent = `${s.stock_count} cards in the stock.`;
    const ho = $("watch-hand-over");
    ho.textContent = "";
    if (s.hand_over) {
      const r = s.hand_over.result;
      ho.append(el("p", `Hand over: ${r.result}${r.scorer !== null && r.scorer !== undefined ? `, ${s.players[r.scorer]} scores ${r.points}` : ""}.`));
      if (s.hand_over.hands) {
        s.hand_over.hands.forEach((h, i) => ho.append(el("p", `${s.players[i]}: ${cards(h)}`)));
      }
    }
    if (s.status === "finished") {
      const l = $("watch-links");
      l.hidden = false;
      l.textContent = "";
      l.append(link(s.review, "Review", "watch-review"), " · ",
        link(`/replay/${encodeURIComponent(s.id)}`, "Replay", "watch-replay"), " · ",
        link(s.record, "Record"));
    }
  };
  const poll = async () => {
    try {
      const s = await api(`/api/matches/${encodeURIComponent(id)}/watch`);
      show(s);
      if (s.status !== "finished") setTimeout(poll, 1500);
    } catch (err) {
      say(err.message);
      setTimeout(poll, 5000);
    }
  };
  await poll();
}

const PAGES = {
  account: accountPage, quick: quickPage, leaderboard: leaderboardPage,
  player: playerPage, live: livePage, watch: watchPage,
  challenge: () => challengePage(account, say),
};

(async () => {
  await topBar();
  startNotices(account);
  const run = PAGES[page];
  if (run) await run();
})();
