// Online play (docs/web-api.md, "Accounts" and "Online play"): the account in the top bar
// on every page that loads this, and the pages of accounts, "Play someone", the
// leaderboard, a player's profile, the live list and the spectator's view.

import { api, ApiError, loadSeats, rememberSeat, signedIn } from "./api.js";
import { cardShort } from "./cards.js";
import { challengePage } from "./challenge.js";
import { startWatchChat } from "./chat.js";
import { decimal, withNodes } from "./dom.js";
import { profileActions } from "./friends.js";
import { lang, number, t, tn } from "./i18n.js";
import { shownName, startNotices } from "./notices.js";
import { privacySettings } from "./privacy.js";

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
  if (!res.ok) throw new ApiError(res.status, (data && data.error) || t("Refused ({status}).", { status: String(res.status) }));
  return data;
}

let account = null;

async function topBar() {
  const bar = $("account-bar");
  if (!bar) return;
  account = await me();
  bar.textContent = "";
  if (account) {
    const who = link(`/player/${encodeURIComponent(account.username)}`,
      `${account.username} · ${account.rating} ± ${account.deviation}`, "account-name");
    if (account.bot) who.prepend(botMark("account-bot-mark"), " "); // a BOT sees itself marked
    bar.append(who);
    if (account.moderator) { // the moderators' page (docs/fair-play.md), last of the pages
      const mod = link("/mod", t("Moderators"), "mod-link");
      mod.className = "btn ghost small";
      if (page === "mod") mod.setAttribute("aria-current", "page");
      const pages = $("pages-menu");
      const lang = pages && pages.querySelector(".pages-menu-lang");
      if (lang) lang.before(mod);
      else bar.append(mod);
    }
    const out = el("button", t("Log out"), "btn ghost small");
    out.type = "button";
    out.dataset.testid = "logout-top";
    out.addEventListener("click", async () => {
      await change("/api/session", { method: "DELETE", csrf: account.csrf }).catch(() => null);
      location.reload();
    });
    bar.append(out);
  } else {
    const a = link("/account", t("Log in"), "login-link");
    a.className = "btn ghost small";
    const b = link("/account#signup", t("Sign up"), "signup-link");
    b.className = "btn ghost small";
    bar.append(a, b);
  }
}

/** The mark of a BOT account (a program plays it), wherever its name is shown. */
function botMark(testid = "bot-mark") {
  const mark = el("span", "BOT", "bot-mark");
  mark.dataset.testid = testid;
  mark.title = t("A BOT account: a program plays it");
  return mark;
}

// ------------------------------------------------------------------ account page

/**
 * The form logs in or signs up: at /account#signup (the bar's Sign up) Sign up is its
 * primary button and what Enter does, and the password is a new one; at /account, Log in.
 * Both buttons submit the form, each for itself.
 */
function formMode() {
  const up = location.hash === "#signup";
  const [first, second] = up ? [$("signup"), $("login")] : [$("login"), $("signup")];
  first.className = "btn primary";
  second.className = "btn";
  first.parentElement.insertBefore(first, second); // the first submit button takes Enter
  $("account-form-title").textContent = up ? t("Sign up") : t("Log in");
  $("account-switch").replaceChildren(...withNodes(up ? t("Have an account? {link}") : t("New here? {link}"),
    { link: link(up ? "#login" : "#signup", up ? t("Log in") : t("Sign up"), "account-switch-link") }));
  $("password").autocomplete = up ? "new-password" : "current-password";
}

