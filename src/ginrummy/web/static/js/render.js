// Drawing the table from the state (state.js): scoreboard, opponent, piles, offer, hand.
// Every figure shown (deadwood, what a discard leaves, knock and gin, the opponent's known
// cards) is the server's; this module only lays it out.

import { cardBack, cardElement, cardName, cardShort, cardSpoken, cardWords, sortCards } from "./cards.js";
import { enableArranging } from "./arrange.js";
import { el, withNodes } from "./dom.js";
import { flyFrom, popIn, sound } from "./fx.js";
import { number, t, tn } from "./i18n.js";
import {
  arrangedHand, canDrawPile, canDrawStock, canPass, discardOptions, inDiscardPhase, knockCards,
  me, nameOf, opp, saveOrder, store, takenThisTurn,
} from "./state.js";

export const $ = (id) => document.getElementById(id);

export { el } from "./dom.js";

// ------------------------------------------------------------------ messages

let messageTimer = 0;

/** Say something in the message line; refusals stay until the player's next action. */
export function showMessage(text, kind = "info") {
  const box = $("message");
  clearTimeout(messageTimer);
  box.className = `message ${kind}`;
  box.textContent = text;
  if (kind === "error") {
    box.classList.remove("shake");
    void box.offsetWidth; // restart the animation
    box.classList.add("shake");
    sound("error");
    return;
  }
  if (text) {
    messageTimer = setTimeout(() => {
      if (box.textContent === text) box.textContent = "";
    }, 6000);
  }
}

/** Clear a refusal (the player acted again, or the turn moved on). */
export function clearRefusal() {
  const box = $("message");
  if (box.classList.contains("error")) {
    box.textContent = "";
    box.className = "message";
  }
}

export function describeAction(a, seat) {
  const you = seat === me();
  const name = nameOf(seat);
  const card = a.card ? cardShort(a.card) : "";
  if (a.act === "pass") return you ? t("You pass on the up-card.") : t("{name} passes on the up-card.", { name });
  if (a.act === "draw" && a.from === "stock") {
    if (card) {
      return you ? t("You draw from the stock ({card}).", { card })
        : t("{name} draws from the stock ({card}).", { name, card });
    }
    return you ? t("You draw from the stock.") : t("{name} draws from the stock.", { name });
  }
  if (a.act === "draw") {
    if (card) return you ? t("You take {card}.", { card }) : t("{name} takes {card}.", { name, card });
    return you ? t("You take the top discard.") : t("{name} takes the top discard.", { name });
  }
  if (a.act === "discard") {
    if (a.knock) {
      return you ? t("You discard {card} and knock.", { card })
        : t("{name} discards {card} and knocks.", { name, card });
    }
    return you ? t("You discard {card}.", { card }) : t("{name} discards {card}.", { name, card });
  }
  return "";
}

// ------------------------------------------------------------------ the table

let handlers = {};

/** The controller's moves, called from clicks: drawStock, drawPile, playCard(code). */
export function setHandlers(h) {
  handlers = h;
}

/** Screen rectangles before a re-render, so moved cards can fly from where they were. */
export function snapshot() {
  const rect = (node) => (node ? node.getBoundingClientRect() : null);
  const hand = new Map();
  for (const c of $("my-hand").querySelectorAll("[data-card]")) hand.set(c.dataset.card, c.getBoundingClientRect());
  return {
    stock: rect($("stock-slot")),
    pile: rect($("discard-slot")),
    opp: rect($("opp-hand").lastElementChild || $("opp-hand")), // a card of the opponent's
    hand,
  };
}

export function renderTable(prev, rects) {
  const S = store.S;
  $("connection").hidden = !$("connection").textContent;
  $("table").hidden = false;
  const newHand = !prev || prev.view.hand_index !== S.view.hand_index || (prev.hand_over && !S.hand_over);
  renderInvite();
  renderScoreboard();
  renderOpponent(prev, newHand, rects);
  renderPiles(prev, newHand, rects);
  renderOffer();
  renderHand(prev, newHand, rects);
  const d = document.body.dataset;
  d.version = String(S.version);
  d.phase = S.view.phase || "";
  d.myTurn = String(Boolean(S.my_turn) && !S.hand_over);
  d.handOver = String(Boolean(S.hand_over));
  d.status = S.status;
  d.handIndex = String(S.view.hand_index);
  const players = { first: nameOf(0), second: nameOf(1) };
  document.title = S.my_turn ? t("Your turn · Gin Rummy: {first} v {second}", players)
    : t("Gin Rummy: {first} v {second}", players);
}

