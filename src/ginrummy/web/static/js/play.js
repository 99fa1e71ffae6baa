// The table page's controller: turns clicks and keys into moves (transport.js), feeds each
// new STATE to the renderers (render.js, dialogs.js). The server judges every move (R5,
// R6) and this page only ever holds what its seat may see (R11).

import { downloadFile, loadSeats, rememberSeat, signedIn, useSession } from "./api.js";
import { cardSpoken, installSuitSprite } from "./cards.js";
import { chatSocketClosed, chatSocketMessage, chatSocketOpened, startTableChat } from "./chat.js";
import { initCoach, renderCoach } from "./coach.js";
import { nudge } from "./arrange.js";
import {
  MODALS, closeOverlay, loadReplay, openOverlay, openReplay, renderHandOver, renderRematch,
  renderSheet, replay, showHistory, trapFocus,
} from "./dialogs.js";
import { noRematch, renderEnding } from "./ending.js";
import { renderFairness } from "./fairness.js";
import { askEnd, cancelEnd, clockState, confirmEnd, notifyOn, syncClock, toggleNotify } from "./clock.js";
import { withNodes } from "./dom.js";
import { sound } from "./fx.js";
import { number, t } from "./i18n.js";
import { OFFLINE, installApp } from "./install.js";
import { applyCardPrefs, cardPref, setCardPref } from "./prefs.js";
import {
  $, clearRefusal, el, renderHand, renderTable, setHandlers as setRenderHandlers, showMessage, snapshot,
} from "./render.js";
import { readHand, sayTable, speak } from "./speech.js";
import {
  base, canDrawPile, canDrawStock, canPass, discardOptions, inDiscardPhase, me, motionOn, nameOf,
  saveOrder, setMotion, setSound, soundOn, store,
} from "./state.js";
import {
  askRematch, connect, joinWithCode, rematchStatus, refresh, sendAction, sendNext, setHandlers, setSocketHooks,
  stopPolling,
} from "./transport.js";

// ------------------------------------------------------------------ state in

function applyState(st) {
  if (!st || typeof st !== "object" || !st.view) return;
  const prev = store.S;
  if (prev && st.id === prev.id && st.version < prev.version) return; // an older echo
  const rects = prev ? snapshot() : null;
  store.S = st;
  if (!prev && !store.lesson) {
    rememberSeat({ id: st.id, token: store.token, seat: st.seat, players: st.players, opponent: st.opponent });
    // the players' chat (chat.js): beside the table, or in a drawer on a phone; none
    // against the computer
    if (st.opponent !== "computer") {
      startTableChat({ path: base(), token: store.token, seat: st.seat, match: st.id, panel: $("chat"),
        toggleHost: document.querySelector("#table .turn-row") });
    }
  }
  if (prev && st.version > prev.version && !st.my_turn) clearRefusal(); // the turn moved on
  if (!st.my_turn || st.view.phase !== "discard") store.knockMode = false;
  if (st.knock_discards && st.knock_discards.length === 0) store.knockMode = false;
  renderTable(prev, rects);
  const news = clockState(prev, st); // the clocks, the tab title, "your move" (sound too)
  if (news) showMessage(news);
  renderHandOver(prev);
  speak(prev); // the news in words, for a screen reader (speech.js)
  // A new position (the turn moved on, or the page caught up): the question no longer stands.
  if (!$("knock-ask").hidden && (!prev || prev.version !== st.version)) closeKnockAsk();
  if (!$("sheet-overlay").hidden) renderSheet($("sheet-body"));
  if (store.lesson) return; // Learn to play has no coach, rematch or sealed deals
  renderCoach();
  renderEnding(); // (after the coach's Review link: a withheld daily match has none yet)
  watchRematch();
  renderFairness();
}