async function accountPage() {
  const show = () => {
    $("account-in").hidden = !account;
    $("account-out").hidden = !!account;
    if (account) {
      const who = $("account-who");
      const name = account.bot ? el("span") : account.username;
      if (account.bot) name.append(botMark("account-bot-mark"), " ", account.username);
      who.replaceChildren(...withNodes(t("Logged in as {name}: rating {rating} ± {deviation}."),
        { name, rating: account.rating, deviation: account.deviation }));
    }
  };
  show();
  formMode();
  window.addEventListener("hashchange", formMode);
  const creds = () => ({ username: $("username").value.trim(), password: $("password").value });
  $("account-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const up = e.submitter ? e.submitter.id === "signup" : location.hash === "#signup";
    say("");
    if (up) {
      await signUp();
      return;
    }
    try {
      await api("/api/session", { method: "POST", body: creds() });
      location.href = "/";
    } catch (err) {
      say(err.message);
    }
  });
  const signUp = async () => {
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
  };
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
    privacySettings(account); // chat, privacy and blocks (privacy.js)
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
      say(t("Your password is changed: your other devices are logged out."), "info");
    } catch (err) {
      say(err.message);
    }
  });
  $("close-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!confirm(t("Close the account {name} for good?", { name: account.username }))) return;
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
    for (const tok of data.tokens) {
      const li = el("li");
      const used = tok.last_used ? t("last used {date}", { date: new Date(tok.last_used * 1000).toLocaleString(lang) })
        : t("never used");
      li.append(`${tok.name} (${used}) `);
      const revoke = el("button", t("Revoke"), "btn ghost small");
      revoke.type = "button";
      revoke.dataset.testid = "token-revoke";
      revoke.addEventListener("click", async () => {
        if (!confirm(t("Revoke the token \"{name}\"? A program using it stops at once.", { name: tok.name }))) return;
        try {
          await change(`/api/tokens/${encodeURIComponent(tok.id)}`, { method: "DELETE", csrf: account.csrf });
          $("token-new").hidden = true;
          await show();
          say(t("The token \"{name}\" is revoked: it no longer works.", { name: tok.name }), "info");
        } catch (err) {
          say(err.message);
        }
      });
      li.append(revoke);
      list.append(li);
    }
  };
  $("token-copy").addEventListener("click", async () => {
    const b = $("token-copy");
    try {
      await navigator.clipboard.writeText($("token-value").textContent);
      b.textContent = t("Copied");
    } catch { // no clipboard here: the token is selected, for the keyboard's copy
      getSelection().selectAllChildren($("token-value"));
      b.textContent = t("Selected: copy it");
    }
  });
  $("token-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = $("token-name").value.trim();
    try {
      const made = await change("/api/tokens", { body: name ? { name } : {}, csrf: account.csrf });
      $("token-value").textContent = made.token;
      $("token-copy").textContent = t("Copy");
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
const LEVEL_NAMES = { easy: t("Easy"), medium: t("Medium"), hard: t("Hard") };

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
      $("seek-time").textContent = t("{seconds} s", { seconds: number(Math.round((Date.now() - started) / 1000)) });
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
    if (await withdraw()) say(t("Cancelled."), "info");
  });
}

// ------------------------------------------------------------------ ratings

const COMPUTERS = {
  easy: t("Easy computer"), medium: t("Medium computer"), hard: t("Hard computer"), expert: t("Expert computer"),
};

function table(head, rows) {
  const box = el("table", undefined, "score-sheet");
  const thead = el("thead");
  const tr = el("tr");
  for (const h of head) {
    const th = el("th", typeof h === "string" ? h : undefined);
    if (typeof h !== "string") th.append(h); // (a heading only a screen reader reads)
    tr.append(th);
  }
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
  box.append(thead, body);
  return box;
}

function botTable(bots) {
  return table([t("Computer"), t("Rating")],
    Object.entries(bots).map(([k, v]) => [COMPUTERS[k] || t("{level} computer", { level: k }), v]));
}

async function leaderboardPage() {
  const data = await api("/api/leaderboard");
  const board = $("board");
  board.textContent = "";
  if (!data.players.length) {
    board.append(el("p", t("Nobody has a settled rating yet: play rated matches to be listed."), "empty"));
  } else {
    board.append(table(["#", t("Player"), t("Rating"), t("Matches")], data.players.map((p) => [
      number(p.rank), link(`/player/${encodeURIComponent(p.username)}`, shownName(p.username, p.bot)),
      `${p.rating} ± ${p.deviation}`, number(p.matches)])));
  }
  $("bots").append(botTable(data.bots));
}

