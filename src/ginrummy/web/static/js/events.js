// Arenas and the daily deal (docs/web-api.md, "Arena tournaments" and "The daily deal"):
// /tournaments lists arenas and makes one, /tournament/ID shows one with its live standings
// (read again every two seconds) and the player's current match, /daily shows the day's
// commitment, the play button and the leaderboard (and yesterday's deal, opened); the
// lobby lists the arenas being played. The top bar and notices come from online.js.

import { api, rememberSeat } from "./api.js";
import { el, table } from "./dom.js";
import { change, me } from "./online.js";

const $ = (id) => document.getElementById(id);
const page = document.body.dataset.page || "";
const POLL_MS = 2000;

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

function minutesText(min) {
  return min >= 60 && min % 60 === 0 ? `${min / 60} h` : `${min} min`;
}

function arenaLine(a) {
  const clock = a.clock ? `${a.clock.move} s + ${Math.round(a.clock.bank / 60)} min` : "no clock";
  return `${minutesText(a.minutes)} · to ${a.target} · ${clock} · ${a.rated ? "rated" : "casual"}`;
}

function arenaState(a) {
  if (a.status === "created") return `waiting to start · ${a.players} joined`;
  if (a.status === "finished") return a.winner ? `finished · ${a.winner} won` : "finished";
  if (a.seconds_left > 0) return `${duration(a.seconds_left)} left · ${a.players} playing`;
  return "time is up: the last matches are being played";
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
      box.append(el("p", { class: "empty", text: "No arena right now: make one below." }));
      return;
    }
    box.append(table(["Arena", "", "", "By"], data.tournaments.map((a) => [
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

function inPlay(n) {
  return `${n} ${n === 1 ? "match" : "matches"} in play`;
}

function opponentOf(a, matchId, username) {
  const other = a.standings.find((x) => x.playing === matchId && x.username !== username);
  return other ? other.username : "your opponent";
}

function renderArena(a, account, fetchedAt) {
  $("arena-title").textContent = a.name;
  $("arena-detail").textContent = `${arenaLine(a)} · made by ${a.creator || "?"}`;
  const left = a.seconds_left === null ? null
    : a.seconds_left - (Date.now() - fetchedAt) / 1000;
  let status;
  if (a.status === "created") status = `Not started yet: ${a.players} joined. Its creator starts it.`;
  else if (a.status === "finished") status = "The arena is over.";
  else if (left > 0) status = `${duration(left)} left · ${inPlay(a.in_play)}`;
  else status = `Time is up: no new pairings; ${inPlay(a.in_play)} finish and count.`;
  $("arena-status").textContent = status;
  const win = $("arena-winner");
  win.hidden = a.status !== "finished";
  win.textContent = a.winner ? `🏆 ${a.winner} wins the arena.` : "Nobody scored.";

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
      box.append(`Your match against ${opponentOf(a, mine.match.id, account.username)} is on: `,
        link(mine.match.url, "play it now", "arena-play-link"), ".");
    } else {
      box.textContent = {
        waiting: live && a.status === "started"
          ? "Waiting for a free opponent: you are paired as soon as one is free."
          : live ? "You are in: wait for the start." : "",
        pairing: "Pairing you now…",
        paused: "You are paused (you lost a match on time): press Join to play again.",
        withdrawn: "You have withdrawn: press Join to come back.",
      }[mine.state] || "";
    }
  }
  const standings = $("arena-standings");
  standings.textContent = "";
  if (!a.standings.length) return;
  standings.append(table(["#", "Player", "Score", "Results", "Matches", "Rating", ""],
    a.standings.map((x) => {
      const score = el("span", {}, el("span", { text: String(x.score), "data-testid": "arena-score" }));
      if (x.fire) {
        const mark = el("span", { class: "streak-mark", text: "×2",
          title: "Two wins in a row: the next win scores 4" });
        score.append(" ", mark);
      }
      const now = x.playing ? link(`/watch/${encodeURIComponent(x.playing)}`, "playing")
        : x.paused ? "paused" : x.active ? "" : "withdrawn";
      const who = named(x.username, x.bot);
      who.dataset.testid = "arena-player";
      return [x.rank, who, score, x.sheet, x.matches, x.rating, now];
    }), "arena-row"));
}

async function arenaPage(account, id) {
  $("arena-view").hidden = false;
  let last = null;
  let fetchedAt = Date.now();
  let timer = null;
  const refresh = async () => {
    try {
      last = await api(`/api/tournaments/${encodeURIComponent(id)}`);
      fetchedAt = Date.now();
      renderArena(last, account, fetchedAt);
      say("");
    } catch (err) {
      say(err.message);
    }
    if (!last || last.status !== "finished") timer = setTimeout(refresh, POLL_MS);
  };
  setInterval(() => { if (last) renderArena(last, account, fetchedAt); }, 1000);
  const act = (what) => async () => {
    if (!account) {
      say("Log in to play in an arena.");
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
  if (!entries.length) return el("p", { class: "empty", text: "Nobody has finished this deal yet." });
  return table(["#", "Player", "Margin", "Score", ""], entries.map((e) => [
    e.rank, named(e.username, e.bot), e.margin > 0 ? `+${e.margin}` : String(e.margin),
    `${e.scores[0]}–${e.scores[1]}`, e.forfeit ? (e.end === "timeout" ? "lost on time" : "resigned") : "",
  ]), "daily-row");
}

async function dailyPage(account) {
  const show = (d) => {
    $("daily-title").textContent = `The daily deal · ${d.date}`;
    $("daily-hands").textContent = `${d.hands}`;
    $("daily-commitment").textContent = d.commitment;
    const box = $("daily-me");
    box.textContent = "";
    const play = $("daily-play");
    play.hidden = true;
    if (!account) {
      box.append(link("/account", "Log in"), " to play today's deal (once per account).");
    } else if (d.me && d.me.played) {
      box.append("You have played today's deal: ", link(d.me.match.url, "your match", "daily-match"),
        ". The next deal is dealt at 00:00 UTC.");
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
  const y = new Date(`${today.date}T00:00:00Z`);
  y.setUTCDate(y.getUTCDate() - 1);
  try {
    const old = await api(`/api/daily/${y.toISOString().slice(0, 10)}`);
    $("daily-yesterday").hidden = false;
    const seed = $("daily-yesterday-seed");
    seed.append(`${old.date}: seed ${old.seed_text}, salt `, el("code", { text: old.salt }),
      ", committed as ", el("code", { text: old.commitment }),
      ". Download any of its records and run ", el("code", { text: "ginrummy verify RECORD" }), ".");
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
      li.append("No arena right now: ", link("/tournaments", "make one"), ".");
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
