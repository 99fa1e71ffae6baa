// The replay page (/replay/ID): a finished match step by step, both hands shown (the
// record is public once the match is over), from `GET /api/matches/ID/replay?step=K`
// (docs/web-api.md). The profile's and the spectator's "Replay" links open it.

import { api } from "./api.js";
import { cardBack, cardElement, cardShort, installSuitSprite, sortCards } from "./cards.js";
import { el } from "./dom.js";
import { applyCardPrefs } from "./prefs.js";
import { analysisHref, seenMoves } from "./training.js";

const $ = (id) => document.getElementById(id);
const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const R = { step: 0, steps: 0, data: null, busy: false };

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

function say(text) {
  $("message").textContent = text;
  $("message").className = `message ${text ? "error" : ""}`;
}

/** What the action shown did, in words (the match is over: every card is named). */
function described(d) {
  const a = d.last_action;
  if (!a) return `Hand ${d.hand_index + 1} is dealt: ${d.players[d.dealer]} deals.`;
  const who = d.players[a.seat];
  const card = a.card || a.card_drawn;
  let text;
  if (a.act === "pass") text = `${who} passes on the up-card.`;
  else if (a.act === "draw" && a.from === "stock") text = `${who} draws ${card ? cardShort(card) : "a card"} from the stock.`;
  else if (a.act === "draw") text = `${who} takes ${card ? cardShort(card) : "the top discard"}.`;
  else text = `${who} discards ${cardShort(a.card)}${a.knock ? " and knocks" : ""}.`;
  if (a.timeout) text += " (Played by the table: out of time.)";
  return text;
}

function resultWords(d) {
  const r = d.result;
  if (!r || !r.result) return "";
  if (r.result === "dead") return " A dead hand: nobody scores.";
  const who = d.players[r.scorer];
  const kind = { gin: "Gin", undercut: "Undercut", knock: "Knock" }[r.result] || r.result;
  return ` ${kind}: ${who} scores ${r.points}.`;
}

function endWords(d) {
  if (!d.end) return "";
  const by = d.ended_by === null || d.ended_by === undefined ? "" : d.players[d.ended_by];
  const won = d.winner === null || d.winner === undefined ? null : d.players[d.winner];
  if (d.end === "aborted") return " The match was aborted: no result.";
  if (d.end === "resigned") return ` ${by} resigned: ${won} wins the match.`;
  if (d.end === "timeout") return ` ${by} ran out of time three turns in a row: ${won} wins the match.`;
  return won === null ? " The match ends in a tie." : ` ${won} wins the match.`;
}

function seatRow(d, seat) {
  const row = el("div", { class: "reveal-seat", "data-testid": `replay-seat-${seat}` });
  const toPlay = d.to_play === seat ? " · to play" : "";
  row.append(el("h3", {}, el("span", { text: `${d.players[seat]}${toPlay}` }),
    el("span", { class: "dw", text: plural((d.scores || [0, 0])[seat], "point", "points") })));
  const hand = el("div", { class: "replay-hand" });
  for (const c of sortCards((d.hands || [[], []])[seat] || [], "suit")) hand.append(cardElement(c));
  row.append(hand);
  return row;
}

function render(d) {
  R.data = d;
  R.step = d.step;
  R.steps = d.steps;
  document.title = `Replay: ${d.players[0]} v ${d.players[1]} · Gin Rummy`;
  $("replay-title").textContent = `Replay: ${d.players[0]} v ${d.players[1]} · hand ${d.hand_index + 1}`;
  const discards = d.discards || [];
  const pileSlot = el("div", { class: "pile-slot" });
  if (discards.length) pileSlot.append(cardElement(discards[discards.length - 1]));
  const mid = el("div", { class: "replay-middle" },
    el("div", { class: "pile" }, el("div", { class: "pile-slot" }, cardBack()),
      el("div", { class: "pile-label", text: `Stock (${d.stock_count})` })),
    el("div", { class: "pile" }, pileSlot,
      el("div", { class: "pile-label", text: `Discards (${discards.length})` })));
  const board = $("replay-board");
  board.hidden = false;
  board.replaceChildren(seatRow(d, 1), mid, seatRow(d, 0),
    el("p", { class: "headline", "data-testid": "replay-line", text: described(d) + resultWords(d) + endWords(d) }));
  $("replay-controls").hidden = false;
  $("replay-step").textContent = `Step ${d.step} of ${d.steps}`;
  const pos = boardPosition(d);
  $("replay-analyse").hidden = !pos;
  if (pos) $("replay-analyse").href = analysisHref(pos);
  const range = $("replay-range");
  range.max = String(d.steps);
  range.value = String(d.step);
  $("replay-prev").disabled = $("replay-first").disabled = d.step <= 0;
  $("replay-next").disabled = $("replay-last").disabled = d.step >= d.steps;
}

/** The analysis board on this step, as the seat to play saw it (R11: its own hand, the
 *  pile, the stock and what its opponent took, threw and passed); null after the hand. */
function boardPosition(d) {
  if (d.result || d.to_play === null || d.to_play === undefined || !d.history) return null;
  const seat = d.to_play;
  return {
    seat, dealer: d.dealer, upcard: d.upcard, hand: d.hands[seat], pile: d.discards,
    ...seenMoves(d.history, seat, d.upcard), stock: d.stock_count,
    to_play: d.phase === "discard" ? "discard" : "draw", scores: d.scores,
    options: d.options || {},
  };
}

async function load(step) {
  if (R.busy) return;
  R.busy = true;
  try {
    render(await api(`/api/matches/${encodeURIComponent(matchId)}/replay?step=${step}`));
    say("");
  } catch (e) {
    say(e.message);
  } finally {
    R.busy = false;
  }
}

function wire() {
  installSuitSprite();
  applyCardPrefs();
  const id = encodeURIComponent(matchId);
  $("review-link").href = `/review/${id}`;
  $("record-link").href = `/api/matches/${id}/record`;
  $("replay-first").addEventListener("click", () => load(0));
  $("replay-prev").addEventListener("click", () => load(Math.max(0, R.step - 1)));
  $("replay-next").addEventListener("click", () => load(Math.min(R.steps, R.step + 1)));
  $("replay-last").addEventListener("click", () => load(R.steps));
  $("replay-range").addEventListener("change", (e) => load(Number(e.target.value)));
  document.addEventListener("keydown", (ev) => {
    if (!R.data || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.target && ev.target.tagName === "INPUT") return;
    const to = { ArrowLeft: R.step - 1, ArrowRight: R.step + 1, Home: 0, End: R.steps }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    load(Math.max(0, Math.min(R.steps, to)));
  });
  load(0);
}

wire();
