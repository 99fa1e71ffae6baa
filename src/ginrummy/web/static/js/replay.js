// The replay page (/replay/ID): a finished match step by step, both hands shown (the
// record is public once the match is over), from `GET /api/matches/ID/replay?step=K`
// (docs/web-api.md). The profile's and the spectator's "Replay" links open it.

import { api } from "./api.js";
import { cardBack, cardElement, cardShort, installSuitSprite, sortCards } from "./cards.js";
import { el } from "./dom.js";
import { number, t, tn } from "./i18n.js";
import { applyCardPrefs } from "./prefs.js";
import { analysisHref, seenMoves } from "./training.js";

const $ = (id) => document.getElementById(id);
const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const R = { step: 0, steps: 0, data: null, busy: false };

function say(text) {
  $("message").textContent = text;
  $("message").className = `message ${text ? "error" : ""}`;
}

/** What the action shown did, in words (the match is over: every card is named). */
function described(d) {
  const a = d.last_action;
  if (!a) return t("Hand {hand} is dealt: {name} deals.", { hand: number(d.hand_index + 1), name: d.players[d.dealer] });
  const name = d.players[a.seat];
  const drawn = a.card || a.card_drawn;
  const card = drawn ? cardShort(drawn) : "";
  let text;
  if (a.act === "pass") text = t("{name} passes on the up-card.", { name });
  else if (a.act === "draw" && a.from === "stock") {
    text = card ? t("{name} draws {card} from the stock.", { name, card }) : t("{name} draws a card from the stock.", { name });
  } else if (a.act === "draw") text = card ? t("{name} takes {card}.", { name, card }) : t("{name} takes the top discard.", { name });
  else {
    const p = { name, card: cardShort(a.card) };
    text = a.knock ? t("{name} discards {card} and knocks.", p) : t("{name} discards {card}.", p);
  }
  if (a.timeout) text += " " + t("(Played by the table: out of time.)");
  return text;
}

function resultWords(d) {
  const r = d.result;
  if (!r || !r.result) return "";
  if (r.result === "dead") return " " + t("A dead hand: nobody scores.");
  const p = { name: d.players[r.scorer], points: number(r.points), result: r.result };
  const line = {
    gin: t("Gin: {name} scores {points}.", p), undercut: t("Undercut: {name} scores {points}.", p),
    knock: t("Knock: {name} scores {points}.", p),
  }[r.result] || t("{result}: {name} scores {points}.", p);
  return ` ${line}`;
}

function endWords(d) {
  if (!d.end) return "";
  const by = d.ended_by === null || d.ended_by === undefined ? "" : d.players[d.ended_by];
  const won = d.winner === null || d.winner === undefined ? null : d.players[d.winner];
  if (d.end === "aborted") return " " + t("The match was aborted: no result.");
  if (d.end === "resigned") return " " + t("{name} resigned: {winner} wins the match.", { name: by, winner: won });
  if (d.end === "timeout") {
    return " " + t("{name} ran out of time three turns in a row: {winner} wins the match.", { name: by, winner: won });
  }
  return " " + (won === null ? t("The match ends in a tie.") : t("{name} wins the match.", { name: won }));
}

function seatRow(d, seat) {
  const row = el("div", { class: "reveal-seat", "data-testid": `replay-seat-${seat}` });
  const name = d.players[seat];
  row.append(el("h2", {}, el("span", { text: d.to_play === seat ? t("{name} · to play", { name }) : name }),
    el("span", { class: "dw", text: tn("{n} point", "{n} points", (d.scores || [0, 0])[seat]) })));
  const hand = el("div", { class: "replay-hand" });
  for (const c of sortCards((d.hands || [[], []])[seat] || [], "suit")) hand.append(cardElement(c));
  row.append(hand);
  return row;
}

function render(d) {
  R.data = d;
  R.step = d.step;
  R.steps = d.steps;
  const p = { first: d.players[0], second: d.players[1], hand: number(d.hand_index + 1) };
  document.title = t("Replay: {first} v {second} · Gin Rummy", p);
  $("replay-title").textContent = t("Replay: {first} v {second} · hand {hand}", p);
  const discards = d.discards || [];
  const pileSlot = el("div", { class: "pile-slot" });
  if (discards.length) pileSlot.append(cardElement(discards[discards.length - 1]));
  const mid = el("div", { class: "replay-middle" },
    el("div", { class: "pile" }, el("div", { class: "pile-slot" }, cardBack()),
      el("div", { class: "pile-label", text: t("Stock ({count})", { count: number(d.stock_count) }) })),
    el("div", { class: "pile" }, pileSlot,
      el("div", { class: "pile-label", text: t("Discards ({count})", { count: number(discards.length) }) })));
  const board = $("replay-board");
  board.hidden = false;
  board.replaceChildren(seatRow(d, 1), mid, seatRow(d, 0),
    el("p", { class: "headline", "data-testid": "replay-line", text: described(d) + resultWords(d) + endWords(d) }));
  $("replay-controls").hidden = false;
  $("replay-step").textContent = t("Step {step} of {steps}", { step: number(d.step), steps: number(d.steps) });
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
