// The table page: renders one seat's STATE (docs/web-api.md), sends its moves, keeps in sync.
// The server is authoritative (R11): this page only ever holds what its seat may see.

import { api, downloadJson, loadSeats, rememberSeat } from "./api.js";
import {
  cardBack, cardElement, cardName, cardPoints, cardShort, installSuitSprite, sortCards,
} from "./cards.js";

const $ = (id) => document.getElementById(id);
const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const fragment = new URLSearchParams(location.hash.slice(1));
let token = fragment.get("token") || ""; // this seat's secret (set by joining with an invite)
const inviteCode = fragment.get("invite") || ""; // a friend's single-use invitation
const base = `/api/matches/${encodeURIComponent(matchId)}`;

let S = null; // the latest STATE
let busy = false; // a move is on its way to the server
let knockMode = false;
let sortBy = localStorage.getItem("ginrummy.sort") === "rank" ? "rank" : "suit";
let dismissedOver = null; // the hand index whose result panel the player closed
let fatal = false;
let messageTimer = 0;

// ------------------------------------------------------------------ helpers

const me = () => S.seat;
const opp = () => 1 - S.seat;
const nameOf = (seat) => (S && S.players && S.players[seat]) || (seat === me() ? "You" : "Opponent");
const legalHas = (pred) => (S && Array.isArray(S.legal) ? S.legal.some(pred) : false);
const canDrawStock = () => legalHas((a) => a.act === "draw" && a.from === "stock");
const canDrawPile = () => legalHas((a) => a.act === "draw" && a.from === "discard");
const canPass = () => legalHas((a) => a.act === "pass");
const inDiscardPhase = () => S && S.my_turn && S.view.phase === "discard" && !S.hand_over;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("data-") || k.startsWith("aria-") || k === "role") node.setAttribute(k, v);
    else node[k] = v;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function showMessage(text, kind = "info", sticky = false) {
  const box = $("message");
  clearTimeout(messageTimer);
  box.className = `message ${kind}`;
  box.textContent = text;
  if (kind === "error") {
    box.classList.remove("shake");
    void box.offsetWidth; // restart the animation
    box.classList.add("shake");
  }
  if (!sticky && text) {
    messageTimer = setTimeout(() => {
      if (box.textContent === text) box.textContent = "";
    }, kind === "error" ? 9000 : 6000);
  }
}

function describeAction(a, seat) {
  const who = seat === me() ? "You" : nameOf(seat);
  const verb = (you, them) => (seat === me() ? you : them);
  if (a.act === "pass") return `${who} ${verb("pass", "passes")} on the up-card.`;
  if (a.act === "draw" && a.from === "stock") {
    return `${who} ${verb("draw", "draws")} from the stock${a.card ? ` (${cardShort(a.card)})` : ""}.`;
  }
  if (a.act === "draw") {
    return `${who} ${verb("take", "takes")} ${a.card ? cardShort(a.card) : "the top discard"}.`;
  }
  if (a.act === "discard") {
    const k = a.knock ? verb(" and knock", " and knocks") : "";
    return `${who} ${verb("discard", "discards")} ${cardShort(a.card)}${k}.`;
  }
  return "";
}

// ------------------------------------------------------------------ state in

function applyState(st) {
  if (!st || typeof st !== "object" || !st.view) return;
  if (S && st.id === S.id && st.version < S.version) return; // an older echo
  const prev = S;
  S = st;
  if (!prev) {
    rememberSeat({ id: st.id, token, seat: st.seat, players: st.players, opponent: st.opponent });
  }
  if (!S.my_turn || S.view.phase !== "discard") knockMode = false;
  if (S.knock_discards && S.knock_discards.length === 0) knockMode = false;
  render(prev);
}

async function refresh() {
  try {
    applyState(await api(base, { token }));
  } catch (e) {
    if ([401, 403, 404].includes(e.status)) stop(e.message);
    else setConnection("The table cannot be reached. Retrying…");
  }
}

function stop(text) {
  fatal = true;
  stopPolling();
  $("table").hidden = true;
  $("invite").hidden = true;
  const c = $("connection");
  c.className = "panel";
  c.innerHTML = "";
  c.append(
    el("p", { text }),
    el("p", {}, el("a", { href: "/", text: "Go to the lobby" }), " to start a new table."),
  );
}

// ------------------------------------------------------------------ live updates

let ws = null;
let backoff = 500;
let pollTimer = 0;
let reconnectTimer = 0;

function setConnection(text) {
  if (fatal) return;
  $("connection").textContent = text;
}

function startPolling() {
  if (!pollTimer) pollTimer = setInterval(refresh, 2500);
}

function stopPolling() {
  clearInterval(pollTimer);
  pollTimer = 0;
}

