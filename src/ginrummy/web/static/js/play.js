// The table page's controller: turns clicks and keys into moves (transport.js), feeds each
// new STATE to the renderers (render.js, dialogs.js). The server judges every move (R5,
// R6) and this page only ever holds what its seat may see (R11).

import { downloadJson, api, loadSeats, rememberSeat } from "./api.js";
import { installSuitSprite } from "./cards.js";
import { initCoach, renderCoach } from "./coach.js";
import { nudge } from "./arrange.js";
import {
  MODALS, closeOverlay, loadReplay, openOverlay, openReplay, renderHandOver, renderRematch,
  renderSheet, replay, showHistory, trapFocus,
} from "./dialogs.js";
import { renderFairness } from "./fairness.js";
import { sound } from "./fx.js";
import {
  $, clearRefusal, el, renderHand, renderTable, setHandlers as setRenderHandlers, showMessage, snapshot,
} from "./render.js";
import {
  base, canDrawPile, canDrawStock, canPass, inDiscardPhase, me, motionOn, nameOf, saveOrder,
  setMotion, setSound, soundOn, store,
} from "./state.js";
import {
  askRematch, connect, joinWithCode, rematchStatus, refresh, sendAction, sendNext, setHandlers, stopPolling,
} from "./transport.js";

// ------------------------------------------------------------------ state in

function applyState(st) {
  if (!st || typeof st !== "object" || !st.view) return;
  const prev = store.S;
  if (prev && st.id === prev.id && st.version < prev.version) return; // an older echo
  const rects = prev ? snapshot() : null;
  store.S = st;
  if (!prev) {
    rememberSeat({ id: st.id, token: store.token, seat: st.seat, players: st.players, opponent: st.opponent });
  }
  if (prev && st.version > prev.version && !st.my_turn) clearRefusal(); // the turn moved on
  if (prev && st.my_turn && !prev.my_turn && !st.hand_over) sound("turn");
  if (!st.my_turn || st.view.phase !== "discard") store.knockMode = false;
  if (st.knock_discards && st.knock_discards.length === 0) store.knockMode = false;
  renderTable(prev, rects);
  renderHandOver(prev);
  renderCoach();
  if (!$("sheet-overlay").hidden) renderSheet($("sheet-body"));
  watchRematch();
  renderFairness();
}

function stop(text) {
  store.fatal = true;
  stopPolling();
  $("table").hidden = true;
  $("invite").hidden = true;
  $("join-panel").hidden = true;
  const c = $("connection");
  c.hidden = false;
  c.className = "panel";
  c.replaceChildren(
    el("p", { text }),
    el("p", {}, el("a", { href: "/", text: "Go to the lobby" }), " to start a new table."),
  );
}

function setConnection(text) {
  if (store.fatal) return;
  $("connection").textContent = text;
  $("connection").hidden = !text;
}

// ------------------------------------------------------------------ moves out

const S = () => store.S;

function act(action) {
  clearRefusal(); // a refusal lasts until the player's next action
  return sendAction(action);
}

function drawStock() {
  if (!S() || S().hand_over) return;
  clearRefusal();
  if (canDrawStock()) act({ act: "draw", from: "stock" });
  else if (!S().my_turn) showMessage(`It is ${nameOf(S().view.to_play)}'s turn.`);
  else if (S().view.phase === "offer") showMessage("First take the up-card or pass.");
  else if (S().view.phase === "discard") showMessage("You have drawn already: now discard a card.");
}

function drawPile() {
  if (!S() || S().hand_over) return;
  clearRefusal();
  if (canDrawPile()) act({ act: "draw", from: "discard" });
  else if (!S().my_turn) showMessage(`It is ${nameOf(S().view.to_play)}'s turn.`);
  else if (S().view.phase === "discard") showMessage("You have drawn already: now discard a card.");
}

function pass() {
  if (canPass()) act({ act: "pass" });
}

function discard(card, knock) {
  if (!S() || S().hand_over) return;
  clearRefusal();
  if (!S().my_turn) return showMessage(`Wait for your turn: it is ${nameOf(S().view.to_play)}'s.`);
  if (S().view.phase === "offer") return showMessage("First take the up-card or pass.");
  if (S().view.phase === "draw") return showMessage("Draw first: click the stock or the discard pile.");
  // The server judges every discard, so its exact sentence reaches the player (R5, R6).
  if (knock) sound("knock");
  return act({ act: "discard", card, knock: Boolean(knock) });
}

function nextHand() {
  if (!S() || !S().hand_over || S().status === "finished") return;
  if (S().hand_over.ready && S().hand_over.ready[me()]) return;
  clearRefusal();
  sendNext();
}

// ------------------------------------------------------------------ rematch

let rematchTimer = 0;