function renderInvite() {
  const S = store.S;
  const waiting = S.status === "waiting";
  $("invite").hidden = !waiting;
  if (!waiting) return;
  const stored = JSON.parse(localStorage.getItem("ginrummy.seats") || "[]")
    .find((s) => s && s.id === S.id && s.invite_url);
  const link = $("invite-link");
  if (stored) {
    link.value = new URL(stored.invite_url, location.origin).href;
    $("invite-text").textContent = t("Waiting for your friend. Send them this link; the match starts when they open it.");
    link.parentElement.hidden = false;
  } else {
    $("invite-text").textContent = S.seat === 0
      ? t("Waiting for {name} to accept the rematch from their table.", { name: nameOf(1) })
      : t("Waiting for your friend to join.");
    link.parentElement.hidden = true;
  }
}

function turnText() {
  const S = store.S;
  const v = S.view;
  if (S.status === "finished") return t("Match over");
  if (S.hand_over) return t("Hand over");
  if (S.status === "waiting") {
    if (S.seat === 0 && nameOf(1) === "Friend") return t("Waiting for your friend to join");
    return t("Waiting for {name} to join", { name: S.seat === 0 ? nameOf(1) : nameOf(0) });
  }
  if (S.my_turn) {
    if (v.phase === "offer") return t("Your turn: take the up-card or pass");
    if (v.phase === "draw") return t("Your turn: draw a card");
    return t("Your turn: discard a card");
  }
  const name = nameOf(v.to_play);
  const computer = S.opponent === "computer";
  if (v.phase === "offer") {
    return computer ? t("{name} is deciding on the up-card…", { name }) : t("{name} to take or pass the up-card…", { name });
  }
  return computer ? t("{name} is thinking…", { name }) : t("{name} to play…", { name });
}

function renderScoreboard() {
  const S = store.S;
  const box = $("players");
  box.replaceChildren();
  for (const seat of [me(), opp()]) {
    const active = !S.hand_over && S.status === "playing" && S.view.to_play === seat;
    const name = nameOf(seat);
    const you = seat === me() && name !== t("You");
    const points = S.scores[seat];
    const dealer = S.view.dealer === seat;
    let label;
    if (you) {
      label = dealer ? tn("{name} (you): {n} point, dealer", "{name} (you): {n} points, dealer", points, { name })
        : tn("{name} (you): {n} point", "{name} (you): {n} points", points, { name });
    } else {
      label = dealer ? tn("{name}: {n} point, dealer", "{name}: {n} points, dealer", points, { name })
        : tn("{name}: {n} point", "{name}: {n} points", points, { name });
    }
    box.append(
      el(
        "div",
        {
          class: `player${active ? " active" : ""}`,
          "data-testid": seat === me() ? "player-me" : "player-opponent",
          role: "group", // (a label is for an element with a role)
          "aria-label": label,
          title: name,
        },
        el("span", { class: "avatar", "aria-hidden": "true", text: (name[0] || "?").toUpperCase() }),
        el("span", { class: "pname", "data-testid": seat === me() ? "name-me" : "name-opponent" },
          name, you ? el("span", { class: "you-tag", text: " " + t("(you)") }) : null),
        el("span", { class: "pscore", text: number(points), "data-testid": seat === me() ? "score-me" : "score-opponent" }),
        el("span", { class: `dealer-chip${dealer ? "" : " off"}`, text: t("DEALER"), title: t("Dealer"), "aria-hidden": "true" }),
      ),
    );
  }
  const o = S.options || {};
  // a match of a fixed number of hands (the daily deal) ends by them, not by its target
  const hand = number(S.view.hand_index + 1);
  const bits = o.hands ? [t("Hand {hand} of {hands}", { hand, hands: number(o.hands) })]
    : [t("Hand {hand}", { hand }), t("to {target}", { target: number(o.target || 100) })];
  if (o.gin_only) bits.push(t("gin only"));
  else bits.push(t("knock ≤ {limit}", { limit: number(S.view.knock_limit) }));
  if (o.oklahoma) bits.push(t("Oklahoma"));
  $("match-meta").textContent = bits.join(" · ");
  const turn = $("turn");
  const text = turnText();
  turn.textContent = text;
  turn.title = text;
  turn.classList.toggle("mine", Boolean(S.my_turn && !S.hand_over));
  fitTurn();
}

/** Mark the turn line "long" when its text overflows its row on one line: a phone shows
 * it as two smaller lines in the same height (table.css) rather than cutting its end. */