// ------------------------------------------------------------------ the bots' ladder

/** The programs playing on the site (BOT accounts), best first, with their rated records;
 *  the computer's levels beside them as the yardstick. */
async function botsPage() {
  const data = await api("/api/leaderboard/bots");
  const board = $("bot-ladder");
  board.textContent = "";
  if (!data.bots.length) {
    board.append(el("p", t("No program has played a rated match here yet: connect yours with ginrummy connect."), "empty"));
  } else {
    board.append(table(["#", t("Bot"), t("Rating"), t("Matches"), t("Won"), t("Tied"), t("Lost"), t("Last played")],
      data.bots.map((b) => [
        number(b.rank), link(`/player/${encodeURIComponent(b.username)}`, shownName(b.username, true)),
        // TRANSLATORS: a provisional rating, as lichess writes it: "1500?"
        b.provisional ? t("{rating}?", { rating: b.rating }) : `${b.rating} ± ${b.deviation}`,
        number(b.matches), number(b.wins), number(b.ties), number(b.losses),
        b.last ? new Date(b.last * 1000).toLocaleDateString(lang) : "–"])));
  }
  $("levels").append(botTable(data.levels));
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
  svg.setAttribute("aria-label", t("Rating after each rated match, with its deviation band"));
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
    transform: `rotate(-90 14 ${(m.top + h - m.bottom) / 2})` }, t("Rating")));
  const xAxis = node("g", { "data-testid": "graph-x-axis", "font-size": 12, fill: ink });
  xAxis.append(node("line", { x1: m.left, y1: h - m.bottom, x2: w - m.right, y2: h - m.bottom, stroke: ink }));
  for (const i of ticks(0, n, Math.min(n, 8)).filter((v) => Number.isInteger(v))) {
    xAxis.append(node("line", { x1: x(i), y1: h - m.bottom, x2: x(i), y2: h - m.bottom + 4, stroke: ink }),
      node("text", { x: x(i), y: h - m.bottom + 17, "text-anchor": "middle", "data-testid": "graph-x-tick" }, number(i)));
  }
  xAxis.append(node("text", { x: (m.left + w - m.right) / 2, y: h - 6, "text-anchor": "middle" },
    t("Rated matches played")));
  const up = pts.map((p, i) => `${x(i)},${y(p.rating + p.deviation)}`);
  const down = pts.map((p, i) => `${x(i)},${y(p.rating - p.deviation)}`).reverse();
  const band = node("path", { d: `M${up.join("L")}L${down.join("L")}Z`, fill: "rgba(255,255,255,0.12)" });
  const line = node("polyline", { points: pts.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "),
    fill: "none", stroke: "#f5c542", "stroke-width": 3 });
  const dots = pts.map((p, i) => node("circle", { cx: x(i), cy: y(p.rating), r: 3.5, fill: "#f5c542" },
    undefined));
  dots.forEach((d, i) => d.append(node("title", {}, i === 0 ? t("Start: 1500 ± 350")
    : t("After match {match}: {rating} ± {deviation}",
      { match: number(i), rating: Math.round(pts[i].rating), deviation: Math.round(pts[i].deviation) }))));
  svg.append(yAxis, xAxis, band, line, ...dots);
  return svg;
}

