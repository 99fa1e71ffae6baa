// The lobby: start a table (computer or friend) and list this browser's matches and, for
// a signed-in account, the account's matches on any device (its session is its seat).

import { number, t, tn } from "./i18n.js";
import { api, forgetSeat, loadSeats, playUrl, rememberSeat, signedIn } from "./api.js";
import { cardElement, installSuitSprite } from "./cards.js";
import { installApp, watchOffline } from "./install.js";
import { lessonProgress } from "./progress.js";
import { applyCardPrefs } from "./prefs.js";

const $ = (id) => document.getElementById(id);
let filter = "open";
let summaries = [];

function say(text, kind = "info") {
  const m = $("lobby-message");
  m.className = `message ${kind}`;
  m.textContent = text;
}

function fan() {
  const codes = ["AS", "KH", "QD", "JC", "TS"];
  const box = $("hero-fan");
  codes.forEach((c, i) => {
    const card = cardElement(c);
    card.style.transform = `rotate(${(i - 2) * 9}deg) translateY(${Math.abs(i - 2) * 6}px)`;
    box.append(card);
  });
}

/** The computer's levels by name, in the page's language (the API's labels are English). */
const LEVEL_LABELS = { easy: t("Easy"), medium: t("Medium"), hard: t("Hard") };

async function loadBots() {
  const box = $("bots");
  let bots = [];
  try {
    bots = (await api("/api/bots")).bots || [];
  } catch (e) {
    say(e.message, "error");
  }
  if (!bots.length) bots = [{ name: "medium", label: t("Medium") }];
  const preferred = localStorage.getItem("ginrummy.bot");
  const chosen = bots.some((b) => b.name === preferred) ? preferred : (bots.find((b) => b.name === "medium") || bots[0]).name;
  box.replaceChildren();
  for (const b of bots) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "bot";
    input.value = b.name;
    input.checked = b.name === chosen;
    input.dataset.testid = `bot-${b.name}`;
    label.append(input, ` ${LEVEL_LABELS[b.name] || b.label || b.name}`);
    box.append(label);
  }
}

function opponent() {
  return document.querySelector('input[name="opponent"]:checked').value;
}

function syncForm() {
  $("bot-row").hidden = opponent() !== "computer";
}

async function create(ev) {
  ev.preventDefault();
  const name = $("name").value.trim() || t("Player");
  localStorage.setItem("ginrummy.name", name);
  const body = {
    opponent: opponent(),
    name,
    options: {
      target: Number(document.querySelector('input[name="target"]:checked').value),
      gin_only: $("gin-only").checked,
      oklahoma: $("oklahoma").checked,
    },
  };
  const clock = $("clock").value; // "MOVE+BANK" seconds, or "" for none (the default)
  if (clock) {
    const [move, bank] = clock.split("+").map(Number);
    body.clock = { move, bank };
  }
  if (body.opponent === "computer") {
    body.bot = document.querySelector('input[name="bot"]:checked')?.value || "medium";
    localStorage.setItem("ginrummy.bot", body.bot);
  }
  const btn = $("start-button");
  btn.disabled = true;
  say(t("Shuffling…"));
  try {
    const made = await api("/api/matches", { method: "POST", body });
    const url = made.url || playUrl(made.id, made.token);
    rememberSeat({ id: made.id, token: made.token, seat: made.seat ?? 0, invite_url: made.invite_url || null, opponent: body.opponent });
    if (body.opponent === "friend" && made.invite_url) {
      $("new-form").hidden = true;
      $("invite").hidden = false;
      $("invite-link").value = new URL(made.invite_url, location.origin).href;
      $("go-table").href = url;
      $("share-invite").hidden = !navigator.share;
      $("invite-link").focus();
      $("invite-link").select();
      refreshList();
    } else {
      location.assign(url);
    }
  } catch (e) {
    say(e.message, "error");
  } finally {
    btn.disabled = false;
  }
}

function describe(s, stored) {
  const seat = s.seat ?? stored.seat ?? 0;
  const players = s.players || stored.players || ["?", "?"];
  const scores = s.scores || [0, 0];
  return { seat, players, scores, opp: 1 - seat };
}