function fitTurn() {
  const turn = $("turn");
  if (!turn) return;
  turn.classList.remove("long");
  if (turn.scrollWidth > turn.clientWidth + 1) turn.classList.add("long");
}

// measured again when the screen turns or resizes, and when the row gains a button (the
// phone's Chat button comes after the first state)
addEventListener("resize", fitTurn);
if ($("turn")) new MutationObserver(fitTurn).observe($("turn").parentElement, { childList: true });

function renderOpponent(prev, newHand, rects) {
  const S = store.S;
  const v = S.view;
  const n = v.to_play === opp() && v.phase === "discard" && !S.hand_over ? 11 : 10;
  const hand = $("opp-hand");
  const before = hand.children.length;
  hand.replaceChildren();
  hand.setAttribute("aria-label", tn("{name} holds {n} card", "{name} holds {n} cards", n, { name: nameOf(opp()) }));
  hand.setAttribute("role", "img");
  for (let i = 0; i < n; i++) hand.append(cardBack());
  hand.classList.toggle("thinking", v.to_play === opp() && !S.hand_over);
  if (prev && !newHand && n > before && rects) {
    // The opponent drew: the new back flies in from the pile it came from.
    const last = (v.history || [])[v.history.length - 1];
    const from = last && last.from === "discard" ? rects.pile : rects.stock;
    flyFrom(hand.lastElementChild, from);
  }
  const known = $("opp-known");
  known.replaceChildren();
  const history = v.history || [];
  const last = [...history].reverse().find((h) => h.seat === opp());
  known.append(el("span", { class: "opp-last", "data-testid": "opponent-last", text: last ? describeAction(last, opp()) : "" }));
  const held = S.opponent_known || [];
  const strip = el("span", { class: "opp-held", "data-testid": "opponent-known" });
  if (held.length) {
    strip.append(el("span", { text: t("holds") }));
    for (const c of held) strip.append(cardElement(c, { small: true }));
  }
  known.append(strip);
}

function renderPiles(prev, newHand, rects) {
  const S = store.S;
  const v = S.view;
  const stock = $("stock-slot");
  stock.replaceChildren();
  const drawable = canDrawStock();
  stock.classList.toggle("clickable", drawable);
  const count = v.stock_count;
  for (let i = 0; i < Math.min(2, Math.max(0, count - 1)); i++) stock.append(cardBack());
  if (count > 0) {
    const top = cardBack({ tag: "button", label: drawable
      ? tn("Stock, {n} card: draw the top card", "Stock, {n} cards: draw the top card", count)
      : tn("Stock, {n} card", "Stock, {n} cards", count) });
    top.dataset.testid = "stock";
    top.disabled = !drawable && !S.my_turn;
    top.addEventListener("click", () => handlers.drawStock());
    stock.append(top);
  }
  stock.append(el("span", { class: "stock-count", "aria-hidden": "true", text: number(count), "data-testid": "stock-count" }));
  $("stock-label").textContent = t("Stock ({count})", { count: number(count) });

  const pile = $("discard-slot");
  pile.replaceChildren();
  const discards = v.discards || [];
  const takeable = canDrawPile();
  pile.classList.toggle("clickable", takeable);
  if (discards.length > 1) {
    const under = cardElement(discards[discards.length - 2]);
    under.classList.add("under");
    under.setAttribute("aria-hidden", "true");
    pile.append(under);
  }
  if (discards.length) {
    const topCode = discards[discards.length - 1];
    const top = cardElement(topCode, { tag: "button", extraLabel: takeable ? t("top of the discard pile: take it") : t("top of the discard pile") });
    top.dataset.testid = "discard-top";
    top.addEventListener("click", () => handlers.drawPile());
    pile.append(top);
    const prevTop = prev && prev.view.discards ? prev.view.discards[prev.view.discards.length - 1] : null;
    if (prev && !newHand && prevTop !== topCode && discards.length > (prev.view.discards || []).length) {
      // A discard: from this seat's hand, or from the opponent's.
      const from = rects && rects.hand.get(topCode) ? rects.hand.get(topCode) : rects ? rects.opp : null;
      flyFrom(top, from);
      sound("discard");
    }
  }
  pile.setAttribute("data-testid", "discard-pile");
  pile.dataset.top = discards.length ? discards[discards.length - 1] : "";
  pile.dataset.discards = discards.join(" "); // the public pile, bottom first (R11)
  $("history-button").textContent = t("history ({count})", { count: number(discards.length) });
}

