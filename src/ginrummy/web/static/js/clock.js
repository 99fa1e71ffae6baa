// Turn clocks, "your move" signals, and resigning or aborting (docs/web-api.md).
//
// STATE's `clock` is {move, bank: [S0, S1], deadline, timeouts: [T0, T1]} (null for a table
// without one). The decision awaited runs out at `deadline` (Unix seconds): first its own
// `move` seconds, then the seat's bank. Both seats' clocks are drawn here and tick every
// quarter second from the server's figures; the server alone enforces them.

import { api } from "./api.js";
import { decimal, el } from "./dom.js";
import { sound } from "./fx.js";
import { number, t, tn } from "./i18n.js";
import { base, me, nameOf, opp, store } from "./state.js";

const $ = (id) => document.getElementById(id);
const BASE_TITLE = "ginrummy";
const PAGE_TITLE = document.title;
let ticker = 0;
let skew = 0; // server clock minus this browser's clock, in seconds (from the Date header)

/** Seconds as m:ss (or s.s under ten seconds, as the page's language writes a decimal). */
function fmt(secs) {
  const s = Math.max(0, secs);
  if (s < 10) return decimal(s, 1);
  const whole = Math.ceil(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** The seat the deadline times (null between hands or when nothing is timed). */
function timedSeat(S) {
  const c = S.clock;
  if (!c || c.deadline == null || S.status !== "playing" || S.hand_over) return null;
  return S.view.to_play;
}

/** What is left now of each seat's move time and bank. */
function remaining(S) {
  const c = S.clock;
  const now = Date.now() / 1000 + skew;
  const seat = timedSeat(S);
  const out = [0, 1].map((s) => ({ move: null, bank: c.bank[s], running: false }));
  if (seat != null) {
    const left = c.deadline - now;
    const bank = c.bank[seat];
    out[seat] = { move: Math.max(0, left - bank), bank: Math.max(0, Math.min(bank, left)), running: true };
  } else if (S.hand_over && S.hand_over.deal_at != null && S.status === "playing") {
    // between hands: the next hand is dealt at this moment anyway
    out.next = Math.max(0, S.hand_over.deal_at - now);
  }
  return out;
}

function renderClocks() {
  const S = store.S;
  const box = $("clocks");
  if (!box) return;
  if (!S || !S.clock) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const left = remaining(S);
  box.replaceChildren(
    ...[me(), opp()].map((seat) => {
      const r = left[seat];
      const low = r.running && r.move + r.bank < 10;
      const timeouts = S.clock.timeouts[seat];
      return el("div", {
        class: `clock${r.running ? " running" : ""}${low ? " low" : ""}`,
        "data-testid": seat === me() ? "clock-me" : "clock-opponent",
        title: t("{name}: {seconds} s a move, then the bank", { name: nameOf(seat), seconds: number(S.clock.move) }),
      },
      el("span", { class: "clock-name", text: seat === me() ? t("You") : nameOf(seat) }),
      el("span", { class: "clock-move", "data-testid": "clock-move", text: r.running ? fmt(r.move) : fmt(S.clock.move) }),
      el("span", { class: "clock-bank", "data-testid": "clock-bank", text: t("bank {time}", { time: fmt(r.bank) }) }),
      timeouts ? el("span", { class: "clock-timeouts", "data-testid": "clock-timeouts",
        text: t("out of time {count}/3", { count: number(timeouts) }) }) : null);
    }),
    left.next != null ? el("div", { class: "clock-next", text: t("next hand in {time}", { time: fmt(left.next) }) }) : "",
  );
}

/** Learn the server's clock from a response's Date header (whole seconds: good enough). */
export async function syncClock() {
  try {
    const r = await fetch("/api/bots", { cache: "no-store" });
    const d = Date.parse(r.headers.get("date") || "");
    if (!Number.isNaN(d)) {
      const off = d / 1000 + 0.5 - Date.now() / 1000;
      skew = Math.abs(off) > 1.5 ? off : 0; // only a clock clearly off is corrected
    }
  } catch {
    /* keep this browser's clock */
  }
}

// ------------------------------------------------------------------ your move

function myMove(S) {
  if (!S || S.status !== "playing") return false;
  if (S.hand_over) return !(S.hand_over.ready || [])[S.seat];
  return Boolean(S.my_turn);
}

export function notifyOn() {
  return localStorage.getItem("ginrummy.notify") === "1" && "Notification" in window
    && Notification.permission === "granted";
}

/** Turn the "your move" notification on (asking the browser's permission only now) or off. */
export async function toggleNotify() {
  if (notifyOn()) {
    localStorage.setItem("ginrummy.notify", "0");
    return false;
  }
  if (!("Notification" in window)) throw new Error(t("This browser cannot show notifications."));
  let p = Notification.permission;
  if (p === "default") p = await Notification.requestPermission();
  if (p !== "granted") throw new Error(t("Notifications are blocked for this site: allow them in the browser's settings."));
  localStorage.setItem("ginrummy.notify", "1");
  return true;
}

/** Tab title, sound and (optional) notification when it becomes this seat's move. */
function signalTurn(prev, S) {
  const mine = myMove(S);
  document.title = mine ? t("● Your move — {site}", { site: BASE_TITLE }) : PAGE_TITLE;
  if (!prev || myMove(prev) || !mine) return;
  if (!S.hand_over) sound("turn");
  if (document.hidden && notifyOn()) {
    try {
      const n = new Notification(t("Your move"), { body: t("{name} has played: it is your turn.", { name: nameOf(opp()) }), tag: `ginrummy-${S.id}` });
      n.onclick = () => window.focus();
    } catch {
      /* some browsers only notify from a service worker */
    }
  }
}

/** A line for moves the table played because a seat's time was out. */
function timeoutNews(prev, S) {
  if (!prev || prev.version >= S.version) return "";
  const old = prev.view.hand_index === S.view.hand_index ? (prev.view.history || []).length : 0;
  const fresh = (S.view.history || []).slice(old).filter((h) => h.timeout);
  if (!fresh.length) return "";
  const seat = fresh[0].seat;
  return seat === me() ? t("You ran out of time: the table played for you.")
    : t("{name} ran out of time: the table played for them.", { name: nameOf(seat) });
}

/** Every new STATE: the clocks, the tab title, the turn signals; returns a message to show. */
export function clockState(prev, S) {
  renderClocks();
  signalTurn(prev, S);
  if (!ticker && S.clock) ticker = setInterval(renderClocks, 250);
  if (ticker && (!S.clock || S.status === "finished")) {
    clearInterval(ticker);
    ticker = 0;
    renderClocks();
  }
  renderEndButtons(S);
  return timeoutNews(prev, S);
}

// ------------------------------------------------------------------ resign, abort

function renderEndButtons(S) {
  const playing = S.status !== "finished" && !store.lesson;
  for (const id of ["resign-button", "menu-resign-button"]) $(id).hidden = !playing;
  for (const id of ["abort-button", "menu-abort-button"]) $(id).hidden = !(playing && S.can_abort);
}

let asking = null; // "resign" or "abort"

export function askEnd(what) {
  asking = what;
  $("end-ask-title").textContent = what === "resign" ? t("Resign the match?") : t("Abort the match?");
  $("end-ask-text").textContent = what === "resign"
    ? t("{name} wins the match at once, whatever the score.", { name: nameOf(opp()) })
    : t("The match ends with no result (allowed until your own first move).");
  $("end-ask-yes").textContent = what === "resign" ? t("Resign") : t("Abort");
  $("end-ask").hidden = false;
  $("end-ask-cancel").focus();
}

export function cancelEnd() {
  asking = null;
  $("end-ask").hidden = true;
}

/** Send the confirmed resignation or abort; the answer is the new STATE. */
export async function confirmEnd(onState, onError) {
  const what = asking;
  cancelEnd();
  if (!what) return;
  try {
    onState(await api(`${base()}/${what}`, { method: "POST", token: store.token, body: {} }));
  } catch (e) {
    onError(e.message);
  }
}

/** How the match ended, in words for the end-of-match dialog ("" for the target). */
export function endLine(S) {
  const by = S.ended_by;
  switch (S.end) {
    case "resigned":
      return by === me() ? t("You resigned: {name} wins the match.", { name: nameOf(opp()) })
        : t("{name} resigned: you win the match.", { name: nameOf(by) });
    case "timeout":
      return by === me() ? t("You ran out of time on three turns in a row: the match is lost on time.")
        : t("{name} ran out of time on three turns in a row: you win on time.", { name: nameOf(by) });
    case "aborted":
      return t("The match was aborted before both players had moved: no result.");
    case "hand-cap": // a match of a fixed number of hands (the daily deal), else R10's 60
      return S.options && S.options.hands
        ? tn("The daily deal's {n} hand is played.", "The daily deal's {n} hands are played.", S.options.hands)
        : t("The 60-hand limit was reached.");
    default:
      return "";
  }
}
