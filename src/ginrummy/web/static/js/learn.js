// Learn to play (/learn): the table page on a prepared deal, one step at a time. Each step
// shows a STATE from static/learn/lesson.json (built from the rules engine by
// scripts/learn_lesson.py, so every figure is the engine's), says what it teaches in a
// sentence, highlights the cards it is about, and waits for Next or for the step's move.
// No match is made on the server; the step reached is kept in this browser, so the lesson
// can be left and resumed. /learn is the guided first hand; /learn?lesson=NAME the lessons
// after it (static/learn/NAME.json, built by scripts/learn_lessons.py), each ending with
// a link to the puzzles of its themes.

import { api, rememberSeat } from "./api.js";
import { cardShort } from "./cards.js";
import { number, t } from "./i18n.js";
import { lessonProgress, saveProgress } from "./progress.js";
import { $, el, showMessage } from "./render.js";
import { store } from "./state.js";

/** The lessons, in the order offered (the list on the lesson panel). */
export const LESSONS = [
  { name: "", title: t("Your first hand") },
  { name: "knock", title: t("When to knock and when to play on") },
  { name: "safe-discards", title: t("Safe discards late in the stock") },
  { name: "pile-takes", title: t("What the opponent's pile takes tell you") },
];

const PAUSE = 650; // ms each in-between position shows (the computer "thinking")

const SPOTS = {
  hand: "#my-hand",
  stock: "#stock-slot",
  pile: "#discard-slot",
  badge: "#deadwood",
  pass: "#pass-button",
};

/** The move a step waits for, in words (for a click that is not it). */
function wanted(w) {
  if (w.act === "pass") return t("press Pass");
  if (w.act === "draw") return w.from === "stock" ? t("click the stock") : t("click the discard pile");
  const card = cardShort(w.card);
  return w.knock ? t("click the {card}", { card }) : t("click the {card} and just discard it", { card });
}

function same(a, w) {
  return a.act === w.act && (a.from || null) === (w.from || null) && (a.card || null) === (w.card || null) &&
    Boolean(a.knock) === Boolean(w.knock);
}

/**
 * Run the lesson on this page. `applyState` is the table's own renderer (play.js);
 * `stop` shows a sentence instead of the table.
 */