function stop(text) {
  store.fatal = true;
  stopPolling();
  // Without a table the table's own buttons have nothing to act on: only the pages stay.
  for (const id of ["sheet-button", "download-button", "help-button", "resign-button", "abort-button",
    "menu-resign-button", "menu-abort-button"]) $(id).hidden = true;
  document.querySelector(".menu-wrap").hidden = true;
  $("table").hidden = true;
  $("invite").hidden = true;
  $("join-panel").hidden = true;
  const c = $("connection");
  c.hidden = false;
  c.className = "panel";
  c.replaceChildren(
    el("p", { text }),
    el("p", {}, ...withNodes(t("{link} to start a new table."), { link: el("a", { href: "/", text: t("Go to the lobby") }) })),
  );
}

function setConnection(text) {
  if (store.fatal) return;
  const shown = text && !navigator.onLine ? OFFLINE : text;
  $("connection").textContent = shown;
  $("connection").hidden = !shown;
}

// ------------------------------------------------------------------ moves out

const S = () => store.S;

function act(action) {
  clearRefusal(); // a refusal lasts until the player's next action
  return store.lesson ? store.lesson.act(action) : sendAction(action);
}

function drawStock() {
  if (!S() || S().hand_over) return;
  clearRefusal();
  if (canDrawStock()) act({ act: "draw", from: "stock" });
  else if (!S().my_turn) showMessage(t("It is {name}'s turn.", { name: nameOf(S().view.to_play) }));
  else if (S().view.phase === "offer") showMessage(t("First take the up-card or pass."));
  else if (S().view.phase === "discard") showMessage(t("You have drawn already: now discard a card."));
}

function drawPile() {
  if (!S() || S().hand_over) return;
  clearRefusal();
  if (canDrawPile()) act({ act: "draw", from: "discard" });
  else if (!S().my_turn) showMessage(t("It is {name}'s turn.", { name: nameOf(S().view.to_play) }));
  else if (S().view.phase === "discard") showMessage(t("You have drawn already: now discard a card."));
}

function pass() {
  if (canPass()) act({ act: "pass" });
}

function discard(card, knock) {
  if (!S() || S().hand_over) return;
  clearRefusal();
  if (!S().my_turn) return showMessage(t("Wait for your turn: it is {name}'s.", { name: nameOf(S().view.to_play) }));
  if (S().view.phase === "offer") return showMessage(t("First take the up-card or pass."));
  if (S().view.phase === "draw") return showMessage(t("Draw first: click the stock or the discard pile."));
  // The server judges every discard, so its exact sentence reaches the player (R5, R6).
  if (knock) sound("knock");
  return act({ act: "discard", card, knock: Boolean(knock) });
}

function nextHand() {
  if (store.lesson) return store.lesson.next();
  if (!S() || !S().hand_over || S().status === "finished") return;
  if (S().hand_over.ready && S().hand_over.ready[me()]) return;
  clearRefusal();
  sendNext();
}

/**
 * A click (or Enter) on a card of the hand. With the Knock button pressed it knocks. A
 * card that goes gin goes gin at once (R6: gin is always allowed, and a click never throws
 * a gin away); a card that allows a knock asks first, knock or just discard; any other card
 * is discarded (the server judges it, R5).
 */
function playCard(card) {
  if (store.knockMode) return discard(card, true);
  const o = inDiscardPhase() ? discardOptions().get(card) : null;
  if (o && o.legal && o.gin && (S().knock_discards || []).includes(card)) {
    return act({ act: "discard", card, knock: true }); // the result panel sounds the gin
  }
  if (o && o.legal && o.knock) return askKnock(card, o);
  return discard(card, false);
}

let asked = null; // the card the knock question is about

function askKnock(card, o) {
  clearRefusal();
  asked = card;
  // (the card shown as "9♠", read out in words)
  $("knock-ask-title").replaceChildren(...withNodes(t("Knock with the {card}?"), { card: cardSpoken(card) }));
  $("knock-ask-text").replaceChildren(...withNodes(
    t("Discarding the {card} leaves you {left} deadwood, so you may knock: the hand ends now " +
    "and both hands are shown. Or just discard it and play on.", { left: number(o.leaves) }),
    { card: cardSpoken(card) }));
  openOverlay("knock-ask");
  $("knock-ask-knock").focus();
}

