// The table's dialogs: the end-of-hand panel (with "Play again" at the end of a match),
// the score sheet, the discard history and the step-by-step replay.

import { api } from "./api.js";
import { cardBack, cardElement, cardShort, RANKS, sortCards } from "./cards.js";
import { endLine } from "./clock.js";
import { renderEnding } from "./ending.js";
import { flyFrom, popIn, sound } from "./fx.js";
import { number, t, tn } from "./i18n.js";
import { $, describeAction, el, isSet, meldKind, meldLabel, showMessage } from "./render.js";
import { base, me, nameOf, opp, store } from "./state.js";

// ------------------------------------------------------------------ the hand's result

export function resultTitle(r, handNo) {
  // Told from this seat's side: "you knock", never the player's own name in the third person.
  const mine = r.knocker === me();
  const name = r.knocker != null ? nameOf(r.knocker) : "";
  const hand = number(handNo);
  switch (r.result) {
    case "gin": return mine ? t("Hand {hand}: You go gin!", { hand }) : t("Hand {hand}: {name} goes gin!", { hand, name });
    case "undercut": return r.scorer === me() ? t("Hand {hand}: You undercut!", { hand }) : t("Hand {hand}: Undercut!", { hand });
    case "knock": return mine ? t("Hand {hand}: You knock", { hand }) : t("Hand {hand}: {name} knocks", { hand, name });
    case "dead": return t("Hand {hand}: a dead hand", { hand });
    default: return t("Hand {hand} is over", { hand });
  }
}

export function resultLine(r) {
  const dw = r.deadwood || [0, 0];
  if (r.result === "dead") {
    return t("The stock ran down to two cards with no knock. Nobody scores, neither hand is shown, and the same dealer deals again.");
  }
  const k = r.knocker;
  const d = 1 - k;
  // told from this seat's side: the gin and the knock score for the knocker, the undercut
  // for the defender
  const p = {
    knocker: number(dw[k]), defender: number(dw[d]), difference: number(dw[k] - dw[d]),
    points: number(r.points), name: nameOf(k === me() ? d : k),
  };
  if (r.result === "gin") {
    return k === me()
      ? t("You go gin. {name} has {defender} deadwood and may not lay off: you score {defender} + 25 gin bonus = {points}.", p)
      : t("{name} goes gin. You have {defender} deadwood and may not lay off: {name} scores {defender} + 25 gin bonus = {points}.", p);
  }
  if (r.result === "undercut") {
    return k === me()
      ? t("You knock with {knocker}, but {name} has only {defender} after lay-offs: {name} scores {difference} + 25 undercut bonus = {points}.", p)
      : t("{name} knocks with {knocker}, but you have only {defender} after lay-offs: you score {difference} + 25 undercut bonus = {points}.", p);
  }
  return k === me()
    ? t("You knock with {knocker}; {name} has {defender} after lay-offs: you score {points}.", p)
    : t("{name} knocks with {knocker}; you have {defender} after lay-offs: {name} scores {points}.", p);
}

const rankOf = (c) => RANKS.indexOf(c[0]);