function renderOffer() {
  const S = store.S;
  const v = S.view;
  const offering = v.phase === "offer" && S.my_turn && !S.hand_over;
  // The offer keeps its place while hidden, so nothing moves when it comes and goes.
  $("offer").classList.toggle("idle", !offering);
  $("offer").setAttribute("aria-hidden", String(!offering));
  $("take-button").disabled = !offering || !canDrawPile();
  $("pass-button").disabled = !offering || !canPass();
  const up = v.upcard || (v.discards || [])[0];
  $("offer-text").textContent = !offering ? ""
    : up ? t("The up-card is {card}. Take it, or pass?", { card: cardWords(up) })
      : t("The up-card is face up. Take it, or pass?");
  $("take-button").setAttribute("aria-label", up ? t("Take the up-card, {card}", { card: cardName(up) }) : t("Take the up-card"));
  $("pass-button").setAttribute("aria-label", t("Pass on the up-card"));
}

// ------------------------------------------------------------------ the hand

/** Whether a meld is a set (its cards of one rank), else a run. */
export const isSet = (m) => m[0][0] === m[m.length - 1][0];

/** A meld's short name ("Set", "Run"). */
export function meldKind(m) {
  return isSet(m) ? t("Set") : t("Run");
}

/** A meld's accessible name: its kind and its cards. */
export function meldLabel(m, cards = m) {
  const names = cards.map(cardName).join(", ");
  return isSet(m) ? t("Set: {cards}", { cards: names }) : t("Run: {cards}", { cards: names });
}

function autoGroups(hand) {
  // Melds first in the server's best arrangement (R2), then the loose cards.
  const inHand = new Set(hand);
  const melds = ((store.S.arrangement && store.S.arrangement.melds) || [])
    .map((m) => m.filter((c) => inHand.has(c)))
    .filter((m) => m.length >= 3);
  const melded = new Set(melds.flat());
  const loose = sortCards(hand.filter((c) => !melded.has(c)), store.sortBy);
  return { melds, loose };
}

let arrangingWired = false;

function wireArranging() {
  if (arrangingWired) return;
  arrangingWired = true;
  enableArranging($("my-hand"), (order) => {
    saveOrder(order);
    renderHand(store.S, false, null);
  });
}

/** What the deadwood badge says: the hand's deadwood, and what a discard would leave. */
function badgeText(card) {
  const S = store.S;
  const dw = S.arrangement ? S.arrangement.deadwood : 0;
  const opts = discardOptions();
  const pick = card && opts.get(card) && opts.get(card).legal ? card : S.best_discard;
  const o = pick ? opts.get(pick) : null;
  const points = number(dw);
  if (!o) return { text: t("Deadwood {points}", { points }), low: dw <= (S.view.knock_limit ?? 10), title: "" };
  const p = { points, left: number(o.leaves) }; // ({card}: a node, put in by setBadge)
  return {
    text: o.gin ? t("Deadwood {points} · {card} leaves {left} (gin)", p)
      : o.knock ? t("Deadwood {points} · {card} leaves {left} (knock)", p)
        : t("Deadwood {points} · {card} leaves {left}", p),
    card: pick,
    low: o.knock,
    title: t("Discarding {card} leaves {left} deadwood", { card: cardName(pick), left: p.left }),
  };
}

function setBadge(card) {
  const b = badgeText(card);
  const badge = $("deadwood");
  // the card shown as "9♠" and read out in words (the badge is a live region)
  badge.replaceChildren(...withNodes(b.text, b.card ? { card: cardSpoken(b.card) } : {}));
  badge.title = b.title;
  badge.classList.toggle("low", Boolean(b.low));
}

