// Arenas and the daily deal (docs/web-api.md, "Arena tournaments" and "The daily deal"):
// /tournaments lists arenas and makes one, /tournament/ID shows one with its live standings
// (read again every two seconds) and the player's current match, /daily shows the day's
// commitment, the play button and the leaderboard (and yesterday's deal, opened); the
// lobby lists the arenas being played. The top bar and notices come from online.js.

import { api, busy, rememberArena, rememberSeat, retryWait } from "./api.js";
import { durationWords, el, table, withNodes } from "./dom.js";
import { number, t, tn } from "./i18n.js";
import { change, me } from "./online.js";

const $ = (id) => document.getElementById(id);
const page = document.body.dataset.page || "";
const POLL_MS = 2000;
const HIDDEN_POLL_MS = 20000; // an arena's tab in the background

const link = (href, text, testid) => el("a", { href, text, "data-testid": testid });

function say(text, kind = "error") {
  const m = $("message");
  if (!m) return;
  m.textContent = text;
  m.className = `message ${text ? kind : ""}`;
}

/** A name as shown everywhere: BOT accounts marked. */
const named = (name, bot) => el("span", {}, bot ? el("span", { class: "bot-mark", text: "BOT" }) : null, name);

/** A change made with the session cookie (it carries the session's CSRF token). */
const post = (path, account, body = undefined) => change(path, { body, csrf: account && account.csrf });

/** Seconds as h:mm:ss or m:ss. */
function duration(secs) {
  const s = Math.max(0, Math.ceil(secs));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** How long an arena runs, in words: "30 minutes", "2 hours", "1 day". */
const minutesText = (min) => durationWords(min * 60);

function arenaLine(a) {
  const clock = a.clock
    ? t("{seconds} s + {minutes} min", { seconds: number(a.clock.move), minutes: number(Math.round(a.clock.bank / 60)) })
    : t("no clock");
  return [minutesText(a.minutes), t("to {target}", { target: number(a.target) }), clock,
    a.rated ? t("rated") : t("casual")].join(" · ");
}

function arenaState(a) {
  if (a.status === "created") return tn("waiting to start · {n} joined", "waiting to start · {n} joined", a.players);
  if (a.status === "finished") return a.winner ? t("finished · {name} won", { name: a.winner }) : t("finished");
  if (a.seconds_left > 0) {
    return tn("{time} left · {n} playing", "{time} left · {n} playing", a.players, { time: duration(a.seconds_left) });
  }
  return t("time is up: the last matches are being played");
}

// ------------------------------------------------------------------ the list

async function arenasPage(account) {
  $("arenas-view").hidden = false;
  if (!account) {
    $("arena-guest").hidden = false;
    $("arena-form").hidden = true;
  }
  const list = async () => {
    const data = await api("/api/tournaments");
    const box = $("arena-list");
    box.textContent = "";
    if (!data.tournaments.length) {
      box.append(el("p", { class: "empty", text: t("No arena right now: make one below.") }));
      return;
    }
    box.append(table([t("Arena"), "", "", t("By")], data.tournaments.map((a) => [
      link(a.url, a.name, "arena-link"), arenaLine(a), arenaState(a), a.creator || ""])));
  };
  await list().catch((err) => say(err.message));
  setInterval(() => list().catch(() => {}), 10000);
  $("arena-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    say("");
    const [move, bank] = $("arena-clock").value.split("+").map(Number);
    try {
      const r = await post("/api/tournaments", account, {
        name: $("arena-name").value.trim() || "Arena",
        minutes: Number($("arena-minutes").value),
        target: Number(document.querySelector("input[name=arena-target]:checked").value),
        clock: { move, bank },
        rated: $("arena-rated").checked,
      });
      location.href = r.url;
    } catch (err) {
      say(err.message);
    }
  });
}

// ------------------------------------------------------------------ one arena

function opponentOf(a, matchId, username) {
  const other = a.standings.find((x) => x.playing === matchId && x.username !== username);
  return other ? other.username : null;
}

