// What the end of a match offers besides its result, by the kind of match:
//
// * the daily deal (STATE's `options.hands`: a match of a fixed number of hands): no "Play
//   again" (one play a day), and while its day lasts no replay, record or review (the
//   server withholds them: GET .../fairness says `withheld`): the dialog says when they
//   open (00:00 UTC) instead of offering buttons that only refuse;
// * an arena's match: no "Play again" but the way back to its arena, and the arena's next
//   pairing for this player is opened as soon as it is made (as on lichess), told by the
//   account's notice socket (notices.js: its `playing` list) or found by asking the arena.
//
// The arena of a match is known from this browser (the arena page keeps which arena each
// of the player's matches is in) or else asked of the running arenas once, at the end.

import { api, knownArena, rememberArena, signedIn } from "./api.js";
import { durationWords, el, withNodes } from "./dom.js";
import { t } from "./i18n.js";
import { reportButton } from "./report.js";
import { store } from "./state.js";

const $ = (id) => document.getElementById(id);
const LOOK_AT_MOST = 6; // arenas asked, newest first, for the arena of an unknown match

/** Whether the match is the daily deal's (a fixed number of hands: only the daily). */
export const isDaily = (S) => Boolean(S && S.options && S.options.hands);

const ending = { arena: undefined, looked: false, going: false, timer: 0, reportAsked: false };

/** Whether the match offers no rematch: a daily's, or an arena's (known so far). */
export const noRematch = () => isDaily(store.S) || Boolean(ending.arena);

/** The seconds to the next 00:00 UTC (when a withheld daily match opens). */
function toMidnight() {
  const now = new Date();
  return (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now) / 1000;
}

/** Show the end's buttons for this kind of match (call after the dialog is drawn and
 *  whenever `store.withheld` or the arena becomes known). */
export function renderEnding() {
  const S = store.S;
  if (!S || store.lesson) return;
  const withheld = Boolean(store.withheld);
  // a daily match's record is the day's deals: withheld while the day lasts
  for (const id of ["download-button", "menu-download-button"]) $(id).hidden = withheld;
  const note = $("ending-note");
  if (S.status !== "finished") {
    note.hidden = true;
    return;
  }
  offerReport(S);
  const daily = isDaily(S);
  if (withheld) {
    $("replay-button").hidden = true;
    $("over-download-button").hidden = true;
    $("review-link").hidden = true;
    note.hidden = false;
    note.textContent = t("The daily deal's replay, record and review open at 00:00 UTC, when the "
      + "day's seed is published (in {time}).", { time: durationWords(toMidnight()) });
  } else {
    note.hidden = true;
  }
  if (daily) { // one play a day: no rematch; the day's leaderboard instead
    $("again-button").hidden = true;
    $("again-note").textContent = "";
    showLink("/daily", t("The day's leaderboard"), "daily-back");
    return;
  }
  if (ending.arena === undefined) {
    ending.arena = knownArena(S.id);
    if (!ending.arena) findArena();
  }
  if (ending.arena) {
    $("again-button").hidden = true; // an arena pairs its players: no rematch
    $("again-note").textContent = "";
    showLink(ending.arena, t("Back to the arena"), "arena-back");
    watchArena();
  }
}

/** A finished match between people: a signed-in player may report the opponent's account
 *  from here (report.js), once the opponent is known to be an account (not a guest). */
async function offerReport(S) {
  if (ending.reportAsked || S.opponent === "computer") return;
  ending.reportAsked = true;
  const name = S.players[1 - S.seat];
  try {
    const mine = await signedIn();
    if (!mine || mine.username.toLowerCase() === name.toLowerCase()) return;
    const p = await api(`/api/players/${encodeURIComponent(name)}`);
    if (!p || p.bot) return;
    $("ending-report").replaceChildren(reportButton(p.username, S.id));
  } catch {
    /* a guest, or the site is busy: no report from here (the profile has one) */
  }
}

function showLink(href, text, testid) {
  const a = $("ending-link");
  a.href = href;
  a.textContent = text;
  a.dataset.testid = testid;
  a.hidden = false;
}

/** The arena this finished match was played in, asked of the arenas being played (once):
 *  found, it is remembered and the end redrawn. Only a match that may be an arena's is
 *  looked for: an account's (an arena match has no seat token) where the coach is off. */
async function findArena() {
  const S = store.S;
  if (ending.looked || !store.session || S.coach !== false || S.opponent === "computer") return;
  ending.looked = true;
  try {
    const list = (await api("/api/tournaments")).tournaments || [];
    for (const a of list.filter((x) => x.status !== "created").slice(0, LOOK_AT_MOST)) {
      const full = await api(`/api/tournaments/${encodeURIComponent(a.id)}`);
      if ((full.matches || []).includes(S.id)) {
        rememberArena(S.id, a.url);
        ending.arena = a.url;
        renderEnding();
        return;
      }
    }
  } catch {
    /* the end still shows the lobby's link */
  }
}

/** While this finished arena match is shown, the player's next pairing in the arena is
 *  opened the moment it is made: told by the notice socket, checked every 15 s too. */
function watchArena() {
  if (ending.timer) return;
  document.addEventListener("ginrummy:notices", (e) => {
    const playing = (e.detail && e.detail.playing) || [];
    if (playing.some((m) => m.id !== store.S.id)) nextPairing();
  });
  nextPairing();
  ending.timer = setInterval(nextPairing, 15000);
}

async function nextPairing() {
  if (ending.going || !ending.arena) return;
  const id = ending.arena.split("/").pop();
  let a;
  try {
    a = await api(`/api/tournaments/${encodeURIComponent(id)}`);
  } catch {
    return;
  }
  const next = a.me && a.me.match;
  if (a.status === "finished") clearInterval(ending.timer);
  if (!next || next.id === store.S.id) return;
  ending.going = true;
  rememberArena(next.id, ending.arena);
  const box = $("ending-next");
  box.hidden = false;
  box.replaceChildren(...withNodes(t("Your next arena match is ready: {link}."), {
    link: el("a", { href: next.url, text: t("play it now"), "data-testid": "arena-next" }),
  }));
  location.assign(next.url);
}