/** A recent match's result (or status, while it is played) and note, in words. */
const RESULTS = {
  win: t("win"), loss: t("loss"), tie: t("tie"), aborted: t("aborted"),
  playing: t("playing"), waiting: t("waiting"), finished: t("finished"),
};
const NOTES = { "not rated: repeated pairing": t("not rated: repeated pairing") };

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
  if (p.bot) $("player-name").prepend(botMark());
  const mine = account && account.username.toLowerCase() === p.username.toLowerCase();
  if (account && !mine) {
    const c = link(`/challenge?to=${encodeURIComponent(p.username)}`, t("Challenge"), "challenge-player");
    c.className = "btn primary small";
    $("player-actions").append(c);
  }
  profileActions(p, account, $("player-actions")); // presence, Follow, Block (friends.js)
  const hard = p.bots && p.bots.hard;
  const r = { rating: Math.round(p.rating), deviation: Math.round(p.deviation), hard };
  const rating = p.settled
    ? (hard ? t("{rating} ± {deviation}; the Hard computer plays at about {hard}.", r) : t("{rating} ± {deviation}.", r))
    : hard ? t("{rating} ± {deviation} (provisional); the Hard computer plays at about {hard}.", r)
      : t("{rating} ± {deviation} (provisional).", r);
  $("player-rating").textContent = rating + " " + tn("{rated} rated of {n} match.", "{rated} rated of {n} matches.",
    p.matches, { rated: number(p.rated_matches) });
  $("player-graph").append(graph(p.history));
  $("player-record").append(p.record.length
    ? table([t("Opponent"), t("Won"), t("Tied"), t("Lost")], p.record.map((x) => [
      link(`/player/${encodeURIComponent(x.opponent)}`, shownName(x.opponent, x.bot)), number(x.wins),
      number(x.ties), number(x.losses)]))
    : el("p", t("No rated matches yet."), "empty"));
  $("player-recent").append(p.recent.length
    ? table([t("Opponent"), t("Result"), t("Score"), el("span", t("Links"), "visually-hidden")], p.recent.map((m) => {
      const links = el("span");
      if (m.status === "finished") {
        // the review opens for the account that played it (its session is its seat) and,
        // for a public match, for anyone; the replay is the page, not the JSON
        const id = encodeURIComponent(m.id);
        links.append(link(`/review/${id}`, t("Review"), "profile-review"), " · ",
          link(`/replay/${id}`, t("Replay"), "profile-replay"));
      } else if (mine) {
        // your own match: play your seat from this browser too (the session is the seat)
        links.append(link(`/play/${encodeURIComponent(m.id)}`, t("Continue"), "continue-match"));
      } else {
        links.append(link(m.watch, t("Watch")));
      }
      // told from this profile's side: its own score first; an aborted match is "aborted"
      const word = m.result || m.status;
      const note = m.note ? NOTES[m.note] || m.note : "";
      return [shownName(m.opponent, m.opponent_bot), (RESULTS[word] || word) +
        (m.rated ? " " + t("(rated)") : "") + (note ? ` (${note})` : ""), m.scores.map(number).join("–"), links];
    }))
    : el("p", t("No matches yet."), "empty"));
}

// ------------------------------------------------------------------ watching

async function livePage() {
  const list = $("live");
  const refresh = async () => {
    const data = await api("/api/live").catch(() => ({ matches: [] }));
    list.textContent = "";
    if (!data.matches.length) list.append(el("li", t("No public match is being played now."), "empty"));
    for (const m of data.matches) {
      const li = el("li");
      const who = (i) => shownName(m.players[i], m.bots && m.bots[i]);
      const p = { first: who(0), second: who(1), score: m.scores.map(number).join("–") };
      li.append(link(m.url, m.rated ? t("{first} v {second}: {score} (rated)", p) : t("{first} v {second}: {score}", p),
        "live-match"));
      list.append(li);
    }
  };
  await refresh();
  setInterval(refresh, 5000);
}

/** How a watched match ended, in a sentence (the record's `end`, STATE's `ended_by`). */
function watchEnding(s) {
  if (s.end === "aborted") return t("The match was aborted: no result.");
  const won = s.winner === null ? null : s.players[s.winner];
  const by = s.ended_by === null || s.ended_by === undefined ? "" : s.players[s.ended_by];
  if (s.end === "resigned") return t("{name} resigned: {winner} won the match.", { name: by, winner: won });
  if (s.end === "timeout") {
    return t("{name} ran out of time three turns in a row: {winner} won the match.", { name: by, winner: won });
  }
  return won === null ? t("The match is over: a tie.") : t("The match is over: {winner} won.", { winner: won });
}