function connect() {
  if (fatal) return;
  clearTimeout(reconnectTimer);
  const proto = location.protocol === "https:" ? "wss" : "ws";
  // The token goes in the first message, never in the URL (which access logs record).
  const url = `${proto}://${location.host}${base}/ws`;
  let socket;
  try {
    socket = new WebSocket(url);
  } catch {
    scheduleReconnect();
    return;
  }
  ws = socket;
  socket.onopen = () => {
    socket.send(JSON.stringify({ type: "auth", token }));
    backoff = 500;
    stopPolling();
    setConnection("");
  };
  socket.onmessage = (ev) => {
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    if (msg.type === "state") applyState(msg.state);
    else if (msg.type === "error") {
      showMessage(msg.message || "That was refused.", "error");
      if (msg.status === 409) refresh();
    }
  };
  socket.onclose = (ev) => {
    if (ws !== socket) return;
    ws = null;
    if ([1008, 4401, 4403, 4404].includes(ev.code)) {
      refresh(); // the GET says exactly what is wrong with the link
      return;
    }
    scheduleReconnect();
  };
}

function scheduleReconnect() {
  if (fatal) return;
  setConnection("Live connection lost: reconnecting… (the table still updates every few seconds)");
  startPolling();
  refresh();
  const wait = backoff + Math.random() * 250;
  backoff = Math.min(backoff * 2, 15000);
  reconnectTimer = setTimeout(connect, wait);
}

// ------------------------------------------------------------------ moves out