function renderArena(a, account, fetchedAt) {
  $("arena-title").textContent = a.name;
  $("arena-detail").textContent = arenaLine(a) + " · " + t("made by {name}", { name: a.creator || "?" });
  const left = a.seconds_left === null ? null
    : a.seconds_left - (Date.now() - fetchedAt) / 1000;
  let status;
  if (a.status === "created") {
    status = tn("Not started yet: {n} joined. Its creator starts it.", "Not started yet: {n} joined. Its creator starts it.", a.players);
  } else if (a.status === "finished") status = t("The arena is over.");
  else if (left > 0) {
    status = tn("{time} left · {n} match in play", "{time} left · {n} matches in play", a.in_play, { time: duration(left) });
  } else {
    status = tn("Time is up: no new pairings; {n} match in play finish and count.",
      "Time is up: no new pairings; {n} matches in play finish and count.", a.in_play);
  }
  $("arena-status").textContent = status;
  const win = $("arena-winner");
  win.hidden = a.status !== "finished";
  win.textContent = a.winner ? t("🏆 {name} wins the arena.", { name: a.winner }) : t("Nobody scored.");

  const mine = a.me || null;
  const live = a.status !== "finished";
  $("arena-join").hidden = !live || (mine !== null && mine.joined && mine.active
    && mine.state !== "paused");
  $("arena-withdraw").hidden = !live || !mine || !mine.joined || !mine.active;
  $("arena-start").hidden = !mine || !mine.creator || a.status !== "created";
  const box = $("arena-match");
  box.textContent = "";
  box.hidden = !mine || !mine.joined;
  if (mine && mine.joined) {
    if (mine.match) {
      rememberArena(mine.match.id, `/tournament/${encodeURIComponent(a.id)}`); // (its end leads back)
      const name = opponentOf(a, mine.match.id, account.username);
      const play = link(mine.match.url, t("play it now"), "arena-play-link");
      box.append(...(name ? withNodes(t("Your match against {name} is on: {link}."), { name, link: play })
        : withNodes(t("Your match against your opponent is on: {link}."), { link: play })));
    } else {
      box.textContent = {
        waiting: live && a.status === "started"
          ? t("Waiting for a free opponent: you are paired as soon as one is free.")
          : live ? t("You are in: wait for the start.") : "",
        pairing: t("Pairing you now…"),
        paused: t("You are paused (you lost a match on time): press Join to play again."),
        withdrawn: t("You have withdrawn: press Join to come back."),
      }[mine.state] || "";
    }
  }
  const standings = $("arena-standings");
  standings.textContent = "";
  if (!a.standings.length) return;
  if (a.standings.some((x) => x.fire)) {
    standings.append(el("p", { class: "hint", "data-testid": "streak-legend",
      text: t("🔥 streak: two wins in a row, so the player's matches count double (a win scores 4, "
        + "a tie 2) until they fail to win.") }));
  }
  standings.append(table(["#", t("Player"), t("Score"), t("Results"), t("Matches"), t("Rating"), ""],
    a.standings.map((x) => {
      const score = el("span", {}, el("span", { text: number(x.score), "data-testid": "arena-score" }));
      if (x.fire) { // said in words: a "×2" beside the score read as the score doubled
        score.append(" ", el("span", { class: "streak-mark", text: t("🔥 streak"),
          "data-testid": "streak-mark",
          title: t("On a streak: two wins in a row, so each match now counts double (a win scores 4)") }));
      }
      const now = x.playing ? link(`/watch/${encodeURIComponent(x.playing)}`, t("playing"))
        : x.paused ? t("paused") : x.active ? "" : t("withdrawn");
      const who = named(x.username, x.bot);
      who.dataset.testid = "arena-player";
      return [number(x.rank), who, score, x.sheet, number(x.matches), x.rating, now];
    }), "arena-row"));
}

async function arenaPage(account, id) {
  $("arena-view").hidden = false;
  let last = null;
  let fetchedAt = Date.now();
  let timer = null;
  let busyTries = 0;
  const refresh = async () => {
    clearTimeout(timer);
    let wait = document.hidden ? HIDDEN_POLL_MS : POLL_MS;
    try {
      last = await api(`/api/tournaments/${encodeURIComponent(id)}`);
      fetchedAt = Date.now();
      renderArena(last, account, fetchedAt);
      say("");
      busyTries = 0;
    } catch (err) {
      say(err.message);
      if (busy(err)) wait = Math.max(wait, retryWait(err, busyTries++)); // ask again later
    }
    if (!last || last.status !== "finished") timer = setTimeout(refresh, wait);
  };
  // a tab in the background reads the standings seldom (four tabs of one household must
  // not spend the address's reads); shown again, it reads them at once
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && (!last || last.status !== "finished")) refresh();
  });
  setInterval(() => { if (last) renderArena(last, account, fetchedAt); }, 1000);
  const act = (what) => async () => {
    if (!account) {
      say(t("Log in to play in an arena."));
      return;
    }
    try {
      await post(`/api/tournaments/${encodeURIComponent(id)}/${what}`, account);
      clearTimeout(timer);
      await refresh();
    } catch (err) {
      say(err.message);
    }
  };
  $("arena-join").addEventListener("click", act("join"));
  $("arena-withdraw").addEventListener("click", act("withdraw"));
  $("arena-start").addEventListener("click", act("start"));
  await refresh();
}

