// Play by ear: the table told in words, for a screen reader (lichess's blind mode is the
// model). A visually hidden log (#speech, role="log") gets a sentence for what happens:
// the opponent's moves, the up-card of a new hand, the showdown (who knocked, the melds,
// the deadwood, the lay-offs, the hand's points) and the score; the player's own moves
// get a short confirmation. On request (play.js: R and I, and their buttons) it reads the
// hand by melds and deadwood, and says the table: whose turn, the discard pile, the stock
// and the scores. Every card is named in words ("the seven of clubs"), never as a symbol.

import { RANKS, RANK_WORDS, SUITS, SUIT_WORDS, cardWords } from "./cards.js";
import { endLine } from "./clock.js";
import { resultLine } from "./dialogs.js";
import { lang, number, t, tn } from "./i18n.js";
import { me, nameOf, opp, store } from "./state.js";

const KEEP = 40; // lines the log keeps (older ones go; a removal is never read out)

/** Put a sentence into the live region, where a screen reader reads it out. */
export function announce(text) {
  const log = document.getElementById("speech");
  if (!log || !text) return;
  const line = document.createElement("p");
  line.textContent = text;
  log.append(line);
  log.dataset.count = String(Number(log.dataset.count || 0) + 1); // sentences said so far
  while (log.childElementCount > KEEP) log.firstElementChild.remove();
}

/** Items as the page's language lists them ("a, b and c"; "a, b or c"). */
function list(items, type = "conjunction") {
  try {
    return new Intl.ListFormat(lang, { style: "long", type }).format(items);
  } catch {
    return items.join(", ");
  }
}

// A card as the object of a verb, with the article its rank takes in the language
// ("took the seven of clubs", "nahm den Kreuz-König").
const THE = {
  // TRANSLATORS: a card as the object of a verb, article included ("took the ace of clubs"); {suit} is a suit's word ("clubs")
  A: (suit) => t("the ace of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the two of clubs"); {suit} is a suit's word ("clubs")
  2: (suit) => t("the two of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the three of clubs"); {suit} is a suit's word ("clubs")
  3: (suit) => t("the three of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the four of clubs"); {suit} is a suit's word ("clubs")
  4: (suit) => t("the four of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the five of clubs"); {suit} is a suit's word ("clubs")
  5: (suit) => t("the five of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the six of clubs"); {suit} is a suit's word ("clubs")
  6: (suit) => t("the six of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the seven of clubs"); {suit} is a suit's word ("clubs")
  7: (suit) => t("the seven of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the eight of clubs"); {suit} is a suit's word ("clubs")
  8: (suit) => t("the eight of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the nine of clubs"); {suit} is a suit's word ("clubs")
  9: (suit) => t("the nine of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the ten of clubs"); {suit} is a suit's word ("clubs")
  T: (suit) => t("the ten of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the jack of clubs"); {suit} is a suit's word ("clubs")
  J: (suit) => t("the jack of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the queen of clubs"); {suit} is a suit's word ("clubs")
  Q: (suit) => t("the queen of {suit}", { suit }),
  // TRANSLATORS: a card as the object of a verb, article included ("took the king of clubs"); {suit} is a suit's word ("clubs")
  K: (suit) => t("the king of {suit}", { suit }),
};

/** "7C" -> "the seven of clubs": a card as the object of a sentence's verb. */
export function theCard(code) {
  return THE[code[0]](SUIT_WORDS[code[1]]);
}

// TRANSLATORS: a rank in the plural, as in a set of three or four cards ("three kings")
const MANY = {
  A: t("aces"), 2: t("twos"), 3: t("threes"), 4: t("fours"), 5: t("fives"), 6: t("sixes"), 7: t("sevens"),
  8: t("eights"), 9: t("nines"), T: t("tens"), J: t("jacks"), Q: t("queens"), K: t("kings"),
};

const rankIndex = (c) => RANKS.indexOf(c[0]);
const suitIndex = (c) => SUITS.indexOf(c[1]);

/** A meld in words: "run: five, six and seven of hearts", "set: three kings (clubs, hearts
 *  and spades)". */
export function meldWords(meld) {
  const cards = [...meld];
  if (cards[0][0] === cards[cards.length - 1][0]) {
    cards.sort((a, b) => suitIndex(a) - suitIndex(b));
    const ranks = MANY[cards[0][0]];
    if (cards.length >= 4) return t("set: four {ranks}", { ranks });
    return t("set: three {ranks} ({suits})", { ranks, suits: list(cards.map((c) => SUIT_WORDS[c[1]])) });
  }
  cards.sort((a, b) => rankIndex(a) - rankIndex(b));
  return t("run: {ranks} of {suit}", { ranks: list(cards.map((c) => RANK_WORDS[c[0]])), suit: SUIT_WORDS[cards[0][1]] });
}

