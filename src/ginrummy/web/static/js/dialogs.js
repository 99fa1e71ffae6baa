// The table's dialogs: the end-of-hand panel (with "Play again" at the end of a match),
// the score sheet, the discard history and the step-by-step replay.

import { api } from "./api.js";
import { cardBack, cardElement, cardName, cardShort, RANKS, sortCards } from "./cards.js";
import { endLine } from "./clock.js";
import { flyFrom, popIn, sound } from "./fx.js";
import { $, describeAction, el, showMessage } from "./render.js";
import { base, me, nameOf, opp, store } from "./state.js";

// ------------------------------------------------------------------ the hand's result

export function resultTitle(r, handNo) {
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

const meldKind = (m) => (m[0][0] === m[m.length - 1][0] ? "Set" : "Run");
const rankOf = (c) => RANKS.indexOf(c[0]);

function revealSeat(seat, ho) {
  const r = ho.result;
  const role = r.knocker === seat ? (r.result === "gin" ? "went gin" : "knocked") : "defender";
  const arr = ho.arrangements ? ho.arrangements[seat] : null;
  const cards = ho.hands[seat] || [];
  const box = el("div", { class: "reveal-seat", "data-testid": `reveal-${seat === me() ? "me" : "opponent"}` });
  const dw = r.deadwood ? r.deadwood[seat] : arr ? arr.deadwood : null;
  box.append(
    el("h3", {},
      el("span", {}, `${nameOf(seat)}${seat === me() && nameOf(seat) !== "You" ? " (you)" : ""} `, el("span", { class: "role", text: `· ${role}` })),
      el("span", { class: "dw", text: dw != null ? `Deadwood ${dw}` : "" })),
  );
  const row = el("div", { class: "reveal-hand" });
  const layoffs = ho.layoffs || [];
  const laid = new Set(layoffs.map((x) => x.card));
  if (arr) {
    (arr.melds || []).forEach((m, mi) => {
      const extra = seat === r.knocker ? layoffs.filter((x) => x.meld === mi).map((x) => x.card) : [];
      // A run is shown in rank order with the laid-off cards in their places (R8); a set's
      // fourth card goes at its end.
      const all = meldKind(m) === "Run" ? [...m, ...extra].sort((a, b) => rankOf(a) - rankOf(b)) : [...m, ...extra];
      const g = el("div", { class: "group meld", role: "group", "aria-label": `${meldKind(m)}: ${all.map(cardName).join(", ")}` });
      g.append(el("span", { class: "group-label", "aria-hidden": "true", text: meldKind(m) }));
      for (const c of all) {
        if (extra.includes(c)) {
          const lc = cardElement(c, { extraLabel: `laid off by ${nameOf(1 - seat)}` });
          lc.classList.add("laid-off");
          lc.dataset.testid = "laid-off";
          lc.append(el("span", { class: "laid-tag", "aria-hidden": "true", text: "+" }));
          g.append(lc);
        } else {
          g.append(cardElement(c));
        }
      }
      if (extra.length) g.append(el("span", { class: "laid-caption", "aria-hidden": "true", text: "+ laid off" }));
      row.append(g);
    });
    const shown = new Set((arr.melds || []).flat());
    const rest = (arr.deadwood_cards || []).filter((c) => !shown.has(c));
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
  row.querySelectorAll(".card").forEach((c, i) => popIn(c, i * 25));
  box.append(row);
  return box;
}

export function renderSheet(target) {
  const S = store.S;
  const rows = S.score_sheet || [];
  target.replaceChildren();
  if (!rows.length) {
    target.append(el("p", { class: "empty", text: "No hand has been scored yet." }));
    return;
  }
  const order = [me(), opp()];
  const table = el("table", { class: "score-sheet", "data-testid": "score-sheet-table" });
  table.append(el("thead", {}, el("tr", {}, el("th", { text: "Hand" }), el("th", { text: "Result" }),
    ...order.map((s) => el("th", { scope: "col", text: nameOf(s) })))));
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
  table.append(el("tfoot", {}, el("tr", { "data-testid": "sheet-total" }, el("td", { text: "Total" }), el("td"),
    ...order.map((s) => el("td", { text: String(S.scores[s]) })))));
  target.append(table);
  target.scrollTop = target.scrollHeight; // the latest hands and the total in view
}

export function renderHandOver(prev) {
  const S = store.S;
  const ho = S.hand_over;
  const overlay = $("hand-over");
  if (!ho && S.status === "finished") return renderEndedMidHand(prev);
  if (!ho) {
    overlay.hidden = true;
    $("result-reopen").hidden = true;
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
      const defender = revealSeat(1 - first, ho);
      reveal.append(revealSeat(first, ho), defender);
      // Lay-offs travel from the defender's hand onto the knocker's melds (R8).
      requestAnimationFrame(() => {
        const from = defender.querySelector(".reveal-hand").getBoundingClientRect();
        reveal.querySelectorAll("[data-testid=laid-off]").forEach((c, i) =>
          flyFrom(c, from, { delay: 450 + i * 120, duration: 520 }));
      });
    } else {
      reveal.append(el("div", { class: "dead-note", "data-testid": "dead-hand", text: "Dead hand: nothing is revealed." }));
    }
    const banner = $("winner-banner");
    banner.hidden = !finished;
    if (finished) {
      const w = S.winner;
      const big = w == null ? "A tie: no winner" : w === me() ? "You win the match!" : `${nameOf(w)} wins the match`;
      // (replaceChildren writes a null child as the text "null": leave it out instead)
      banner.replaceChildren(...[
        el("div", { class: "big", text: big }),
        el("div", { text: `${nameOf(me())} ${S.scores[me()]} · ${nameOf(opp())} ${S.scores[opp()]}` }),
        endLine(S) ? el("div", { class: "end-line", "data-testid": "match-end", text: endLine(S) }) : null,
      ].filter(Boolean));
    }
    if (prev) sound(r.result === "gin" ? "gin" : r.result === "dead" ? "discard" : "knock");
  }
  renderSheet($("hand-over-sheet"));
  const ready = ho.ready || [false, false];
  const next = $("next-button");
  next.hidden = finished;
  next.disabled = Boolean(ready[me()]);
  next.textContent = ready[me()] ? "Ready" : "Next hand";
  $("ready-note").textContent = !finished && ready[me()] && !ready[opp()]
    ? `Waiting for ${nameOf(opp())}…`
    : !finished && ready[opp()] && !ready[me()] && S.opponent !== "computer" ? `${nameOf(opp())} is ready.` : "";
  $("replay-button").hidden = !finished;
  $("over-download-button").hidden = false;
  $("lobby-link").hidden = !finished;
  renderRematch();
  const key = `${ho.hand}:${S.status}`;
  overlay.hidden = store.dismissedOver === key;
  $("result-reopen").hidden = store.dismissedOver !== key;
  if (fresh && !overlay.hidden) {
    overlay.scrollTop = 0;
    setTimeout(() => (finished ? $("again-button") : next).focus({ preventScroll: true }), 50);
  }
}

/**
 * The end-of-match dialog for a match that ended in the middle of a hand (a resignation,
 * an abort, the third turn lost on time): how it ended and the scores; no hand is shown
 * (R11: the cards in play stay hidden).
 */
function renderEndedMidHand(prev) {
  const S = store.S;
  const overlay = $("hand-over");
  const fresh = !prev || prev.status !== S.status;
  const key = `end:${S.status}`;
  if (fresh) {
    $("hand-over-title").textContent = S.end === "aborted" ? "Match aborted" : "Match over";
    $("hand-over-line").textContent = "";
    $("reveal").replaceChildren();
    const w = S.winner;
    const big = S.end === "aborted" ? "No result" : w === me() ? "You win the match!" : `${nameOf(w)} wins the match`;
    const banner = $("winner-banner");
    banner.hidden = false;
    banner.replaceChildren(
      el("div", { class: "big", text: big }),
      el("div", { text: `${nameOf(me())} ${S.scores[me()]} · ${nameOf(opp())} ${S.scores[opp()]}` }),
      el("div", { class: "end-line", "data-testid": "match-end", text: endLine(S) }),
    );
  }
  renderSheet($("hand-over-sheet"));
  $("next-button").hidden = true;
  $("ready-note").textContent = "";
  $("replay-button").hidden = false;
  $("over-download-button").hidden = false;
  $("lobby-link").hidden = false;
  renderRematch();
  overlay.hidden = store.dismissedOver === key;
  $("result-reopen").hidden = store.dismissedOver !== key;
  if (fresh && !overlay.hidden) {
    overlay.scrollTop = 0;
    setTimeout(() => $("again-button").focus({ preventScroll: true }), 50);
  }
}

/** "Play again": for the computer at once; between friends, ask, or accept the other's ask. */
export function renderRematch() {
  const S = store.S;
  const b = $("again-button");
  const note = $("again-note");
  if (!S || S.status !== "finished") {
    b.hidden = true;
    note.textContent = "";
    return;
  }
  const rm = store.rematch || { offered_by: null };
  const moved = localStorage.getItem(`ginrummy.rematch.${S.id}.${S.seat}`);
  b.hidden = false;
  b.disabled = false;
  if (moved) {
    b.textContent = "Go to the rematch";
    note.textContent = "";
  } else if (rm.offered_by === opp() && !rm.accepted) {
    b.textContent = "Accept the rematch";
    note.textContent = `${nameOf(opp())} wants to play again.`;
  } else if (rm.offered_by === me()) {
    b.textContent = "Rematch asked";
    b.disabled = true;
    note.textContent = `Waiting for ${nameOf(opp())}…`;
  } else {
    b.textContent = "Play again";
    note.textContent = "";
  }
}

// ------------------------------------------------------------------ overlays

const openers = new Map(); // overlay id -> the element that had focus when it opened

export function openOverlay(id) {
  if ($(id).hidden) openers.set(id, document.activeElement);
  $(id).hidden = false;
  const focusable = $(id).querySelector("button, [href], input");
  if (focusable) focusable.focus();
}

export function closeOverlay(id) {
  // Give focus back to what opened the dialog, so keyboard play carries on where it was.
  $(id).hidden = true;
  const back = openers.get(id);
  openers.delete(id);
  if (back && back.isConnected && !back.closest("[hidden]")) back.focus({ preventScroll: true });
}

export const MODALS = ["history-overlay", "sheet-overlay", "replay-overlay", "knock-ask", "keys-overlay"];

export function trapFocus(ev) {
  // Tab stays inside an open modal dialog (aria-modal="true").
  const open = MODALS.find((id) => !$(id).hidden);
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

export function showHistory() {
  const S = store.S;
  const body = $("history-body");
  body.replaceChildren();
  const discards = S.view.discards || [];
  const by = new Map();
  const up = S.view.upcard || discards[0];
  const late = new Set(); // discards the table made for a seat whose time was out
  for (const h of S.view.history || []) {
    if (h.act !== "discard") continue;
    by.set(h.card, h.seat);
    if (h.timeout) late.add(h.card);
  }
  if (!discards.length) body.append(el("p", { class: "empty", text: "The discard pile is empty." }));
  discards.forEach((c) => {
    const who = c === up && !by.has(c) ? "up-card" : by.has(c) ? nameOf(by.get(c)) : "";
    body.append(el("div", { class: "entry" }, cardElement(c, { small: true }), el("span", { text: who }),
      late.has(c) ? el("span", { class: "timeout-mark", "data-testid": "timeout-mark", title: "Played by the table: out of time", text: "out of time" }) : null));
  });
  openOverlay("history-overlay");
}

// ------------------------------------------------------------------ replay

export const replay = { step: 0, steps: 0 };

const points = (n) => `${n} point${n === 1 ? "" : "s"}`;

export async function loadReplay(step) {
  try {
    const data = await api(`${base()}/replay?step=${step}`, { token: store.token });
    replay.step = data.step;
    replay.steps = data.steps;
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
      el("span", { class: "dw", text: points((d.scores || [0, 0])[seat]) })));
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
  const what = la ? describeAction(la, la.seat) + (la.timeout ? " (played by the table: out of time)" : "") : "The deal.";
  let res = "";
  if (d.result && d.result.result) res = ` ${resultTitle(d.result, d.hand_index + 1)}.`;
  if (d.end && d.end !== "target") res += ` ${endLine(d)}`;
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

export function openReplay() {
  openOverlay("replay-overlay");
  loadReplay(0);
}