async function pollRematch() {
  if (!S() || S().status !== "finished" || S().opponent === "computer") return;
  try {
    store.rematch = await rematchStatus();
    renderRematch();
  } catch {
    /* shown again on the next poll */
  }
}

function watchRematch() {
  const on = S() && S().status === "finished" && S().opponent !== "computer";
  if (on && !rematchTimer) {
    pollRematch();
    rematchTimer = setInterval(pollRematch, 2000);
  } else if (!on && rematchTimer) {
    clearInterval(rematchTimer);
    rematchTimer = 0;
  }
}

async function playAgain() {
  const key = `ginrummy.rematch.${S().id}.${S().seat}`;
  const moved = localStorage.getItem(key);
  if (moved) {
    location.assign(moved);
    return;
  }
  $("again-button").disabled = true;
  try {
    const made = await askRematch();
    rememberSeat({ id: made.id, token: made.token, seat: made.seat, opponent: S().opponent });
    localStorage.setItem(key, made.url);
    location.assign(made.url);
  } catch (e) {
    showMessage(e.message, "error");
    $("ready-note").textContent = e.message;
    await pollRematch();
    $("again-button").disabled = false;
  }
}

// ------------------------------------------------------------------ record

async function downloadRecord() {
  try {
    const rec = await api(`${base()}/record`, { token: store.token });
    downloadJson(rec, `gin-rummy-${S() ? S().id : store.matchId}.json`);
    showMessage(S() && S().status === "finished" ? "The match record was downloaded." : "The record of the hands already over was downloaded.");
  } catch (e) {
    showMessage(e.message, "error");
  }
}

// ------------------------------------------------------------------ keyboard

function handCards() {
  return [...$("my-hand").querySelectorAll("button[data-card]")];
}

function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.key === "Tab" && trapFocus(ev)) return;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
  if (ev.key === "Escape") {
    for (const id of MODALS) if (!$(id).hidden) closeOverlay(id);
    if (store.knockMode) {
      store.knockMode = false;
      renderHand(S(), false, null);
    }
    return;
  }
  if (!S()) return;
  if (!$("replay-overlay").hidden) {
    if (ev.key === "ArrowLeft" && replay.step > 0) loadReplay(replay.step - 1);
    if (ev.key === "ArrowRight" && replay.step < replay.steps) loadReplay(replay.step + 1);
    return;
  }
  const cards = handCards();
  const focused = cards.indexOf(document.activeElement);
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  switch (key) {
    case "ArrowLeft":
    case "ArrowRight": {
      if (!cards.length || !$("hand-over").hidden) return;
      ev.preventDefault();
      const step = key === "ArrowLeft" ? -1 : 1;
      if (ev.shiftKey && focused >= 0) {
        // Shift+arrow moves the card itself: arranging by keyboard.
        const code = cards[focused].dataset.card;
        const order = nudge($("my-hand"), code, step);
        if (order) {
          saveOrder(order);
          renderHand(S(), false, null);
          handCards().find((c) => c.dataset.card === code)?.focus();
        }
        return;
      }
      const next = focused < 0 ? (step > 0 ? 0 : cards.length - 1) : (focused + step + cards.length) % cards.length;
      cards[next].focus();
      return;
    }
    case "Home":
    case "End":
      if (focused >= 0) {
        ev.preventDefault();
        cards[key === "Home" ? 0 : cards.length - 1].focus();
      }
      return;
    case "d":
      if (focused >= 0) discard(cards[focused].dataset.card, false);
      return;
    case "k":
      if (focused >= 0) discard(cards[focused].dataset.card, true);
      else if ((S().knock_discards || []).length && inDiscardPhase()) {
        store.knockMode = !store.knockMode;
        renderHand(S(), false, null);
      }
      return;
    case "g":
      saveOrder(null);
      renderHand(S(), false, null);
      return;
    case "s":
      drawStock();
      return;
    case "p":
      drawPile();
      return;
    case "t":
      if (S().view.phase === "offer" && canDrawPile()) drawPile();
      return;
    case "n":
      if (S().hand_over) nextHand();
      else pass();
      return;
    default:
  }
}

// ------------------------------------------------------------------ start

function syncToggles() {
  const m = motionOn();
  const s = soundOn();
  document.body.classList.toggle("no-motion", !m);
  $("motion-button").setAttribute("aria-pressed", String(m));
  $("motion-button").title = m ? "Card movements: on" : "Card movements: off";
  $("sound-button").setAttribute("aria-pressed", String(s));
  $("sound-button").title = s ? "Sounds: on" : "Sounds: off";
}