/** A hand in words, by its melds and its deadwood: "run: ...; set: ...; deadwood: two of
 *  clubs and nine of spades (11 points)". */
export function handWords(melds, deadwoodCards, points) {
  const parts = (melds || []).map(meldWords);
  const loose = [...(deadwoodCards || [])].sort((a, b) => suitIndex(a) * 13 + rankIndex(a) - suitIndex(b) * 13 - rankIndex(b));
  if (loose.length) {
    parts.push(tn("deadwood: {cards} ({n} point)", "deadwood: {cards} ({n} points)", points,
      { cards: list(loose.map(cardWords)) }));
  } else {
    parts.push(t("no deadwood"));
  }
  return parts.join("; ");
}

/** One action of the hand's history in words, told from this seat's side. */
export function moveWords(a, seat, gin = false) {
  const you = seat === me();
  const name = nameOf(seat);
  let text = "";
  if (a.act === "pass") {
    text = you ? t("You passed on the up-card.") : t("{name} passed on the up-card.", { name });
  } else if (a.act === "draw" && a.from === "stock") {
    if (you && a.card) text = t("You drew {card} from the stock.", { card: theCard(a.card) });
    else text = you ? t("You drew from the stock.") : t("{name} drew from the stock.", { name });
  } else if (a.act === "draw" && a.card) {
    const card = theCard(a.card);
    text = you ? t("You took {card} from the discard pile.", { card })
      : t("{name} took {card} from the discard pile.", { name, card });
  } else if (a.act === "discard" && a.card) {
    const card = theCard(a.card);
    if (a.knock && gin) {
      text = you ? t("You discarded {card} and went gin.", { card }) : t("{name} discarded {card} and went gin.", { name, card });
    } else if (a.knock) {
      text = you ? t("You discarded {card} and knocked.", { card }) : t("{name} discarded {card} and knocked.", { name, card });
    } else {
      text = you ? t("You discarded {card}.", { card }) : t("{name} discarded {card}.", { name, card });
    }
  }
  if (text && a.timeout) text += " " + t("Time ran out: the table made this move.");
  return text;
}

const ended = (text) => (text && !/[.!?…。]$/.test(text) ? `${text}.` : text);

function scoreWords() {
  const S = store.S;
  return t("Score: you {mine}, {name} {theirs}.", {
    mine: number(S.scores[me()]), theirs: number(S.scores[opp()]), name: nameOf(opp()),
  });
}

function winnerWords() {
  const S = store.S;
  const w = S.winner;
  if (S.end === "aborted") return ended(t("No result"));
  const big = w == null ? t("A tie: no winner") : w === me() ? t("You win the match!") : t("{name} wins the match", { name: nameOf(w) });
  return ended(big);
}

function newHandWords() {
  const v = store.S.view;
  const hand = number(v.hand_index + 1);
  const up = v.upcard || (v.discards || [])[0];
  if (!up) return "";
  const card = theCard(up);
  return v.dealer === me() ? t("Hand {hand}: you deal; the up-card is {card}.", { hand, card })
    : t("Hand {hand}: {name} deals; the up-card is {card}.", { hand, card, name: nameOf(v.dealer) });
}

function showdownWords(ho) {
  const r = ho.result || {};
  const out = [resultLine(r)];
  if (ho.arrangements && r.result !== "dead" && r.knocker != null) {
    const laid = (ho.layoffs || []).map((x) => x.card);
    const laidSet = new Set(laid);
    for (const seat of [r.knocker, 1 - r.knocker]) {
      const arr = ho.arrangements[seat];
      if (!arr) continue;
      const points = r.deadwood ? r.deadwood[seat] : arr.deadwood;
      const words = handWords(arr.melds, (arr.deadwood_cards || []).filter((c) => !laidSet.has(c)), points);
      out.push(seat === me() ? t("Your hand: {parts}.", { parts: words })
        : t("{name}'s hand: {parts}.", { name: nameOf(seat), parts: words }));
    }
    if (laid.length) {
      const defender = 1 - r.knocker;
      const cards = list(laid.map(theCard));
      out.push(defender === me() ? t("You laid off {cards}.", { cards })
        : t("{name} laid off {cards}.", { name: nameOf(defender), cards }));
    }
  }
  out.push(scoreWords());
  return out;
}

/**
 * What changed from `prev` to the state now in the store, told in words: the moves made
 * since (the opponent's in full, the player's own briefly), a new hand's up-card, the
 * showdown and the score, the end of the match. Called by play.js for every new STATE.
 */