function renderList() {
  const list = $("matches");
  list.replaceChildren();
  const stored = loadSeats();
  const byToken = new Map(stored.map((s) => [s.token, s]));
  const rows = summaries
    .map((s) => ({ s, stored: byToken.get(s.token) || stored.find((x) => x.id === s.id) || {} }))
    .filter(({ s }) => (filter === "finished" ? s.status === "finished" : s.status !== "finished"));
  if (!rows.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = filter === "finished" ? t("No finished matches yet.") : t("No open matches. Start one!");
    list.append(li);
    return;
  }
  for (const { s, stored: st } of rows) {
    const { seat, players, scores, opp } = describe(s, st);
    const li = document.createElement("li");
    li.className = "match-item";
    li.dataset.testid = "match-item";
    li.dataset.matchId = s.id;
    const left = document.createElement("div");
    const who = document.createElement("div");
    who.className = "who";
    const mark = (i) => (s.bots && s.bots[i] ? `BOT ${players[i]}` : players[i]); // BOT accounts
    who.textContent = t("{first} v {second}", { first: mark(seat), second: mark(opp) });
    const meta = document.createElement("div");
    meta.className = "meta";
    // a match of a fixed number of hands (the daily deal) is that, not its nominal target
    const target = s.options && s.options.hands ? " · " + tn("{n} hand", "{n} hands", s.options.hands)
      : s.options && s.options.target ? " · " + t("to {target}", { target: number(s.options.target) }) : "";
    meta.textContent = `${number(scores[seat])}–${number(scores[opp])}${target}`;
    left.append(who, meta);
    const right = document.createElement("div");
    right.className = "right";
    const tag = document.createElement("span");
    tag.className = "tag";
    if (s.status === "finished") {
      // an aborted match has no result: not a tie (its `end` says so)
      const result = s.end === "aborted" ? "aborted" : s.winner == null ? "tie" : s.winner === seat ? "won" : "lost";
      tag.textContent = { aborted: t("aborted"), tie: t("tie"), won: t("won"), lost: t("lost") }[result];
      tag.classList.add(result);
    } else if (s.status === "waiting") {
      tag.textContent = t("waiting for friend");
    } else if (s.my_turn || s.next_hand) {
      // A hand over and this seat not yet ready for the next one is a move of theirs too.
      tag.textContent = s.next_hand ? t("your move: next hand") : t("your turn");
      tag.classList.add("turn-tag");
    } else {
      tag.textContent = t("in play");
    }
    const open = document.createElement("a");
    open.className = "btn small";
    open.href = s.url || playUrl(s.id, st.token || s.token);
    open.textContent = s.status === "finished" ? t("View") : t("Play");
    open.setAttribute("aria-label", s.status === "finished" ? t("View: {match}", { match: who.textContent })
      : t("Play: {match}", { match: who.textContent }));
    const token = st.token || s.token;
    let remove = null;
    if (token) { // a seat this browser keeps (an account's match stays in the account)
      remove = document.createElement("button");
      remove.type = "button";
      remove.className = "btn ghost small";
      remove.textContent = "✕";
      remove.setAttribute("aria-label", t("Remove {match} from this list", { match: who.textContent }));
      remove.addEventListener("click", () => {
        forgetSeat(token);
        summaries = summaries.filter((x) => x !== s);
        renderList();
      });
    }
    let review = null;
    if (s.status === "finished") {
      review = document.createElement("a");
      review.className = "btn ghost small";
      review.href = `/review/${encodeURIComponent(s.id)}${token ? `#token=${encodeURIComponent(token)}` : ""}`;
      review.textContent = t("Review");
      review.dataset.testid = "lobby-review";
      review.setAttribute("aria-label", t("Review: {match}", { match: who.textContent }));
    }
    right.append(...[tag, open, review, remove].filter(Boolean));
    li.append(left, right);
    list.append(li);
  }
}

/** The account's matches (none for a guest): each links its table with no token. */
async function accountMatches() {
  if (!(await signedIn())) return [];
  return (await api("/api/me/matches")).matches || [];
}

async function refreshList() {
  const seats = loadSeats();
  try {
    const [res, theirs] = await Promise.all([
      seats.length
        ? api("/api/matches/lookup", { method: "POST", body: { tokens: seats.map((s) => s.token).slice(0, 100) } })
        : { matches: [] },
      accountMatches(),
    ]);
    summaries = (res.matches || []).map((m) => {
      const st = seats.find((s) => (m.token && s.token === m.token) || (s.id === m.id && (m.seat == null || s.seat === m.seat)));
      return { ...m, token: m.token || (st && st.token) };
    });
    // the account's seats this browser does not keep (played on another device)
    const here = new Set(summaries.map((m) => `${m.id}:${m.seat}`));
    summaries.push(...theirs.filter((m) => !here.has(`${m.id}:${m.seat}`)));
    const when = (m) => {
      const at = m.updated_at ?? m.created_at;
      return typeof at === "number" ? at : Date.parse(at || "") || 0;
    };
    summaries.sort((a, b) => when(b) - when(a));
  } catch (e) {
    summaries = [];
    say(e.message, "error");
  }
  renderList();
}

/** "Learn to play", or "Resume the lesson" where this browser left it. */
function showLesson() {
  const p = lessonProgress();
  if (p && !p.done && p.step > 0) {
    $("learn-link").textContent = t("Resume the lesson");
    $("learn-note").textContent = t("You stopped at step {step} of {total} of Learn to play.",
      { step: number(p.step + 1), total: number(p.total) });
  }
}

function wire() {
  installSuitSprite();
  applyCardPrefs();
  installApp();
  watchOffline($("offline-note"));
  showLesson();
  fan();
  $("name").value = localStorage.getItem("ginrummy.name") || "";
  document.querySelectorAll('input[name="opponent"]').forEach((r) => r.addEventListener("change", syncForm));
  $("new-form").addEventListener("submit", create);
  $("copy-invite").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("invite-link").value);
      $("copy-invite").textContent = t("Copied!");
    } catch {
      $("invite-link").select();
    }
  });
  $("share-invite").addEventListener("click", () => {
    navigator.share({ title: "Gin Rummy", text: t("Join my Gin Rummy table"), url: $("invite-link").value }).catch(() => {});
  });
  document.querySelectorAll("[data-filter]").forEach((b) =>
    b.addEventListener("click", () => {
      filter = b.dataset.filter;
      document.querySelectorAll("[data-filter]").forEach((x) => x.setAttribute("aria-pressed", String(x === b)));
      renderList();
    }),
  );
  syncForm();
  loadBots();
  refreshList();
  window.addEventListener("pageshow", refreshList);
}

wire();