function revealSeat(seat, ho) {
  const r = ho.result;
  const role = r.knocker === seat ? (r.result === "gin" ? t("went gin") : t("knocked")) : t("defender");
  const arr = ho.arrangements ? ho.arrangements[seat] : null;
  const cards = ho.hands[seat] || [];
  const box = el("div", { class: "reveal-seat", "data-testid": `reveal-${seat === me() ? "me" : "opponent"}` });
  const dw = r.deadwood ? r.deadwood[seat] : arr ? arr.deadwood : null;
  box.append(
    el("h3", {},
      el("span", {}, (seat === me() && nameOf(seat) !== t("You") ? nameOf(seat) + " " + t("(you)") : nameOf(seat)) + " ",
        el("span", { class: "role", text: `· ${role}` })),
      el("span", { class: "dw", text: dw != null ? t("Deadwood {points}", { points: number(dw) }) : "" })),
  );
  const row = el("div", { class: "reveal-hand" });
  const layoffs = ho.layoffs || [];
  const laid = new Set(layoffs.map((x) => x.card));
  if (arr) {
    (arr.melds || []).forEach((m, mi) => {
      const extra = seat === r.knocker ? layoffs.filter((x) => x.meld === mi).map((x) => x.card) : [];
      // A run is shown in rank order with the laid-off cards in their places (R8); a set's
      // fourth card goes at its end.
      const all = !isSet(m) ? [...m, ...extra].sort((a, b) => rankOf(a) - rankOf(b)) : [...m, ...extra];
      const g = el("div", { class: "group meld", role: "group", "aria-label": meldLabel(m, all) });
      g.append(el("span", { class: "group-label", "aria-hidden": "true", text: meldKind(m) }));
      for (const c of all) {
        if (extra.includes(c)) {
          const lc = cardElement(c, { extraLabel: t("laid off by {name}", { name: nameOf(1 - seat) }) });
          lc.classList.add("laid-off");
          lc.dataset.testid = "laid-off";
          lc.append(el("span", { class: "laid-tag", "aria-hidden": "true", text: "+" }));
          g.append(lc);
        } else {
          g.append(cardElement(c));
        }
      }
      if (extra.length) g.append(el("span", { class: "laid-caption", "aria-hidden": "true", text: t("+ laid off") }));
      row.append(g);
    });
    const shown = new Set((arr.melds || []).flat());
    const rest = (arr.deadwood_cards || []).filter((c) => !shown.has(c));
    if (rest.length) {
      const g = el("div", { class: "group deadwood", role: "group", "aria-label": t("Deadwood") });
      g.append(el("span", { class: "group-label", "aria-hidden": "true", text: t("Deadwood") }));
      for (const c of sortCards(rest, "suit")) g.append(cardElement(c));
      row.append(g);
    }
    if (seat !== r.knocker && laid.size) {
      row.append(el("span", { class: "hint", text: t("Laid off: {cards}", { cards: [...laid].map(cardShort).join(" ") }) }));
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
    target.append(el("p", { class: "empty", text: t("No hand has been scored yet.") }));
    return;
  }
  const order = [me(), opp()];
  const table = el("table", { class: "score-sheet", "data-testid": "score-sheet-table" });
  table.append(el("thead", {}, el("tr", {}, el("th", { text: t("Hand") }), el("th", { text: t("Result") }),
    ...order.map((s) => el("th", { scope: "col", text: nameOf(s) })))));
  const body = el("tbody");
  const label = { knock: t("Knock"), gin: t("Gin"), undercut: t("Undercut"), dead: t("Dead hand") };
  for (const row of rows) {
    const tr = el("tr", {}, el("td", { text: number(row.hand + 1) }), el("td", { text: label[row.result] || row.result }));
    for (const s of order) {
      const td = el("td");
      if (row.scorer === s) td.append(el("span", { class: "pts", text: `+${number(row.points)} ` }));
      td.append(el("span", { text: row.scores ? number(row.scores[s]) : "" }));
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  table.append(el("tfoot", {}, el("tr", { "data-testid": "sheet-total" }, el("td", { text: t("Total") }), el("td"),
    ...order.map((s) => el("td", { text: number(S.scores[s]) })))));
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
      reveal.append(el("div", { class: "dead-note", "data-testid": "dead-hand", text: t("Dead hand: nothing is revealed.") }));
    }
    const banner = $("winner-banner");
    banner.hidden = !finished;
    if (finished) {
      const w = S.winner;
      const big = w == null ? t("A tie: no winner") : w === me() ? t("You win the match!") : t("{name} wins the match", { name: nameOf(w) });
      // (replaceChildren writes a null child as the text "null": leave it out instead)
      banner.replaceChildren(...[
        el("div", { class: "big", text: big }),
        el("div", { text: `${nameOf(me())} ${number(S.scores[me()])} · ${nameOf(opp())} ${number(S.scores[opp()])}` }),
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
  next.textContent = ready[me()] ? t("Ready") : t("Next hand");
  $("ready-note").textContent = !finished && ready[me()] && !ready[opp()]
    ? t("Waiting for {name}…", { name: nameOf(opp()) })
    : !finished && ready[opp()] && !ready[me()] && S.opponent !== "computer" ? t("{name} is ready.", { name: nameOf(opp()) }) : "";
  $("replay-button").hidden = !finished;
  $("over-download-button").hidden = false;
  $("lobby-link").hidden = !finished;
  renderRematch();
  const key = `${ho.hand}:${S.status}`;
  overlay.hidden = store.dismissedOver === key;
  $("result-reopen").hidden = store.dismissedOver !== key;
  if (fresh && !overlay.hidden) {
    overlay.scrollTop = 0;
    sheetToEnd();
    setTimeout(() => (finished ? $("again-button") : next).focus({ preventScroll: true }), 50);
  }
}

/** The result panel's score sheet scrolled to its latest hand and Total once the panel is
 *  shown (drawn while the panel was closed, a sheet cannot scroll: it stayed at its top,
 *  the last hand's row under the sticky Total). */
function sheetToEnd() {
  requestAnimationFrame(() => {
    const sheet = $("hand-over-sheet");
    sheet.scrollTop = sheet.scrollHeight;
  });
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
    $("hand-over-title").textContent = S.end === "aborted" ? t("Match aborted") : t("Match over");
    $("hand-over-line").textContent = "";
    $("reveal").replaceChildren();
    const w = S.winner;
    const big = S.end === "aborted" ? t("No result") : w === me() ? t("You win the match!") : t("{name} wins the match", { name: nameOf(w) });
    const banner = $("winner-banner");
    banner.hidden = false;
    banner.replaceChildren(
      el("div", { class: "big", text: big }),
      el("div", { text: `${nameOf(me())} ${number(S.scores[me()])} · ${nameOf(opp())} ${number(S.scores[opp()])}` }),
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
    sheetToEnd();
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
    b.textContent = t("Go to the rematch");
    note.textContent = "";
  } else if (rm.offered_by === opp() && !rm.accepted) {
    b.textContent = t("Accept the rematch");
    note.textContent = t("{name} wants to play again.", { name: nameOf(opp()) });
  } else if (rm.offered_by === me()) {
    b.textContent = t("Rematch asked");
    b.disabled = true;
    note.textContent = t("Waiting for {name}…", { name: nameOf(opp()) });
  } else {
    b.textContent = t("Play again");
    note.textContent = "";
  }
  renderEnding(); // no rematch for a daily or an arena match: what they offer instead
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
  if (!discards.length) body.append(el("p", { class: "empty", text: t("The discard pile is empty.") }));
  discards.forEach((c) => {
    const who = c === up && !by.has(c) ? t("up-card") : by.has(c) ? nameOf(by.get(c)) : "";
    body.append(el("div", { class: "entry" }, cardElement(c, { small: true }), el("span", { text: who }),
      late.has(c) ? el("span", { class: "timeout-mark", "data-testid": "timeout-mark", title: t("Played by the table: out of time"), text: t("out of time") }) : null));
  });
  openOverlay("history-overlay");
}

// ------------------------------------------------------------------ replay

export const replay = { step: 0, steps: 0 };

const points = (n) => tn("{n} point", "{n} points", n);

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
    row.append(el("h3", {}, el("span", { text: toPlay ? t("{name} · to play", { name: nameOf(seat) }) : nameOf(seat) }),
      el("span", { class: "dw", text: points((d.scores || [0, 0])[seat]) })));
    const hand = el("div", { class: "replay-hand" });
    for (const c of sortCards((d.hands || [[], []])[seat] || [], "suit")) hand.append(cardElement(c));
    row.append(hand);
    return row;
  };
  const discards = d.discards || [];
  const mid = el("div", { class: "replay-middle" });
  const stock = el("div", { class: "pile" }, el("div", { class: "pile-slot" }, cardBack()), el("div", { class: "pile-label", text: t("Stock ({count})", { count: number(d.stock_count) }) }));
  const pileSlot = el("div", { class: "pile-slot" });
  if (discards.length) pileSlot.append(cardElement(discards[discards.length - 1]));
  const pile = el("div", { class: "pile" }, pileSlot, el("div", { class: "pile-label", text: t("Discards ({count})", { count: number(discards.length) }) }));
  mid.append(stock, pile);
  // The replay shows everything (the match is over), so a stock draw names its card.
  const la = d.last_action ? { ...d.last_action, card: d.last_action.card || d.last_action.card_drawn } : null;
  const what = !la ? t("The deal.")
    : la.timeout ? describeAction(la, la.seat) + " " + t("(played by the table: out of time)") : describeAction(la, la.seat);
  let res = "";
  if (d.result && d.result.result) res = ` ${resultTitle(d.result, d.hand_index + 1)}.`;
  if (d.end && d.end !== "target") res += ` ${endLine(d)}`;
  board.append(seatRow(1 - me()), mid, seatRow(me()), el("p", { class: "headline", text: what + res }));
  $("replay-title").textContent = t("Replay · hand {hand}", { hand: number(d.hand_index + 1) });
  $("replay-step").textContent = t("Step {step} of {steps}", { step: number(d.step), steps: number(d.steps) });
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