function closeKnockAsk() {
  asked = null;
  closeOverlay("knock-ask");
}

function answerKnock(knock) {
  const card = asked;
  closeKnockAsk();
  if (card) discard(card, knock);
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
  const on = S() && S().status === "finished" && S().opponent !== "computer" && !noRematch();
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
  closeMenu();
  if (store.lesson) return;
  try {
    // The server's bytes as they are: `ginrummy verify` checks them (re-encoding the JSON
    // here would round the 64-bit seed to a JavaScript number).
    await downloadFile(`${base()}/record`, `ginrummy-${S() ? S().id : store.matchId}.json`, store.token);
    showMessage(S() && S().status === "finished" ? t("The match record was downloaded.") : t("The record of the hands already over was downloaded."));
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
  const target = ev.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")) return;
  if (ev.key === "Escape") {
    if (!$("table-menu").hidden) {
      closeMenu();
      $("menu-button").focus();
      return;
    }
    if (!$("knock-ask").hidden) closeKnockAsk();
    if (!$("end-ask").hidden) cancelEnd();
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
  if (MODALS.some((id) => !$(id).hidden)) return; // a dialog has the keys
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
    case "r":
      readHand();
      return;
    case "i":
      sayTable();
      return;
    default:
  }
}

// ------------------------------------------------------------------ start

function syncToggles() {
  const m = motionOn();
  document.body.classList.toggle("no-motion", !m);
  applyCardPrefs();
  const on = {
    "motion-button": m, "sound-button": soundOn(),
    "four-colour-button": cardPref("fourColour"), "large-cards-button": cardPref("largeCards"),
    "notify-button": notifyOn(),
  };
  for (const [id, value] of Object.entries(on)) $(id).setAttribute("aria-pressed", String(value));
}

// The Options menu: a disclosure button and its panel of switches (and, on a phone, the
// buttons the top bar has no room for).
function openMenu(open) {
  $("table-menu").hidden = !open;
  $("menu-button").setAttribute("aria-expanded", String(open));
}

function closeMenu() {
  if (!$("table-menu").hidden) openMenu(false);
}

function showKeys() {
  closeMenu();
  openOverlay("keys-overlay");
}

function wire() {
  installSuitSprite();
  setRenderHandlers({ drawStock, drawPile, playCard });
  setHandlers({
    onState: applyState,
    onError: (text) => showMessage(text, "error"),
    onStatus: setConnection,
  });
  setSocketHooks({ message: chatSocketMessage, opened: chatSocketOpened, closed: chatSocketClosed });
  $("take-button").addEventListener("click", drawPile);
  $("pass-button").addEventListener("click", pass);
  $("knock-button").addEventListener("click", () => {
    store.knockMode = !store.knockMode;
    renderHand(S(), false, null);
    if (!store.knockMode) return;
    const opts = discardOptions();
    const gins = (S().knock_discards || []).filter((c) => opts.get(c) && opts.get(c).gin);
    showMessage(gins.length === (S().knock_discards || []).length
      ? t("Gin: now click the card to discard (the one marked GIN).")
      : t("Knock: now click the card to discard (the ones marked K, or GIN for gin, allow it)."));
  });
  $("knock-ask-knock").addEventListener("click", () => answerKnock(true));
  $("knock-ask-discard").addEventListener("click", () => answerKnock(false));
  $("knock-ask-cancel").addEventListener("click", closeKnockAsk);
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
  $("read-hand-button").addEventListener("click", readHand);
  $("menu-read-hand-button").addEventListener("click", () => { closeMenu(); readHand(); });
  $("say-table-button").addEventListener("click", () => { closeMenu(); sayTable(); });
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
  $("menu-download-button").addEventListener("click", downloadRecord);
  $("over-download-button").addEventListener("click", downloadRecord);
  $("replay-button").addEventListener("click", openReplay);
  $("replay-prev").addEventListener("click", () => loadReplay(Math.max(0, replay.step - 1)));
  $("replay-next").addEventListener("click", () => loadReplay(Math.min(replay.steps, replay.step + 1)));
  $("replay-first").addEventListener("click", () => loadReplay(0));
  $("replay-last").addEventListener("click", () => loadReplay(replay.steps));
  $("replay-range").addEventListener("change", (e) => loadReplay(Number(e.target.value)));
  $("help-button").addEventListener("click", showKeys);
  $("menu-help-button").addEventListener("click", showKeys);
  $("menu-button").addEventListener("click", () => openMenu($("table-menu").hidden));
  document.addEventListener("click", (e) => {
    if (!e.target.closest(".menu-wrap")) closeMenu();
  });
  document.querySelector(".menu-wrap").addEventListener("focusout", (e) => {
    if (e.relatedTarget && !e.currentTarget.contains(e.relatedTarget)) closeMenu(); // tabbed away
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
  $("notify-button").addEventListener("click", async () => {
    try {
      showMessage((await toggleNotify()) ? t("You will be notified when it is your move.") : t("Notifications are off."));
    } catch (e) {
      showMessage(e.message, "error");
    }
    syncToggles();
  });
  for (const [id, what] of [["resign-button", "resign"], ["menu-resign-button", "resign"],
    ["abort-button", "abort"], ["menu-abort-button", "abort"]]) {
    $(id).addEventListener("click", () => { closeMenu(); askEnd(what); });
  }
  $("end-ask-cancel").addEventListener("click", cancelEnd);
  $("end-ask-yes").addEventListener("click", () => confirmEnd(applyState, (text) => showMessage(text, "error")));
  $("four-colour-button").addEventListener("click", () => {
    setCardPref("fourColour", !cardPref("fourColour"));
    syncToggles();
  });
  $("large-cards-button").addEventListener("click", () => {
    setCardPref("largeCards", !cardPref("largeCards"));
    syncToggles();
  });
  $("copy-invite").addEventListener("click", async () => {
    const link = $("invite-link");
    try {
      await navigator.clipboard.writeText(link.value);
      showMessage(t("Invite link copied."));
    } catch {
      link.select();
      showMessage(t("Select the link and copy it."));
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
  window.addEventListener("offline", () => setConnection(OFFLINE));
  window.addEventListener("online", () => {
    setConnection("");
    if (!store.lesson && (store.token || store.session)) refresh();
  });
  syncToggles();
}

function useToken(token) {
  // Keep the seat's token in this browser and in the fragment (never path or query), so
  // a reload or a bookmark reopens the seat; replaceState fires no hashchange.
  store.token = token;
  history.replaceState(null, "", `${location.pathname}#token=${encodeURIComponent(token)}`);
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

const NO_SEAT = t("This table link has no seat token. Open the exact link you were given, or log in to "
  + "play your account's seat, or start a table from the lobby.");

async function start() {
  wire();
  installApp();
  if (location.pathname === "/learn") {
    // Learn to play: this page on a prepared deal, moves checked by the lesson (learn.js).
    const { startLesson } = await import("./learn.js");
    await startLesson({ applyState, nextHand: () => store.lesson && store.lesson.next(), stop });
    return;
  }
  initCoach();
  // A session's seat the table refuses (401: not logged in) is a link without its token.
  const fatal = (text, status) => stop(store.session && status === 401 ? NO_SEAT : text);
  if (store.matchId && !store.token && store.inviteCode && !(await askNameAndJoin())) return;
  if (store.matchId && !store.token && !store.inviteCode) {
    // No seat link here: a logged-in account plays its own seat from any browser (a
    // guest needs the link). The table itself says whether the session holds a seat (a
    // guest's request is refused 401): who is signed in is not asked first, so a busy
    // site (the address's reads spent) never reads as "no seat". The session's CSRF
    // token follows when the site answers (a change carries the page's Origin till then).
    store.session = true;
    signedIn().then((acct) => { if (acct) useSession(acct.csrf); });
  }
  if (!store.matchId || !(store.token || store.session)) {
    stop(NO_SEAT);
    return;
  }
  syncClock();
  refresh(fatal);
  connect(fatal);
}

start();