function wire() {
  installSuitSprite();
  setRenderHandlers({ drawStock, drawPile, discard });
  setHandlers({
    onState: applyState,
    onError: (text) => showMessage(text, "error"),
    onStatus: setConnection,
  });
  $("take-button").addEventListener("click", drawPile);
  $("pass-button").addEventListener("click", pass);
  $("knock-button").addEventListener("click", () => {
    store.knockMode = !store.knockMode;
    renderHand(S(), false, null);
    if (store.knockMode) showMessage("Knock: now click the card to discard (the ones marked K allow it).");
  });
  $("sort-button").addEventListener("click", () => {
    store.sortBy = store.sortBy === "suit" ? "rank" : "suit";
    localStorage.setItem("ginrummy.sort", store.sortBy);
    if (S()) renderHand(S(), false, null);
  });
  $("group-button").addEventListener("click", () => {
    saveOrder(null);
    if (S()) renderHand(S(), false, null);
  });
  $("next-button").addEventListener("click", nextHand);
  $("again-button").addEventListener("click", playAgain);
  $("hide-over-button").addEventListener("click", () => {
    store.dismissedOver = `${S().hand_over.hand}:${S().status}`;
    renderHandOver(S());
  });
  $("result-reopen").addEventListener("click", () => {
    store.dismissedOver = null;
    renderHandOver(S());
  });
  $("history-button").addEventListener("click", showHistory);
  $("sheet-button").addEventListener("click", () => {
    if (!S()) return;
    renderSheet($("sheet-body"));
    openOverlay("sheet-overlay");
    $("sheet-body").scrollTop = $("sheet-body").scrollHeight; // the latest hands in view
  });
  $("download-button").addEventListener("click", downloadRecord);
  $("over-download-button").addEventListener("click", downloadRecord);
  $("replay-button").addEventListener("click", openReplay);
  $("replay-prev").addEventListener("click", () => loadReplay(Math.max(0, replay.step - 1)));
  $("replay-next").addEventListener("click", () => loadReplay(Math.min(replay.steps, replay.step + 1)));
  $("replay-first").addEventListener("click", () => loadReplay(0));
  $("replay-last").addEventListener("click", () => loadReplay(replay.steps));
  $("replay-range").addEventListener("change", (e) => loadReplay(Number(e.target.value)));
  $("help-button").addEventListener("click", (e) => {
    const help = $("help");
    help.hidden = !help.hidden;
    e.currentTarget.setAttribute("aria-expanded", String(!help.hidden));
  });
  $("motion-button").addEventListener("click", () => {
    setMotion(!motionOn());
    syncToggles();
  });
  $("sound-button").addEventListener("click", () => {
    setSound(!soundOn());
    syncToggles();
    if (soundOn()) sound("turn");
  });
  $("copy-invite").addEventListener("click", async () => {
    const link = $("invite-link");
    try {
      await navigator.clipboard.writeText(link.value);
      showMessage("Invite link copied.");
    } catch {
      link.select();
      showMessage("Select the link and copy it.");
    }
  });
  document.querySelectorAll("[data-close]").forEach((b) =>
    b.addEventListener("click", () => closeOverlay(b.dataset.close)),
  );
  for (const id of MODALS) {
    $(id).addEventListener("click", (e) => {
      if (e.target.id === id) closeOverlay(id);
    });
  }
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => location.reload());
  syncToggles();
}

function useToken(t) {
  // Keep the seat's token in this browser and in the fragment (never path or query), so
  // a reload or a bookmark reopens the seat; replaceState fires no hashchange.
  store.token = t;
  history.replaceState(null, "", `${location.pathname}#token=${encodeURIComponent(t)}`);
}

/** A friend opening the invite: ask their name, then take the seat (once). */
function askNameAndJoin() {
  return new Promise((resolve) => {
    const mine = loadSeats().find((s) => s.id === store.matchId && s.seat === 1);
    if (mine) {
      // This browser already took the seat: reopen it.
      useToken(mine.token);
      resolve(true);
      return;
    }
    $("join-panel").hidden = false;
    $("join-name").value = localStorage.getItem("ginrummy.name") || "";
    $("join-name").focus();
    $("join-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const name = $("join-name").value.trim();
      if (name) localStorage.setItem("ginrummy.name", name);
      $("join-button").disabled = true;
      try {
        const got = await joinWithCode(name);
        rememberSeat({ id: got.id, token: got.token, seat: got.seat, opponent: "friend" });
        useToken(got.token);
        $("join-panel").hidden = true;
        resolve(true);
      } catch (e) {
        $("join-button").disabled = false;
        if (e.status === 400) {
          $("join-message").textContent = e.message;
          return;
        }
        stop(e.message);
        resolve(false);
      }
    });
  });
}

async function start() {
  wire();
  initCoach();
  const fatal = (text) => stop(text);
  if (store.matchId && !store.token && store.inviteCode && !(await askNameAndJoin())) return;
  if (!store.matchId || !store.token) {
    stop("This table link has no seat token. Open the exact link you were given, or start a table from the lobby.");
    return;
  }
  refresh(fatal);
  connect(fatal);
}

start();