export function speak(prev) {
  const S = store.S;
  if (!S || !S.view || (prev && prev.version === S.version)) return;
  const v = S.view;
  const history = v.history || [];
  const sameHand = prev && prev.view.hand_index === v.hand_index && !(prev.hand_over && !S.hand_over);
  const out = [];
  const ho = S.hand_over;
  const gin = Boolean(ho && ho.result && ho.result.result === "gin");
  if (!sameHand) {
    // A new hand (or the page just opened): its up-card, unless the page opened in the
    // middle of the player's own play (then the player asks: I says the table).
    if (!ho && (prev || !history.some((a) => a.seat === me()))) out.push(newHandWords());
  }
  const seen = sameHand ? (prev.view.history || []).length : 0;
  if (prev || !history.some((a) => a.seat === me())) {
    history.slice(seen).forEach((a, i) => {
      const last = seen + i === history.length - 1;
      out.push(moveWords(a, a.seat, gin && last));
    });
  }
  const freshOver = ho && (!prev || !prev.hand_over || prev.hand_over.hand !== ho.hand);
  if (freshOver && prev) out.push(...showdownWords(ho));
  if (S.status === "finished" && prev && prev.status !== "finished") {
    if (!ho) out.push(ended(endLine(S)));
    out.push(winnerWords());
  }
  announce(out.filter(Boolean).join(" "));
}

/** The hand read out by melds and deadwood (R: the player asked). */
export function readHand() {
  const S = store.S;
  if (!S || !S.view) return;
  const arr = S.arrangement || { melds: [], deadwood_cards: S.view.hand || [], deadwood: 0 };
  const out = [t("Your hand: {parts}.", { parts: handWords(arr.melds, arr.deadwood_cards, arr.deadwood) })];
  const knocks = S.my_turn && S.view.phase === "discard" && !S.hand_over ? S.knock_discards || [] : [];
  if (knocks.length) {
    const opts = new Map((S.discard_options || []).map((o) => [o.card, o]));
    const gins = knocks.filter((c) => opts.get(c) && opts.get(c).gin);
    const cards = list((gins.length ? gins : knocks).map(theCard), "disjunction");
    out.push(gins.length ? t("Discard {cards} to go gin.", { cards }) : t("You may knock by discarding {cards}.", { cards }));
  }
  announce(out.join(" "));
}

/** The table in words (I: the player asked): whose turn, the opponent's last move, the discard
 *  pile's top card, the stock, what the opponent is known to hold, the scores. */
export function sayTable() {
  const S = store.S;
  if (!S || !S.view) return;
  const v = S.view;
  const out = [];
  if (S.status === "finished") out.push(t("The match is over."), winnerWords());
  else if (S.hand_over) out.push(t("The hand is over: press N for the next hand."));
  else if (S.status === "waiting" && !S.my_turn) out.push(t("Waiting for your opponent to join."));
  else if (S.my_turn) {
    out.push(v.phase === "offer" ? t("Your turn: take the up-card (T) or pass (N).")
      : v.phase === "draw" ? t("Your turn: draw from the stock (S) or take the discard (P).")
        : t("Your turn: discard a card."));
  } else {
    out.push(t("{name}'s turn.", { name: nameOf(v.to_play) }));
  }
  const theirs = (v.history || []).filter((a) => a.seat !== me()); // the opponent's last move
  if (theirs.length && !S.hand_over) out.push(moveWords(theirs[theirs.length - 1], theirs[theirs.length - 1].seat));
  const discards = v.discards || [];
  if (!S.hand_over) {
    out.push(discards.length ? t("On the discard pile: {card}.", { card: cardWords(discards[discards.length - 1]) })
      : t("The discard pile is empty."));
    out.push(tn("{n} card left in the stock.", "{n} cards left in the stock.", v.stock_count));
    const held = S.opponent_known || [];
    if (held.length) {
      out.push(t("{name} took from the pile and still holds {cards}.", { name: nameOf(opp()), cards: list(held.map(theCard)) }));
    }
    if (S.arrangement) out.push(tn("Your deadwood: {n} point.", "Your deadwood: {n} points.", S.arrangement.deadwood));
  }
  const o = S.options || {};
  const hand = number(v.hand_index + 1);
  out.push(o.hands ? ended(t("Hand {hand} of {hands}", { hand, hands: number(o.hands) }))
    : t("Hand {hand}, playing to {target}.", { hand, target: number(o.target || 100) }));
  out.push(scoreWords());
  announce(out.filter(Boolean).join(" "));
}