async function post(path, body) {
  if (busy || !S) return;
  busy = true;
  document.body.classList.add("busy");
  try {
    applyState(await api(path, { method: "POST", token, body: { ...body, version: S.version } }));
  } catch (e) {
    showMessage(e.message, "error");
    if (e.status === 409 || e.status === 0) refresh();
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

const play = (action) => post(`${base}/actions`, { action });

function drawStock() {
  if (!S || S.hand_over) return;
  if (canDrawStock()) {
    play({ act: "draw", from: "stock" });
  } else if (!S.my_turn) {
    showMessage(`It is ${nameOf(S.view.to_play)}'s turn.`);
  } else if (S.view.phase === "offer") {
    showMessage("First take the up-card or pass.");
  } else if (S.view.phase === "discard") {
    showMessage("You have drawn already: now discard a card.");
  }
}

function drawPile() {
  if (!S || S.hand_over) return;
  if (canDrawPile()) {
    play({ act: "draw", from: "discard" });
  } else if (!S.my_turn) {
    showMessage(`It is ${nameOf(S.view.to_play)}'s turn.`);
  } else if (S.view.phase === "discard") {
    showMessage("You have drawn already: now discard a card.");
  }
}

function pass() {
  if (canPass()) play({ act: "pass" });
}

function discard(card, knock) {
  if (!S || S.hand_over) return;
  if (!S.my_turn) {
    showMessage(`Wait for your turn: it is ${nameOf(S.view.to_play)}'s.`);
    return;
  }
  if (S.view.phase === "offer") {
    showMessage("First take the up-card or pass.");
    return;
  }
  if (S.view.phase === "draw") {
    showMessage("Draw first: click the stock or the discard pile.");
    return;
  }
  // The server judges every discard, so its exact sentence reaches the player (R5, R6).
  play({ act: "discard", card, knock: Boolean(knock) });
}

function nextHand() {
  if (!S || !S.hand_over || S.status === "finished") return;
  if (S.hand_over.ready && S.hand_over.ready[me()]) return;
  post(`${base}/next`, {});
}

// ------------------------------------------------------------------ rendering

function render(prev) {
  $("connection").hidden = !$("connection").textContent;
  $("table").hidden = false;
  const newHand = !prev || prev.view.hand_index !== S.view.hand_index || (prev.hand_over && !S.hand_over);
  renderInvite();
  renderScoreboard();
  renderOpponent();
  renderPiles(prev, newHand);
  renderOffer();
  renderHand(prev, newHand);
  renderHandOver(prev);
  // Plain facts for tests and styling hooks: never anything the seat may not see.
  const d = document.body.dataset;
  d.version = String(S.version);
  d.phase = S.view.phase || "";
  d.myTurn = String(Boolean(S.my_turn) && !S.hand_over);
  d.handOver = String(Boolean(S.hand_over));
  d.status = S.status;
  d.handIndex = String(S.view.hand_index);
  document.title = `${S.my_turn ? "Your turn · " : ""}Gin Rummy: ${nameOf(0)} v ${nameOf(1)}`;
  if (!$("sheet-overlay").hidden) renderSheet($("sheet-body"));
}

function renderInvite() {
  const waiting = S.status === "waiting";
  const stored = loadSeats().find((s) => s.id === S.id && s.invite_url);
  $("invite").hidden = !waiting;
  if (waiting) {
    const link = $("invite-link");
    if (stored) {
      link.value = new URL(stored.invite_url, location.origin).href;
      link.parentElement.hidden = false;
    } else {
      link.parentElement.hidden = true;
    }
  }
}

function turnText() {
  const v = S.view;
  if (S.status === "finished") return "Match over";
  if (S.hand_over) return "Hand over";
  if (S.status === "waiting") return `Waiting for ${S.seat === 0 ? "your friend" : nameOf(0)} to join`;
  if (S.my_turn) {
    if (v.phase === "offer") return "Your turn: take the up-card or pass";
    if (v.phase === "draw") return "Your turn: draw a card";
    return "Your turn: discard a card";
  }
  const who = nameOf(v.to_play);
  const thinking = S.opponent === "computer" ? "is thinking…" : "to play…";
  if (v.phase === "offer") return `${who} ${S.opponent === "computer" ? "is deciding on the up-card…" : "to take or pass the up-card…"}`;
  return `${who} ${thinking}`;
}

function renderScoreboard() {
  const box = $("players");
  box.replaceChildren();
  for (const seat of [me(), opp()]) {
    const active = !S.hand_over && S.status === "playing" && S.view.to_play === seat;
    const name = nameOf(seat);
    box.append(
      el(
        "div",
        {
          class: `player${active ? " active" : ""}`,
          "data-testid": seat === me() ? "player-me" : "player-opponent",
          "aria-label": `${name}${seat === me() ? " (you)" : ""}: ${S.scores[seat]} points${S.view.dealer === seat ? ", dealer" : ""}`,
        },
        el("span", { class: "avatar", "aria-hidden": "true", text: (name[0] || "?").toUpperCase() }),
        el("span", { class: "pname", text: seat === me() ? `${name} (you)` : name }),
        el("span", {
          class: "pscore",
          text: String(S.scores[seat]),
          "data-testid": seat === me() ? "score-me" : "score-opponent",
        }),
        S.view.dealer === seat ? el("span", { class: "dealer-chip", text: "DEALER", title: "Dealer" }) : null,
      ),
    );
  }
  const o = S.options || {};
  const bits = [`Hand ${S.view.hand_index + 1}`, `to ${o.target || 100}`];
  if (o.gin_only) bits.push("gin only");
  else bits.push(`knock ≤ ${S.view.knock_limit}`);
  if (o.oklahoma) bits.push("Oklahoma");
  $("match-meta").textContent = bits.join(" · ");
  const turn = $("turn");
  turn.textContent = turnText();
  turn.classList.toggle("mine", Boolean(S.my_turn && !S.hand_over));
}

function opponentHolding() {
  // Cards the opponent took from the discard pile and has not thrown back (R11: public).
  const held = [];
  for (const h of S.view.history || []) {
    if (h.seat !== opp()) continue;
    if (h.act === "draw" && h.from === "discard" && h.card) held.push(h.card);
    if (h.act === "discard") {
      const i = held.indexOf(h.card);
      if (i >= 0) held.splice(i, 1);
    }
  }
  return held;
}

function renderOpponent() {
  const v = S.view;
  const n = v.to_play === opp() && v.phase === "discard" && !S.hand_over ? 11 : 10;
  const hand = $("opp-hand");
  hand.replaceChildren();
  hand.setAttribute("aria-label", `${nameOf(opp())} holds ${n} cards`);
  hand.setAttribute("role", "img");
  for (let i = 0; i < n; i++) hand.append(cardBack());
  hand.classList.toggle("thinking", v.to_play === opp() && !S.hand_over);
  const known = $("opp-known");
  known.replaceChildren();
  const history = v.history || [];
  const last = [...history].reverse().find((h) => h.seat === opp());
  if (last) known.append(el("span", { "data-testid": "opponent-last", text: describeAction(last, opp()) }));
  const held = opponentHolding();
  if (held.length) {
    known.append(el("span", { text: " · holds " }));
    for (const c of held) known.append(cardElement(c, { small: true }));
  }
}

function renderPiles(prev, newHand) {
  const v = S.view;
  // Stock: a small stack of backs, clickable when a draw from it is legal.
  const stock = $("stock-slot");
  stock.replaceChildren();
  const drawable = canDrawStock();
  stock.classList.toggle("clickable", drawable);
  const count = v.stock_count;
  for (let i = 0; i < Math.min(2, Math.max(0, count - 1)); i++) stock.append(cardBack());
  if (count > 0) {
    const top = cardBack({
      tag: "button",
      label: `Stock, ${count} cards${drawable ? ": draw the top card" : ""}`,
    });
    top.dataset.testid = "stock";
    top.disabled = !drawable && !S.my_turn;
    top.addEventListener("click", drawStock);
    stock.append(top);
  }
  stock.append(el("span", { class: "stock-count", "aria-hidden": "true", text: String(count), "data-testid": "stock-count" }));
  $("stock-label").textContent = `Stock (${count})`;

  // Discard pile: the top card, the one under it peeking out.
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
    const top = cardElement(topCode, {
      tag: "button",
      extraLabel: `top of the discard pile${takeable ? ": take it" : ""}`,
    });
    top.dataset.testid = "discard-top";
    top.addEventListener("click", drawPile);
    const prevTop = prev && prev.view.discards ? prev.view.discards[prev.view.discards.length - 1] : null;
    if (prev && !newHand && prevTop !== topCode && discards.length >= (prev.view.discards || []).length) {
      top.classList.add("landed");
    }
    pile.append(top);
  }
  pile.setAttribute("data-testid", "discard-pile");
  pile.dataset.top = discards.length ? discards[discards.length - 1] : "";
  $("history-button").textContent = `history (${discards.length})`;
}

function renderOffer() {
  const v = S.view;
  const offering = v.phase === "offer" && S.my_turn && !S.hand_over;
  $("offer").hidden = !offering;
  if (offering) {
    const up = v.upcard || (v.discards || [])[0];
    $("offer-text").textContent = `The up-card is ${up ? cardName(up).toLowerCase() : "face up"}. Take it, or pass?`;
    $("take-button").disabled = !canDrawPile();
    $("pass-button").disabled = !canPass();
    $("take-button").setAttribute("aria-label", `Take the up-card${up ? `, ${cardName(up)}` : ""}`);
    $("pass-button").setAttribute("aria-label", "Pass on the up-card");
  }
}

function groupsOf(hand) {
  // Melds first in the solver's best arrangement (R2), then the loose cards.
  const inHand = new Set(hand);
  const melds = ((S.arrangement && S.arrangement.melds) || [])
    .map((m) => m.filter((c) => inHand.has(c)))
    .filter((m) => m.length >= 3);
  const melded = new Set(melds.flat());
  const loose = sortCards(hand.filter((c) => !melded.has(c)), sortBy);
  return { melds, loose };
}

function meldKind(m) {
  return m[0][0] === m[m.length - 1][0] ? "Set" : "Run";
}

function takenThisTurn() {
  const h = S.view.history || [];
  const last = h[h.length - 1];
  if (last && last.seat === me() && last.act === "draw" && last.from === "discard") return last.card;
  return null;
}

function renderHand(prev, newHand) {
  const container = $("my-hand");
  const hadFocus = container.contains(document.activeElement) ? document.activeElement.dataset.card : null;
  const oldOrder = [...container.querySelectorAll("[data-card]")].map((c) => c.dataset.card);
  const hand = S.view.hand || [];
  const prevHand = new Set(prev && !newHand ? prev.view.hand || [] : hand);
  const { melds, loose } = groupsOf(hand);
  const knockable = new Set(inDiscardPhase() ? S.knock_discards || [] : []);
  const taken = inDiscardPhase() ? takenThisTurn() : null;
  container.replaceChildren();
  container.classList.toggle("knock-mode", knockMode);
  container.classList.toggle("discarding", inDiscardPhase());
  let i = 0;
  const makeCard = (code) => {
    const notes = [];
    if (knockable.has(code)) notes.push("knock allowed");
    if (code === taken) notes.push("just taken");
    const card = cardElement(code, { tag: "button", extraLabel: notes.join(", ") });
    card.dataset.testid = "hand-card";
    if (knockable.has(code)) card.classList.add("knock-ok");
    if (code === taken) card.classList.add("just-taken");
    if (inDiscardPhase()) card.classList.add("can-discard");
    if (newHand) {
      card.classList.add("dealt");
      card.style.animationDelay = `${i * 45}ms`;
    } else if (!prevHand.has(code)) {
      card.classList.add("drawn");
    }
    card.addEventListener("click", () => discard(code, knockMode));
    i += 1;
    return card;
  };
  for (const m of melds) {
    const g = el("div", { class: "group meld", role: "group", "aria-label": `${meldKind(m)}: ${m.map(cardName).join(", ")}` });
    g.append(el("span", { class: "group-label", "aria-hidden": "true", text: meldKind(m) }));
    for (const c of m) g.append(makeCard(c));
    container.append(g);
  }
  if (loose.length) {
    const dw = loose.reduce((t, c) => t + cardPoints(c), 0);
    const g = el("div", { class: "group deadwood", role: "group", "aria-label": `Unmatched cards, ${dw} points` });
    g.append(el("span", { class: "group-label", "aria-hidden": "true", text: "Deadwood" }));
    for (const c of loose) g.append(makeCard(c));
    container.append(g);
  }
  // Deadwood count, live from the server's arrangement.
  const dw = S.arrangement ? S.arrangement.deadwood : loose.reduce((t, c) => t + cardPoints(c), 0);
  const badge = $("deadwood");
  // With 11 cards, also say what throwing the highest loose card leaves: a loose card of a
  // best arrangement leaves exactly dw minus its points (R2). Not the card just taken (R5).
  let after = null;
  if (hand.length === 11 && S.arrangement) {
    const looseCards = (S.arrangement.deadwood_cards || []).filter((c) => c !== taken);
    const best = looseCards.reduce((b, c) => (b === null || cardPoints(c) > cardPoints(b) ? c : b), null);
    if (best) after = { card: best, dw: dw - cardPoints(best) };
  }
  badge.textContent = after
    ? `Deadwood ${dw} · ${cardShort(after.card)} leaves ${after.dw}`
    : `Deadwood ${dw}`;
  badge.title = after ? `Discarding ${cardName(after.card)} leaves ${after.dw} deadwood` : "";
  badge.classList.toggle("low", (after ? after.dw : dw) <= (S.view.knock_limit ?? 10));
  // Knock: offered only when some discard allows it (R6).
  const kb = $("knock-button");
  const canKnock = knockable.size > 0;
  kb.hidden = !canKnock;
  kb.setAttribute("aria-pressed", String(knockMode));
  const gin = S.arrangement && S.arrangement.deadwood_cards && S.arrangement.deadwood_cards.length <= 1;
  const word = gin ? "Gin" : "Knock";
  kb.firstChild.textContent = knockMode ? `${word}: pick a card ` : `${word} `;
  kb.setAttribute(
    "aria-label",
    knockMode
      ? `${word} mode on: choose the card to discard. Allowed: ${[...knockable].map(cardName).join(", ")}`
      : `${word}: discard one of ${[...knockable].map(cardName).join(", ")} and end the hand`,
  );
  $("sort-button").textContent = sortBy === "suit" ? "Sort by rank" : "Sort by suit";
  // Keep keyboard focus on the same card, or its neighbour after a discard.
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

// ------------------------------------------------------------------ hand over

function resultTitle(r, handNo) {
  // Told from this seat's side: "you knock", never the player's own name in the third person.
  const mine = r.knocker === me();
  const k = r.knocker != null ? nameOf(r.knocker) : "";
  switch (r.result) {
    case "gin": return `Hand ${handNo}: ${mine ? "You go" : `${k} goes`} gin!`;
    case "undercut": return `Hand ${handNo}: ${r.scorer === me() ? "You undercut" : "Undercut"}!`;
    case "knock": return `Hand ${handNo}: ${mine ? "You knock" : `${k} knocks`}`;
    case "dead": return `Hand ${handNo}: a dead hand`;
    default: return `Hand ${handNo} is over`;
  }
}

function resultLine(r) {
  const dw = r.deadwood || [0, 0];
  if (r.result === "dead") {
    return "The stock ran down to two cards with no knock. Nobody scores, neither hand is shown, and the same dealer deals again.";
  }
  const k = r.knocker;
  const d = 1 - k;
  // Every sentence names this seat "you" (never its own name), the other seat by name.
  const you = (seat, verbYou, verbThem) => (seat === me() ? `You ${verbYou}` : `${nameOf(seat)} ${verbThem}`);
  const has = (seat) => (seat === me() ? "you have" : `${nameOf(seat)} has`);
  const scores = (seat) => (seat === me() ? "you score" : `${nameOf(seat)} scores`);
  if (r.result === "gin") {
    const they = d === me() ? "You have" : `${nameOf(d)} has`;
    return `${you(k, "go", "goes")} gin. ${they} ${dw[d]} deadwood and may not lay off: ${scores(r.scorer)} ${dw[d]} + 25 gin bonus = ${r.points}.`;
  }
  if (r.result === "undercut") {
    return `${you(k, "knock", "knocks")} with ${dw[k]}, but ${has(d)} only ${dw[d]} after lay-offs: ${scores(r.scorer)} ${dw[k] - dw[d]} + 25 undercut bonus = ${r.points}.`;
  }
  return `${you(k, "knock", "knocks")} with ${dw[k]}; ${has(d)} ${dw[d]} after lay-offs: ${scores(r.scorer)} ${r.points}.`;
}

function revealSeat(seat, ho) {
  const r = ho.result;
  const role = r.knocker === seat ? (r.result === "gin" ? "went gin" : "knocked") : "defender";
  const arr = ho.arrangements ? ho.arrangements[seat] : null;
  const cards = ho.hands[seat] || [];
  const box = el("div", { class: "reveal-seat", "data-testid": `reveal-${seat === me() ? "me" : "opponent"}` });
  const dw = r.deadwood ? r.deadwood[seat] : arr ? arr.deadwood : null;
  box.append(
    el(
      "h3",
      {},
      el("span", {}, `${nameOf(seat)}${seat === me() ? " (you)" : ""} `, el("span", { class: "role", text: `· ${role}` })),
      el("span", { class: "dw", text: dw != null ? `Deadwood ${dw}` : "" }),
    ),
  );
  const row = el("div", { class: "reveal-hand" });
  const layoffs = (ho.layoffs || []);
  let shown = new Set();
  if (arr) {
    (arr.melds || []).forEach((m, mi) => {
      const g = el("div", { class: "group meld", role: "group", "aria-label": `${meldKind(m)}: ${m.map(cardName).join(", ")}` });
      g.append(el("span", { class: "group-label", "aria-hidden": "true", text: meldKind(m) }));
      for (const c of m) {
        g.append(cardElement(c));
        shown.add(c);
      }
      if (seat === r.knocker) {
        for (const lo of layoffs.filter((x) => x.meld === mi)) {
          const lc = cardElement(lo.card, { extraLabel: `laid off by ${nameOf(1 - seat)}` });
          lc.classList.add("laid-off");
          lc.dataset.testid = "laid-off";
          g.append(lc);
        }
      }
      row.append(g);
    });
    const laid = new Set(layoffs.map((x) => x.card));
    const rest = (arr.deadwood_cards || []).filter((c) => !shown.has(c));
    // Any card of the hand not placed anywhere (e.g. laid off from this hand) is not repeated.
    for (const c of rest) shown.add(c);
    if (rest.length) {
      const g = el("div", { class: "group deadwood", role: "group", "aria-label": "Deadwood" });
      g.append(el("span", { class: "group-label", "aria-hidden": "true", text: "Deadwood" }));
      for (const c of sortCards(rest, "suit")) g.append(cardElement(c));
      row.append(g);
    }
    if (seat !== r.knocker && laid.size) {
      row.append(el("span", { class: "hint", text: `Laid off: ${[...laid].map(cardShort).join(" ")}` }));
    }
  } else {
    const g = el("div", { class: "group deadwood" });
    for (const c of sortCards(cards, "suit")) g.append(cardElement(c));
    row.append(g);
  }
  row.querySelectorAll(".card").forEach((c, i) => {
    c.classList.add("revealed");
    c.style.animationDelay = `${i * 30}ms`;
  });
  box.append(row);
  return box;
}

function renderSheet(target) {
  const rows = S.score_sheet || [];
  target.replaceChildren();
  if (!rows.length) {
    target.append(el("p", { class: "empty", text: "No hand has been scored yet." }));
    return;
  }
  const order = [me(), opp()];
  const table = el("table", { class: "score-sheet", "data-testid": "score-sheet-table" });
  table.append(
    el("thead", {}, el("tr", {}, el("th", { text: "Hand" }), el("th", { text: "Result" }),
      ...order.map((s) => el("th", { scope: "col", text: nameOf(s) })))),
  );
  const body = el("tbody");
  const label = { knock: "Knock", gin: "Gin", undercut: "Undercut", dead: "Dead hand" };
  for (const row of rows) {
    const tr = el("tr", {}, el("td", { text: String(row.hand + 1) }), el("td", { text: label[row.result] || row.result }));
    for (const s of order) {
      const td = el("td");
      if (row.scorer === s) td.append(el("span", { class: "pts", text: `+${row.points} ` }));
      td.append(el("span", { text: row.scores ? String(row.scores[s]) : "" }));
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  table.append(el("tfoot", {}, el("tr", {}, el("td", { text: "Total" }), el("td"),
    ...order.map((s) => el("td", { text: String(S.scores[s]) })))));
  target.append(table);
}

function renderHandOver(prev) {
  const ho = S.hand_over;
  const overlay = $("hand-over");
  if (!ho) {
    overlay.hidden = true;
    $("result-reopen")?.remove();
    return;
  }
  const finished = S.status === "finished";
  const r = ho.result || {};
  const fresh = !prev || !prev.hand_over || prev.hand_over.hand !== ho.hand || prev.status !== S.status;
  if (fresh) {
    $("hand-over-title").textContent = resultTitle(r, ho.hand + 1);
    $("hand-over-line").textContent = resultLine(r);
    const reveal = $("reveal");
    reveal.replaceChildren();
    if (ho.hands && r.result !== "dead") {
      const first = r.knocker != null ? r.knocker : me();
      reveal.append(revealSeat(first, ho), revealSeat(1 - first, ho));
    } else {
      reveal.append(el("div", { class: "dead-note", "data-testid": "dead-hand", text: "Dead hand: nothing is revealed." }));
    }
    const banner = $("winner-banner");
    banner.hidden = !finished;
    if (finished) {
      const w = S.winner;
      const big = w == null ? "A tie: no winner" : w === me() ? "You win the match!" : `${nameOf(w)} wins the match`;
      banner.replaceChildren(
        el("div", { class: "big", text: big }),
        el("div", { text: `${nameOf(me())} ${S.scores[me()]} · ${nameOf(opp())} ${S.scores[opp()]}` }),
      );
    }
  }
  renderSheet($("hand-over-sheet"));
  const ready = ho.ready || [false, false];
  const next = $("next-button");
  next.hidden = finished;
  next.disabled = Boolean(ready[me()]);
  next.textContent = ready[me()] ? "Ready" : "Next hand";
  $("ready-note").textContent = !finished && ready[me()] && !ready[opp()] ? `Waiting for ${nameOf(opp())}…` : !finished && ready[opp()] && !ready[me()] && S.opponent !== "computer" ? `${nameOf(opp())} is ready.` : "";
  $("replay-button").hidden = !finished;
  $("over-download-button").hidden = false;
  $("lobby-link").hidden = !finished;
  $("hide-over-button").hidden = false;
  const key = `${ho.hand}:${S.status}`;
  overlay.hidden = dismissedOver === key;
  if (!$("result-reopen") && dismissedOver === key) addReopen(key);
  if (fresh && !overlay.hidden) {
    overlay.scrollTop = 0;
    setTimeout(() => (finished ? $("replay-button") : next).focus({ preventScroll: true }), 50);
  }
}

function addReopen() {
  const b = el("button", { class: "btn primary", type: "button", id: "result-reopen", "data-testid": "show-result", text: "Show the result" });
  b.addEventListener("click", () => {
    dismissedOver = null;
    b.remove();
    render(S);
  });
  $("turn").after(b);
}

// ------------------------------------------------------------------ overlays, replay, record

const openers = new Map(); // overlay id -> the element that had focus when it opened

function openOverlay(id) {
  if ($(id).hidden) openers.set(id, document.activeElement);
  $(id).hidden = false;
  const focusable = $(id).querySelector("button, [href], input");
  if (focusable) focusable.focus();
}

function closeOverlay(id) {
  // Give focus back to what opened the dialog, so keyboard play carries on where it was.
  $(id).hidden = true;
  const back = openers.get(id);
  openers.delete(id);
  if (back && back.isConnected && !back.closest("[hidden]")) back.focus({ preventScroll: true });
}

function trapFocus(ev) {
  // Tab stays inside an open modal dialog (aria-modal="true").
  const open = ["history-overlay", "sheet-overlay", "replay-overlay"].find((id) => !$(id).hidden);
  if (!open) return false;
  const items = [...$(open).querySelectorAll("button:not(:disabled), [href], input:not(:disabled), summary")]
    .filter((n) => n.offsetParent !== null);
  if (!items.length) return false;
  const first = items[0];
  const last = items[items.length - 1];
  const inside = $(open).contains(document.activeElement);
  if (ev.shiftKey && (document.activeElement === first || !inside)) {
    ev.preventDefault();
    last.focus();
  } else if (!ev.shiftKey && (document.activeElement === last || !inside)) {
    ev.preventDefault();
    first.focus();
  }
  return true;
}

function showHistory() {
  const body = $("history-body");
  body.replaceChildren();
  const discards = S.view.discards || [];
  const by = new Map();
  // Who put each card on the pile: the up-card, then the discards in history order.
  let up = S.view.upcard || discards[0];
  for (const h of S.view.history || []) if (h.act === "discard") by.set(h.card, h.seat);
  if (!discards.length) body.append(el("p", { class: "empty", text: "The discard pile is empty." }));
  discards.forEach((c) => {
    const who = c === up && !by.has(c) ? "up-card" : by.has(c) ? nameOf(by.get(c)) : "";
    body.append(el("div", { class: "entry" }, cardElement(c, { small: true }), el("span", { text: who })));
  });
  openOverlay("history-overlay");
}

async function downloadRecord() {
  try {
    const rec = await api(`${base}/record`, { token });
    downloadJson(rec, `gin-rummy-${S ? S.id : matchId}.json`);
    showMessage(S && S.status === "finished" ? "The match record was downloaded." : "The record of the hands already over was downloaded.");
  } catch (e) {
    showMessage(e.message, "error");
  }
}

let replayStep = 0;
let replaySteps = 0;

async function loadReplay(step) {
  try {
    const data = await api(`${base}/replay?step=${step}`, { token });
    replayStep = data.step;
    replaySteps = data.steps;
    renderReplay(data);
  } catch (e) {
    showMessage(e.message, "error");
  }
}

function renderReplay(d) {
  const board = $("replay-board");
  board.replaceChildren();
  const seatRow = (seat) => {
    const row = el("div", { class: "reveal-seat", "data-testid": `replay-seat-${seat}` });
    const toPlay = d.to_play === seat;
    row.append(el("h3", {}, el("span", { text: `${nameOf(seat)}${toPlay ? " · to play" : ""}` }),
      el("span", { class: "dw", text: `${(d.scores || [0, 0])[seat]} points` })));
    const hand = el("div", { class: "replay-hand" });
    for (const c of sortCards((d.hands || [[], []])[seat] || [], "suit")) hand.append(cardElement(c));
    row.append(hand);
    return row;
  };
  const discards = d.discards || [];
  const mid = el("div", { class: "replay-middle" });
  const stock = el("div", { class: "pile" }, el("div", { class: "pile-slot" }, cardBack()), el("div", { class: "pile-label", text: `Stock (${d.stock_count})` }));
  const pileSlot = el("div", { class: "pile-slot" });
  if (discards.length) pileSlot.append(cardElement(discards[discards.length - 1]));
  const pile = el("div", { class: "pile" }, pileSlot, el("div", { class: "pile-label", text: `Discards (${discards.length})` }));
  mid.append(stock, pile);
  // The replay shows everything (the match is over), so a stock draw names its card.
  const la = d.last_action ? { ...d.last_action, card: d.last_action.card || d.last_action.card_drawn } : null;
  const what = la ? describeAction(la, la.seat) : "The deal.";
  let res = "";
  if (d.result && d.result.result) res = ` ${resultTitle(d.result, d.hand_index + 1)}.`;
  board.append(seatRow(1 - me()), mid, seatRow(me()), el("p", { class: "headline", text: what + res }));
  $("replay-title").textContent = `Replay · hand ${d.hand_index + 1}`;
  $("replay-step").textContent = `Step ${d.step} of ${d.steps}`;
  const range = $("replay-range");
  range.max = String(d.steps);
  range.value = String(d.step);
  $("replay-prev").disabled = d.step <= 0;
  $("replay-first").disabled = d.step <= 0;
  $("replay-next").disabled = d.step >= d.steps;
  $("replay-last").disabled = d.step >= d.steps;
}

function openReplay() {
  openOverlay("replay-overlay");
  loadReplay(0);
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
    for (const id of ["history-overlay", "sheet-overlay", "replay-overlay"]) if (!$(id).hidden) closeOverlay(id);
    if (knockMode) {
      knockMode = false;
      render(S);
    }
    return;
  }
  if (!S) return;
  if (!$("replay-overlay").hidden) {
    if (ev.key === "ArrowLeft" && replayStep > 0) loadReplay(replayStep - 1);
    if (ev.key === "ArrowRight" && replayStep < replaySteps) loadReplay(replayStep + 1);
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
      else if ((S.knock_discards || []).length && inDiscardPhase()) {
        knockMode = !knockMode;
        render(S);
      }
      return;
    case "s":
      drawStock();
      return;
    case "p":
      drawPile();
      return;
    case "t":
      if (S.view.phase === "offer" && canDrawPile()) drawPile();
      return;
    case "n":
      if (S.hand_over) nextHand();
      else pass();
      return;
    default:
  }
}

// ------------------------------------------------------------------ start

function wire() {
  installSuitSprite();
  $("take-button").addEventListener("click", drawPile);
  $("pass-button").addEventListener("click", pass);
  $("knock-button").addEventListener("click", () => {
    knockMode = !knockMode;
    render(S);
    if (knockMode) showMessage("Knock: now click the card to discard (the ones marked K allow it).");
  });
  $("sort-button").addEventListener("click", () => {
    sortBy = sortBy === "suit" ? "rank" : "suit";
    localStorage.setItem("ginrummy.sort", sortBy);
    if (S) render(S);
  });
  $("next-button").addEventListener("click", nextHand);
  $("hide-over-button").addEventListener("click", () => {
    dismissedOver = `${S.hand_over.hand}:${S.status}`;
    render(S);
  });
  $("history-button").addEventListener("click", showHistory);
  $("sheet-button").addEventListener("click", () => {
    if (!S) return;
    renderSheet($("sheet-body"));
    openOverlay("sheet-overlay");
  });
  $("download-button").addEventListener("click", downloadRecord);
  $("over-download-button").addEventListener("click", downloadRecord);
  $("replay-button").addEventListener("click", openReplay);
  $("replay-prev").addEventListener("click", () => loadReplay(Math.max(0, replayStep - 1)));
  $("replay-next").addEventListener("click", () => loadReplay(Math.min(replaySteps, replayStep + 1)));
  $("replay-first").addEventListener("click", () => loadReplay(0));
  $("replay-last").addEventListener("click", () => loadReplay(replaySteps));
  $("replay-range").addEventListener("change", (e) => loadReplay(Number(e.target.value)));
  $("help-button").addEventListener("click", (e) => {
    const help = $("help");
    help.hidden = !help.hidden;
    e.currentTarget.setAttribute("aria-expanded", String(!help.hidden));
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
  for (const id of ["history-overlay", "sheet-overlay", "replay-overlay"]) {
    $(id).addEventListener("click", (e) => {
      if (e.target.id === id) closeOverlay(id);
    });
  }
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => location.reload());
}

function useToken(t) {
  // Keep the seat's token in this browser and in the fragment (never path or query), so
  // a reload or a bookmark reopens the seat; replaceState fires no hashchange.
  token = t;
  history.replaceState(null, "", `${location.pathname}#token=${encodeURIComponent(t)}`);
}

async function joinWithInvite() {
  // The invite code is used once: the server answers with a fresh token for seat 1.
  try {
    const got = await api(`${base}/join`, { method: "POST", body: { invite: inviteCode } });
    rememberSeat({ id: got.id, token: got.token, seat: got.seat, opponent: "friend" });
    useToken(got.token);
    return true;
  } catch (e) {
    // Opened again in the browser that took the seat: that browser still has its token.
    const mine = loadSeats().find((s) => s.id === matchId && s.seat === 1);
    if (e.status === 409 && mine) {
      useToken(mine.token);
      return true;
    }
    stop(e.message);
    return false;
  }
}

async function start() {
  wire();
  if (matchId && !token && inviteCode && !(await joinWithInvite())) return;
  if (!matchId || !token) {
    stop("This table link has no seat token. Open the exact link you were given, or start a table from the lobby.");
    return;
  }
  refresh();
  connect();
}

start();
