// Shared by the training pages (puzzles.js, analysis.js) and the pages that open the
// analysis board (review.js): moves in words, percentages, and the position a page hands
// to the board (docs/training.md, "The analysis board").

import { cardShort } from "./cards.js";
import { decimal } from "./dom.js";
import { t } from "./i18n.js";

/** A move in words: "draw from the stock", "knock with 7♣". */
export function actionWords(a) {
  if (!a) return "";
  // TRANSLATORS: a move in words, shown alone or after "Right:", "The best move:" (lower case)
  if (a.act === "pass") return t("pass");
  if (a.act === "draw") {
    if (a.from === "stock") return t("draw from the stock");
    return a.card ? t("take the {card}", { card: cardShort(a.card) }) : t("take the discard");
  }
  if (a.knock) return t("knock with {card}", { card: cardShort(a.card) });
  return t("discard {card}", { card: cardShort(a.card) });
}

/** Whether two moves are the same (the legal list's objects may carry more keys). */
export function sameAction(a, b) {
  if (!a || !b) return false;
  return a.act === b.act && (a.from || null) === (b.from || null) &&
    (a.act !== "discard" || (a.card === b.card && Boolean(a.knock) === Boolean(b.knock)));
}

/** 0.4567 -> "45.7%" (as the page's language writes a percentage). */
export const pct = (v, digits = 1) => percent(100 * v, digits);

/** 45.67 -> "45.7%": a number already in percent, as the page's language writes it. */
// TRANSLATORS: a percentage ({value} is the number: "45.7"); e.g. "{value} %" where usual
export const percent = (value, digits = 1) => t("{value}%", { value: decimal(value, digits) });

/**
 * The position the analysis board reads (docs/web-api.md, "A position"), from a seat's
 * facts: `context` as a puzzle gives it ({seat, dealer, hand, pile, opponent_took,
 * opponent_discarded, opponent_passed, stock, to_play, scores: [the seat's, the
 * opponent's], target, upcard}), the view's options, and its history (which fixes the
 * order of events the lists leave open).
 */
export function positionOf(context, { options = {}, history = null } = {}) {
  const seat = context.seat || 0;
  const [mine, theirs] = context.scores || [0, 0];
  const pos = {
    seat,
    hand: context.hand,
    pile: context.pile,
    opponent_took: context.opponent_took || [],
    opponent_discarded: context.opponent_discarded || [],
    opponent_passed: context.opponent_passed || [],
    stock: context.stock,
    to_play: context.to_play,
    scores: seat === 0 ? [mine, theirs] : [theirs, mine],
    options: {
      target: options.target ?? context.target ?? 100,
      gin_only: Boolean(options.gin_only),
      oklahoma: Boolean(options.oklahoma),
    },
  };
  if (context.dealer !== undefined && context.dealer !== null) pos.dealer = context.dealer;
  if (context.upcard) pos.upcard = context.upcard;
  if (history) pos.history = history;
  return pos;
}

/**
 * What `seat` saw of a hand's moves so far (R11), for a position: its opponent's takes,
 * discards and pass of the up-card, in order, and the moves as its view's history (the
 * opponent's stock draws unnamed; a page's own keys, such as `words`, left out).
 */
export function seenMoves(moves, seat, upcard) {
  const took = [];
  const threw = [];
  const passed = [];
  const history = moves.map(({ words, ...a }) => {
    if (a.seat === seat) return a;
    if (a.act === "draw" && a.from === "discard" && a.card) took.push(a.card);
    else if (a.act === "discard") threw.push(a.card);
    else if (a.act === "pass") passed.push(upcard);
    if (a.act === "draw" && a.from === "stock") delete a.card;
    return a;
  });
  return { opponent_took: took, opponent_discarded: threw, opponent_passed: passed, history };
}

/** The board's address with a position in its fragment (never sent to the server). */
export function analysisHref(position) {
  return `/analysis#position=${encodeURIComponent(JSON.stringify(position))}`;
}

/** The position in this page's fragment, or null. */
export function positionInFragment() {
  const raw = new URLSearchParams(location.hash.slice(1)).get("position");
  if (!raw) return null;
  try {
    const p = JSON.parse(raw);
    return p && typeof p === "object" ? p : null;
  } catch {
    return null;
  }
}