export function renderHand(prev, newHand, rects) {
  wireArranging();
  const S = store.S;
  const container = $("my-hand");
  const hadFocus = container.contains(document.activeElement) ? document.activeElement.dataset.card : null;
  const oldOrder = [...container.querySelectorAll("[data-card]")].map((c) => c.dataset.card);
  const hand = S.view.hand || [];
  const prevHand = new Set(prev && !newHand ? prev.view.hand || [] : hand);
  const discarding = inDiscardPhase();
  const opts = discardOptions();
  const knockable = new Set(knockCards());
  const taken = takenThisTurn();
  const arranged = arrangedHand(hand);
  const melded = new Set(((S.arrangement && S.arrangement.melds) || []).flat());
  container.replaceChildren();
  container.classList.toggle("knock-mode", store.knockMode);
  container.classList.toggle("discarding", discarding);
  container.classList.toggle("arranged", Boolean(arranged));
  let i = 0;
  const fresh = [];
  const makeCard = (code) => {
    const o = opts.get(code);
    const notes = [];
    if (o && o.gin && knockable.has(code)) notes.push(t("goes gin"));
    else if (knockable.has(code)) notes.push(t("knock allowed"));
    if (o) notes.push(t("leaves {left}", { left: number(o.leaves) }));
    if (code === taken) notes.push(t("just taken, cannot go straight back"));
    const card = cardElement(code, { tag: "button", extraLabel: notes.join(", ") });
    card.dataset.testid = "hand-card";
    if (knockable.has(code)) {
      card.classList.add("knock-ok");
      card.append(el("span", { class: `knock-tag${o && o.gin ? " gin" : ""}`, "aria-hidden": "true", text: o && o.gin ? "GIN" : "K" }));
    }
    if (code === taken) {
      card.classList.add("just-taken");
      card.append(el("span", { class: "taken-tag", "aria-hidden": "true", text: t("TAKEN") }));
    }
    if (arranged && melded.has(code)) card.classList.add("melded");
    if (discarding) card.classList.add("can-discard");
    if (o) card.title = t("Discard: leaves {left}", { left: number(o.leaves) });
    card.addEventListener("click", () => handlers.playCard(code));
    card.addEventListener("pointerenter", () => discarding && setBadge(code));
    card.addEventListener("focus", () => discarding && setBadge(code));
    card.addEventListener("pointerleave", () => discarding && setBadge(null));
    if (newHand) fresh.push([card, i * 40]);
    else if (!prevHand.has(code)) fresh.push([card, -1]);
    i += 1;
    return card;
  };
  if (arranged) {
    const g = el("div", { class: "group arranged-row", role: "group", "aria-label": t("Your cards, in your order") });
    for (const c of arranged) g.append(makeCard(c));
    container.append(g);
  } else {
    const { melds, loose } = autoGroups(hand);
    for (const m of melds) {
      const g = el("div", { class: "group meld", role: "group", "aria-label": meldLabel(m) });
      g.append(el("span", { class: "group-label", "aria-hidden": "true", text: meldKind(m) }));
      for (const c of m) g.append(makeCard(c));
      container.append(g);
    }
    if (loose.length) {
      const g = el("div", { class: "group deadwood", role: "group", "aria-label": t("Unmatched cards") });
      g.append(el("span", { class: "group-label", "aria-hidden": "true", text: t("Deadwood") }));
      for (const c of loose) g.append(makeCard(c));
      container.append(g);
    }
  }
  for (const [card, delay] of fresh) {
    if (delay >= 0) popIn(card, delay);
    else if (rects) {
      const last = (S.view.history || [])[S.view.history.length - 1];
      flyFrom(card, last && last.from === "discard" ? rects.pile : rects.stock);
      sound("draw");
    }
  }
  setBadge(null);
  const kb = $("knock-button");
  const canKnock = knockable.size > 0;
  kb.classList.toggle("idle", !canKnock);
  kb.disabled = !canKnock;
  kb.setAttribute("aria-hidden", String(!canKnock));
  kb.setAttribute("aria-pressed", String(store.knockMode));
  const gin = [...opts.values()].some((o) => o.gin);
  const cards = [...knockable].map(cardName).join(", ");
  if (store.knockMode) {
    kb.firstChild.textContent = (gin ? t("Gin: pick a card") : t("Knock: pick a card")) + " ";
    kb.setAttribute("aria-label", gin
      ? t("Gin mode on: choose the card to discard. Allowed: {cards}", { cards })
      : t("Knock mode on: choose the card to discard. Allowed: {cards}", { cards }));
  } else {
    kb.firstChild.textContent = (gin ? t("Gin") : t("Knock")) + " ";
    kb.setAttribute("aria-label", gin ? t("Gin: discard one of {cards} and end the hand", { cards })
      : t("Knock: discard one of {cards} and end the hand", { cards }));
  }
  $("sort-button").textContent = store.sortBy === "suit" ? t("Sort by rank") : t("Sort by suit");
  $("sort-button").hidden = Boolean(arranged);
  $("group-button").hidden = !arranged;
  if (hadFocus) {
    const cards = [...container.querySelectorAll("[data-card]")];
    let target = cards.find((c) => c.dataset.card === hadFocus);
    if (!target && cards.length) {
      const idx = Math.min(Math.max(oldOrder.indexOf(hadFocus), 0), cards.length - 1);
      target = cards[idx];
    }
    if (target) target.focus({ preventScroll: true });
  }
}