/** Seconds as m:ss (s.s under ten). */
function clockText(secs) {
  const s = Math.max(0, secs);
  if (s < 10) return decimal(s, 1);
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
      el("span", t("bank {time}", { time: clockText(bank) }), "clock-bank"));
    if (c.timeouts[seat]) item.append(el("span", t("out of time {count}/3", { count: number(c.timeouts[seat]) }), "clock-timeouts"));
    return item;
  }));
}

/** How a hand ended, in a word (a hand's `result`). */
// TRANSLATORS: how a hand ended, after "Hand over:" (a dead hand: nobody scores)
const HAND_RESULTS = { gin: t("gin"), knock: t("knock"), undercut: t("undercut"), dead: t("dead") };

async function watchPage() {
  const id = decodeURIComponent(location.pathname.split("/").pop() || "");
  let last = null;
  setInterval(() => { if (last) watchClocks(last); }, 250);
  const show = (raw) => {
    // BOT accounts are marked wherever their names appear
    const s = { ...raw, players: raw.players.map((n, i) => shownName(n, raw.bots && raw.bots[i])) };
    last = s;
    watchClocks(s);
    $("watch-title").textContent = t("{first} v {second}", { first: s.players[0], second: s.players[1] });
    $("watch-score").textContent = t("Scores {score} (to {target}); hand {hand}", {
      score: `${number(s.scores[0])}–${number(s.scores[1])}`, target: number(s.options.target),
      hand: number(s.hand_index + 1),
    });
    // who is to play now, as the clocks show it (the cards are shown a few moves behind)
    const name = s.to_play === null ? null : s.players[s.to_play];
    let status;
    if (name !== null && s.behind) {
      status = tn("{name} to play (the cards are shown {n} move behind)",
        "{name} to play (the cards are shown {n} moves behind)", s.behind, { name });
    } else if (name !== null) status = t("{name} to play", { name });
    else if (s.behind) {
      status = " " + tn("(the cards are shown {n} move behind)", "(the cards are shown {n} moves behind)", s.behind);
    } else status = "";
    $("watch-status").textContent = s.status === "finished" ? watchEnding(s) : status;
    $("watch-pile").textContent = cards(s.discards);
    $("watch-stock").textContent = tn("{n} card in the stock.", "{n} cards in the stock.", s.stock_count);
    const ho = $("watch-hand-over");
    ho.textContent = "";
    if (s.hand_over) {
      const r = s.hand_over.result;
      const result = HAND_RESULTS[r.result] || r.result;
      ho.append(el("p", r.scorer !== null && r.scorer !== undefined
        ? t("Hand over: {result}, {name} scores {points}.", { result, name: s.players[r.scorer], points: number(r.points) })
        : t("Hand over: {result}.", { result })));
      if (s.hand_over.hands) {
        s.hand_over.hands.forEach((h, i) => ho.append(el("p", `${s.players[i]}: ${cards(h)}`)));
      }
    }
    if (s.status === "finished") {
      const l = $("watch-links");
      l.hidden = false;
      l.textContent = "";
      l.append(link(s.review, t("Review"), "watch-review"), " · ",
        link(`/replay/${encodeURIComponent(s.id)}`, t("Replay"), "watch-replay"), " · ",
        link(s.record, t("Record")));
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
  startWatchChat(id, $("watch-chat")); // the spectators' chat (chat.js)
  await poll();
}

const PAGES = {
  account: accountPage, quick: quickPage, leaderboard: leaderboardPage, bots: botsPage,
  player: playerPage, live: livePage, watch: watchPage,
  challenge: () => challengePage(account, say),
};

(async () => {
  // the account form's mode before anything is fetched: at /account#signup a quick Enter
  // signs up even while the bar still asks the server who is signed in
  if (page === "account") formMode();
  await topBar();
  startNotices(account);
  const run = PAGES[page];
  if (run) await run();
})();
