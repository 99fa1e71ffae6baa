// The table page's state: the latest STATE from the server (docs/web-api.md) and this
// browser's own choices (card order, motion, sound). The server is authoritative (R11):
// nothing here re-derives a rule; deadwood, knocks and gin come in STATE.

import { t } from "./i18n.js";

const fragment = new URLSearchParams(location.hash.slice(1));

/** Everything the page knows; render functions read it, only the controller writes it. */
export const store = {
  matchId: decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || ""),
  token: fragment.get("token") || "", // this seat's secret (set by joining with an invite)
  inviteCode: fragment.get("invite") || "", // a friend's single-use invitation
  session: false, // no token here: the logged-in account's seat (its session cookie)
  S: null, // the latest STATE
  busy: false, // a move is on its way to the server
  knockMode: false,
  sortBy: localStorage.getItem("ginrummy.sort") === "rank" ? "rank" : "suit",
  dismissedOver: null, // "hand:status" of the result panel the player closed
  fatal: false,
  rematch: null, // {offered_by, accepted} of a finished match
  withheld: null, // why the match's record, replay and review are withheld now (a daily's day)
  lesson: null, // Learn to play (learn.js): {act, next} when this page is the lesson
};

export const base = () => `/api/matches/${encodeURIComponent(store.matchId)}`;

// ------------------------------------------------------------------ reading STATE

export const me = () => store.S.seat;
export const opp = () => 1 - store.S.seat;
// The computer's seat at a table against it, named in the page's language (STATE's
// players name it in English: "Easy computer").
const COMPUTER_NAMES = {
  easy: t("Easy computer"), medium: t("Medium computer"), hard: t("Hard computer"), expert: t("Expert computer"),
};
export const nameOf = (seat) => {
  const S = store.S;
  const computer = S && S.opponent === "computer" && seat !== S.seat ? COMPUTER_NAMES[S.bot] : null;
  const name = computer || (S && S.players && S.players[seat]) || (seat === me() ? t("You") : t("Opponent"));
  return store.S && store.S.bots && store.S.bots[seat] ? `BOT ${name}` : name; // a BOT account
};
const legalHas = (pred) => (store.S && Array.isArray(store.S.legal) ? store.S.legal.some(pred) : false);
export const canDrawStock = () => legalHas((a) => a.act === "draw" && a.from === "stock");
export const canDrawPile = () => legalHas((a) => a.act === "draw" && a.from === "discard");
export const canPass = () => legalHas((a) => a.act === "pass");
export const inDiscardPhase = () => {
  const S = store.S;
  return Boolean(S && S.my_turn && S.view.phase === "discard" && !S.hand_over);
};

/** The server's figures for each discard: card -> {leaves, legal, knock, gin}. */
export function discardOptions() {
  const map = new Map();
  for (const o of (store.S && store.S.discard_options) || []) map.set(o.card, o);
  return map;
}

/** Cards this seat may knock with now (R6), from the server. */
export const knockCards = () => (inDiscardPhase() ? store.S.knock_discards || [] : []);

/** The card just taken from the discard pile, which may not go straight back (R5). */
export function takenThisTurn() {
  if (!inDiscardPhase()) return null;
  const h = store.S.view.history || [];
  const last = h[h.length - 1];
  if (last && last.seat === me() && last.act === "draw" && last.from === "discard") return last.card;
  return null;
}

// ------------------------------------------------------------------ the player's card order

const orderKey = () => `ginrummy.order.${store.matchId}.${store.S ? store.S.seat : 0}`;

/**
 * The order the player arranged, for this hand only: {hand, cards} or null (then the
 * melds are grouped automatically). Kept in localStorage so it survives reloads.
 */
export function savedOrder() {
  if (!store.S) return null;
  try {
    const o = JSON.parse(localStorage.getItem(orderKey()) || "null");
    if (o && o.hand === store.S.view.hand_index && Array.isArray(o.cards)) return o.cards;
  } catch {
    /* unreadable: start over */
  }
  return null;
}

/** Remember the player's order (null: back to automatic grouping). */
export function saveOrder(cards) {
  try {
    if (cards === null) localStorage.removeItem(orderKey());
    else localStorage.setItem(orderKey(), JSON.stringify({ hand: store.S.view.hand_index, cards }));
  } catch {
    /* private mode: the order lasts until the page closes */
  }
}

/**
 * The hand in the player's order: cards they placed keep their places, a card drawn since
 * goes at the end, a discarded one drops out. Null when the player never arranged this hand.
 */
export function arrangedHand(hand) {
  const saved = savedOrder();
  if (!saved) return null;
  const inHand = new Set(hand);
  const kept = saved.filter((c) => inHand.has(c));
  const known = new Set(kept);
  return kept.concat(hand.filter((c) => !known.has(c)));
}

// ------------------------------------------------------------------ preferences

const reduced = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** Card animations: on unless the player turned them off or the system asks for less motion. */
export function motionOn() {
  const v = localStorage.getItem("ginrummy.motion");
  return v === null ? !reduced() : v === "on";
}

export function setMotion(on) {
  localStorage.setItem("ginrummy.motion", on ? "on" : "off");
}

/** Sounds: on unless turned off. */
export function soundOn() {
  return localStorage.getItem("ginrummy.sound") !== "off";
}

export function setSound(on) {
  localStorage.setItem("ginrummy.sound", on ? "on" : "off");
}