export async function startLesson({ applyState, stop }) {
  document.body.classList.add("lesson-mode");
  const asked = new URLSearchParams(location.search).get("lesson") || "";
  const lesson = LESSONS.find((l) => l.name === asked) || LESSONS[0];
  document.title = `${lesson.name ? lesson.title : t("Learn to play")} · Gin Rummy`;
  $("page-title").textContent = t("Learn to play");
  document.body.dataset.lesson = lesson.name || "first";
  const list = $("lesson-list");
  list.replaceChildren(el("span", { class: "lesson-list-label", text: t("Lessons:") }), ...LESSONS.map((l) => el("a", {
    href: l.name ? `/learn?lesson=${l.name}` : "/learn",
    text: l.title,
    "aria-current": l === lesson ? "page" : null,
    "data-testid": "lesson-link",
  })));
  let data;
  try {
    const res = await fetch(`/static/learn/${lesson.name || "lesson"}.json`, { cache: "no-cache" });
    if (!res.ok) throw new Error(String(res.status));
    data = await res.json();
    // The prepared positions' player names in the page's language, like every text of
    // the lesson (messages of the browser's catalog: src/ginrummy/i18n/lessons.py).
    for (const st of data.states) st.players = (st.players || []).map((name) => t(name));
  } catch {
    stop(t("The lesson could not be loaded. Check your connection, then reload this page."));
    return;
  }
  const steps = data.steps;
  const total = steps.length;
  const home = { parent: $("lesson").parentElement, next: $("lesson").nextElementSibling };
  let at = 0;
  let moving = false; // a move's in-between positions are showing

  const spots = () => {
    for (const n of document.querySelectorAll(".lesson-spot")) n.classList.remove("lesson-spot");
    const step = steps[at];
    for (const code of step.highlight) {
      for (const n of document.querySelectorAll(`#table [data-card="${code}"], #reveal [data-card="${code}"]`)) {
        n.classList.add("lesson-spot");
      }
    }
    for (const s of step.spots) {
      const n = document.querySelector(SPOTS[s]);
      if (n) n.classList.add("lesson-spot");
    }
  };
  // The table redraws its cards (sorting, Knock mode, animations): keep the highlights on.
  let queued = false;
  const watch = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      spots();
    });
  });
  watch.observe($("table"), { childList: true, subtree: true });
  watch.observe($("reveal"), { childList: true, subtree: true });

  const show = (i, fresh) => {
    at = i;
    const step = steps[i];
    const st = data.states[step.state];
    if (fresh || step.rewind) store.S = null; // draw it afresh, no card flying back
    store.dismissedOver = null;
    applyState(st);
    // In the showdown the lesson speaks from the top of the result panel.
    const panel = $("lesson");
    if (st.hand_over) $("hand-over").querySelector(".dialog-body").prepend(panel);
    else if (panel.parentElement !== home.parent) home.parent.insertBefore(panel, home.next);
    panel.hidden = false;
    $("lesson-title").textContent = t(step.title);
    $("lesson-text").textContent = t(step.text);
    $("lesson-count").textContent = t("Step {step} of {steps}", { step: number(i + 1), steps: number(total) });
    document.body.dataset.lessonStep = String(i);
    $("lesson-back").disabled = i === 0;
    const last = i === total - 1;
    $("lesson-next").hidden = Boolean(step.await) || last;
    $("lesson-play").hidden = !last;
    $("lesson-list").hidden = !(i === 0 || last); // the lessons, offered at the start and the end
    panel.classList.toggle("waiting", Boolean(step.await));
    spots();
    saveProgress(i, total, last, lesson.name);
    // Bring what the step is about into view (below the lesson, which stays at the top of
    // a phone's screen).
    document.documentElement.style.scrollPaddingTop = `${panel.getBoundingClientRect().height + 8}px`;
    const code = (step.await && step.await.card) || step.highlight[0];
    const spot = (code && document.querySelector(`#table [data-card="${code}"]`)) ||
      document.querySelector("#table .lesson-spot");
    if (spot && !st.hand_over) spot.scrollIntoView({ block: "nearest" });
    if (!step.await) ($("lesson-next").hidden ? $("lesson-play") : $("lesson-next")).focus({ preventScroll: true });
  };

  const go = async (i, { fresh = false, moved = false } = {}) => {
    const step = steps[i];
    if (moved && step.via.length) {
      moving = true;
      for (const v of step.via) {
        applyState(data.states[v]);
        spots();
        await new Promise((r) => setTimeout(r, PAUSE));
      }
      moving = false;
    }
    show(i, fresh);
  };

  store.token = "lesson";
  store.matchId = "learn";
  store.lesson = {
    /** A move from the table (click or key): the step's move goes on, others are explained. */
    act(action) {
      if (moving) return Promise.resolve(false);
      const w = steps[at].await;
      if (!w) {
        showMessage(t("Press Next to go on."));
        return Promise.resolve(false);
      }
      if (!same(action, w)) {
        showMessage(t("Not this time: in the lesson, {move}.", { move: wanted(w) }));
        return Promise.resolve(false);
      }
      return go(at + 1, { moved: true }).then(() => true);
    },
    /** Next (the button, the result panel's Next hand, the N key). */
    next() {
      if (moving) return;
      const w = steps[at].await;
      if (w) {
        showMessage(t("This step waits for your move: {move}.", { move: wanted(w) }));
        return;
      }
      if (at < total - 1) go(at + 1);
    },
  };

  $("lesson-next").addEventListener("click", () => store.lesson.next());
  $("lesson-back").addEventListener("click", () => {
    if (!moving && at > 0) go(at - 1, { fresh: true });
  });
  $("lesson-restart").addEventListener("click", () => {
    if (!moving) go(0, { fresh: true });
  });
  if (data.finish) {
    // a lesson after the first ends with the puzzles of its themes
    $("lesson-play").href = data.finish.href;
    $("lesson-play").textContent = t(data.finish.text);
  }
  $("lesson-play").addEventListener("click", async (e) => {
    if (data.finish) return; // the link
    e.preventDefault();
    const name = localStorage.getItem("ginrummy.name") || "Player";
    try {
      const made = await api("/api/matches", {
        method: "POST", body: { opponent: "computer", bot: "easy", name, options: { target: 100 } },
      });
      rememberSeat({ id: made.id, token: made.token, seat: made.seat ?? 0, opponent: "computer" });
      location.assign(made.url);
    } catch (err) {
      $("lesson-text").replaceChildren(err.message, " ", el("a", { href: "/", text: t("Go to the lobby") }), ".");
    }
  });

  const saved = lessonProgress(lesson.name);
  const resume = saved && !saved.done && saved.total === total ? Math.min(saved.step, total - 1) : 0;
  go(resume, { fresh: true });
}
