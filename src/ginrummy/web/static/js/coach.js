// The table's coach: the "Review" link on every finished hand and match (opens the game
// review, review.js), and the "Hint" toggle at casual tables against the computer (never at
// a rated, arena or daily match, whose review opens only once it is over; off at the
// start of every match, remembered for that match by this browser): when on, the
// evaluator's suggestion for the decision at hand, asked of the server (computed from this
// seat's view only, R11), shown in the message line above the hand. The server records
// every hinted decision and the review shows them as "hinted", so a choice made in one
// match never carries into the next.

import { api } from "./api.js";
import { t } from "./i18n.js";
import { base, store } from "./state.js";

const $ = (id) => document.getElementById(id);
const coach = { asked: null, got: null, busy: false };
const key = () => `ginrummy.hints.${store.matchId}`;

function hintsOn() {
  try {
    return localStorage.getItem(key()) === "on";
  } catch {
    return false;
  }
}

/** Wire the Hint button (call once). */
export function initCoach() {
  const b = $("hint-button");
  if (!b) return;
  b.setAttribute("aria-pressed", String(hintsOn()));
  b.addEventListener("click", () => {
    const on = !hintsOn();
    try {
      if (on) localStorage.setItem(key(), "on");
      else localStorage.removeItem(key());
    } catch {
      /* private mode: on for this page only */
    }
    b.setAttribute("aria-pressed", String(on));
    coach.asked = null;
    renderCoach();
  });
}

/** Update the Review link and the hint for the current STATE (call after each render). */
export function renderCoach() {
  const S = store.S;
  if (!S) return;
  const link = $("review-link");
  if (link) {
    // (played through the account's session, the review opens with the session too)
    link.href = `/review/${encodeURIComponent(S.id)}${store.token ? `#token=${encodeURIComponent(store.token)}` : ""}`;
    // at a rated, arena or daily match the review opens only once the match is over
    link.hidden = S.coach === false ? S.status !== "finished" : !S.hand_over && S.status !== "finished";
  }
  const b = $("hint-button");
  const line = $("coach-line");
  if (!b || !line) return;
  // no hints where a result counts (rated, arena and daily matches: S.coach is false)
  const offered = S.opponent === "computer" && S.coach !== false;
  b.hidden = !offered;
  const want = offered && hintsOn() && S.status === "playing" && S.my_turn &&
    !S.hand_over && S.legal.length >= 2;
  if (!want) {
    line.hidden = true;
    clearPick();
    return;
  }
  const key = `${S.id}:${S.version}`;
  if (coach.got && coach.got.key === key) {
    show(coach.got);
    return;
  }
  line.hidden = false;
  line.textContent = t("The coach is thinking…");
  clearPick();
  if (coach.asked === key) return;
  coach.asked = key;
  api(`${base()}/hint`, { method: "POST", token: store.token })
    .then((h) => {
      coach.got = { ...h, key: `${S.id}:${h.version}` };
      if (store.S && `${store.S.id}:${store.S.version}` === coach.got.key) renderCoach();
    })
    .catch((e) => {
      if (store.S && `${store.S.id}:${store.S.version}` === key) {
        line.textContent = t("No hint: {reason}", { reason: e.message });
      }
    });
}

function clearPick() {
  for (const c of document.querySelectorAll(".coach-pick")) c.classList.remove("coach-pick");
}

function show(h) {
  const line = $("coach-line");
  line.hidden = false;
  line.textContent = h.text;
  clearPick();
  const best = h.best || {};
  let target = null;
  if (best.act === "discard") target = document.querySelector(`#my-hand [data-card="${best.card}"]`);
  else if (best.act === "draw" && best.from === "stock") target = document.querySelector("#stock-slot .card");
  else if (best.act === "draw") target = document.querySelector("#discard-slot .card:last-child");
  if (target) target.classList.add("coach-pick");
}