// ------------------------------------------------------------------ the daily deal

function board(entries) {
  if (!entries.length) return el("p", { class: "empty", text: t("Nobody has finished this deal yet.") });
  return table(["#", t("Player"), t("Margin"), t("Score"), ""], entries.map((e) => [
    number(e.rank), named(e.username, e.bot), e.margin > 0 ? `+${number(e.margin)}` : number(e.margin),
    `${number(e.scores[0])}–${number(e.scores[1])}`, e.forfeit ? (e.end === "timeout" ? t("lost on time") : t("resigned")) : "",
  ]), "daily-row");
}

async function dailyPage(account) {
  const show = (d) => {
    $("daily-title").textContent = t("The daily deal · {date}", { date: d.date });
    $("daily-hands").textContent = number(d.hands);
    $("daily-commitment").textContent = d.commitment;
    const box = $("daily-me");
    box.textContent = "";
    const play = $("daily-play");
    play.hidden = true;
    if (!account) {
      box.append(...withNodes(t("{link} to play today's deal (once per account)."), { link: link("/account", t("Log in")) }));
    } else if (d.me && d.me.played) {
      box.append(...withNodes(t("You have played today's deal: {link}. The next deal is dealt at 00:00 UTC."),
        { link: link(d.me.match.url, t("your match"), "daily-match") }));
    } else if (d.me && d.me.refused) { // the entry rule (established accounts): say what is missing
      box.append(el("span", { "data-testid": "daily-refused", text: d.me.refused }));
    } else {
      play.hidden = false;
    }
    const b = $("daily-board");
    b.textContent = "";
    b.append(board(d.leaderboard));
  };
  let today;
  try {
    today = await api("/api/daily");
    show(today);
  } catch (err) {
    say(err.message);
    return;
  }
  $("daily-play").addEventListener("click", async () => {
    try {
      const m = await post("/api/daily/play", account);
      rememberSeat({ id: m.id, token: m.token, seat: m.seat });
      location.href = m.url;
    } catch (err) {
      say(err.message);
    }
  });
  setInterval(async () => {
    try {
      show(await api("/api/daily"));
    } catch {
      /* the next round tries again */
    }
  }, 10000);
  if (!today.yesterday) return; // no deal was dealt yesterday (a new site): nothing to ask
  try {
    const old = await api(`/api/daily/${encodeURIComponent(today.yesterday)}`);
    $("daily-yesterday").hidden = false;
    const seed = $("daily-yesterday-seed");
    seed.append(...withNodes(t("{date}: seed {seed}, salt {salt}, committed as {commitment}. "
      + "Download any of its records and run {command}."), {
      date: old.date, seed: old.seed_text, salt: el("code", { text: old.salt }),
      commitment: el("code", { text: old.commitment }), command: el("code", { text: "ginrummy verify RECORD" }),
    }));
    $("daily-yesterday-board").append(board(old.leaderboard.slice(0, 10)));
  } catch {
    /* no deal was dealt yesterday */
  }
}

// ------------------------------------------------------------------ the lobby

async function lobbyList() {
  const box = $("events-list");
  if (!box) return;
  try {
    const data = await api("/api/tournaments");
    box.textContent = "";
    const open = data.tournaments.filter((a) => a.status !== "finished").slice(0, 5);
    if (!open.length) {
      const li = el("li", { class: "empty" });
      li.append(...withNodes(t("No arena right now: {link}."), { link: link("/tournaments", t("make one")) }));
      box.append(li);
    }
    for (const a of open) {
      const li = el("li", {});
      li.append(link(a.url, a.name, "lobby-arena"), ` · ${arenaState(a)}`);
      box.append(li);
    }
  } catch {
    /* offline: the lobby shows the rest */
  }
}

(async () => {
  if (page === "tournament" || page === "daily") {
    const account = await me();
    if (page === "daily") {
      await dailyPage(account);
      return;
    }
    const parts = location.pathname.split("/").filter(Boolean);
    if (parts[0] === "tournament" && parts[1]) await arenaPage(account, decodeURIComponent(parts[1]));
    else await arenasPage(account);
  } else {
    await lobbyList();
  }
})();
