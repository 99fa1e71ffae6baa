// The puzzle page (/puzzles, /puzzles/ID, /puzzles/mine; docs/training.md "Puzzles"): the
// position as its player saw it (R11), drawn with the table's cards; the player makes the
// move on the cards (a card to discard, the stock or the pile to draw, Take or Pass, Knock)
// and the server answers (docs/web-api.md, "Training"): right or wrong, the best move,
// every legal move's win chance with its standard error, and one sentence why. A refused
// move gets the server's sentence and changes nothing. The streak lives in this browser;
// an account's puzzle rating and history come from the server.

import { api, signedIn, useSession } from "./api.js";
import { cardBack, cardElement, cardShort, installSuitSprite, sortCards } from "./cards.js";
import { decimal, el } from "./dom.js";
import { number, t, tn } from "./i18n.js";
import { applyCardPrefs } from "./prefs.js";
import { actionWords, analysisHref, pct, positionOf, sameAction } from "./training.js";

const $ = (id) => document.getElementById(id);
const STORE = "ginrummy.puzzles";
const THEME_KEY = "ginrummy.puzzles.theme";

const P = { puzzle: null, answered: false, knockMode: false, account: null, mine: false, busy: false };

// ------------------------------------------------------------------ this browser's record

function local() {
  try {
    const s = JSON.parse(localStorage.getItem(STORE) || "null");
    if (s && Number.isInteger(s.streak) && Array.isArray(s.history)) return s;
  } catch {
    /* unreadable: start afresh */
  }
  return { streak: 0, best: 0, history: [] };
}

function remember(puzzle, correct) {
  const s = local();
  s.streak = correct ? s.streak + 1 : 0;
  s.best = Math.max(s.best || 0, s.streak);
  s.history.unshift({ id: puzzle.id, correct, themes: puzzle.themes || [], at: Date.now(), mine: Boolean(puzzle.private) });
  s.history = s.history.slice(0, 100);
  try {
    localStorage.setItem(STORE, JSON.stringify(s));
  } catch {
    /* private mode: not kept */
  }
  return s;
}

function say(text, kind = "info") {
  const m = $("message");
  m.className = `message ${kind}`;
  m.textContent = text;
}

// ------------------------------------------------------------------ drawing the position

function smallCards(cards) {
  return cards.map((c) => cardElement(c, { small: true }));
}

function fact(label, cards, testid) {
  if (!cards.length) return null;
  return el("div", { class: "pz-fact", "data-testid": testid }, el("span", { class: "tr-label", text: label }), ...smallCards(cards));
}

function legalOf(pred) {
  return (P.puzzle.legal || []).filter(pred);
}

function render() {
  const p = P.puzzle;
  const v = p.view;
  const c = p.context;
  const off = P.answered;
  $("pz-board").hidden = false;
  $("pz-title").textContent = p.private ? t("Your own mistake") : t("Puzzle");
  const bits = [t("Hand {hand}", { hand: number(c.hand_index + 1) }),
    t("you {mine}, opponent {theirs}, to {target}", { mine: number(c.scores[0]), theirs: number(c.scores[1]), target: number(c.target) }),
    c.dealer === c.seat ? t("you dealt") : t("the opponent dealt")];
  if (!p.private) bits.push(t("difficulty {rating}", { rating: p.rating }));
  if (p.themes && p.themes.length) bits.push(p.themes.join(", "));
  if (p.private && p.mark) {
    const marked = {
      inaccuracy: t("marked as an inaccuracy in your match"), mistake: t("marked as a mistake in your match"),
      blunder: t("marked as a blunder in your match"),
    }[p.mark];
    bits.push(marked || `marked as a ${p.mark} in your match`);
  }
  $("pz-where").textContent = bits.join(" · ");
  const top = c.pile.length ? c.pile[c.pile.length - 1] : null;
  let task;
  if (c.phase === "offer") task = t("The up-card is the {card}: take it, or pass?", { card: cardShort(top) });
  else if (c.phase === "draw") task = top ? t("Your draw: the stock, or the {card}?", { card: cardShort(top) }) : t("Your draw.");
  else task = t("Your discard: which card? (Knock, or go gin, where the hand allows it.)");
  $("pz-task").textContent = off ? "" : task;
  document.body.dataset.phase = c.phase;
  document.body.dataset.puzzle = p.id;
  document.body.dataset.answered = String(off);

  // the opponent: ten backs (it is not its turn), and what it did in the open
  const opp = $("pz-opp-hand");
  opp.replaceChildren(...Array.from({ length: 10 }, () => cardBack({ small: true })));
  opp.setAttribute("role", "img");
  opp.setAttribute("aria-label", tn("The opponent holds {n} card", "The opponent holds {n} cards", 10));
  const facts = [
    fact(t("took from the pile"), c.opponent_took, "opponent-took"),
    fact(t("threw"), c.opponent_discarded, "opponent-threw"),
    fact(t("passed the up-card"), c.opponent_passed, "opponent-passed"),
  ].filter(Boolean);
  $("pz-facts").replaceChildren(...(facts.length ? facts : [el("span", { class: "hint", text: t("The opponent has not taken, thrown or passed a card yet.") })]));

  // the stock and the pile
  const canStock = legalOf((a) => a.act === "draw" && a.from === "stock").length > 0;
  const canPile = legalOf((a) => a.act === "draw" && a.from === "discard").length > 0;
  const stock = $("pz-stock");
  stock.replaceChildren();
  for (let i = 0; i < Math.min(2, Math.max(0, c.stock - 1)); i++) stock.append(cardBack());
  const back = cardBack({ tag: "button", label: canStock
    ? tn("Stock, {n} card: draw the top card", "Stock, {n} cards: draw the top card", c.stock)
    : tn("Stock, {n} card", "Stock, {n} cards", c.stock) });
  back.dataset.testid = "stock";
  back.disabled = off;
  back.addEventListener("click", () => answer({ act: "draw", from: "stock" }));
  stock.append(back, el("span", { class: "stock-count", "aria-hidden": "true", text: number(c.stock) }));
  stock.classList.toggle("clickable", canStock && !off);
  $("pz-stock-label").textContent = t("Stock ({count})", { count: number(c.stock) });
  const pile = $("pz-pile");
  pile.replaceChildren();
  if (c.pile.length > 1) {
    const under = cardElement(c.pile[c.pile.length - 2]);
    under.classList.add("under");
    under.setAttribute("aria-hidden", "true");
    pile.append(under);
  }
  if (top) {
    const topCard = cardElement(top, { tag: "button", extraLabel: canPile ? t("top of the discard pile: take it") : t("top of the discard pile") });
    topCard.dataset.testid = "discard-top";
    topCard.disabled = off;
    topCard.addEventListener("click", () => answer({ act: "draw", from: "discard" }));
    pile.append(topCard);
  }
  pile.classList.toggle("clickable", canPile && !off);
  $("pz-pile-count").textContent = `(${number(c.pile.length)})`;
  $("pz-pile-list").replaceChildren(el("span", { class: "tr-label", text: t("The pile, bottom first:") }), ...smallCards(c.pile));

  // the up-card offer
  const offering = c.phase === "offer" && !off;
  $("pz-offer").classList.toggle("idle", !offering);
  $("pz-offer").setAttribute("aria-hidden", String(!offering));
  $("pz-take").disabled = !offering;
  $("pz-pass").disabled = !offering;

  // the hand, and the Knock button where a knock is legal
  const knocks = new Set(legalOf((a) => a.act === "discard" && a.knock).map((a) => a.card));
  const kb = $("pz-knock");
  kb.hidden = knocks.size === 0 || off;
  kb.setAttribute("aria-pressed", String(P.knockMode));
  kb.textContent = P.knockMode ? t("Knock: pick a card") : t("Knock");
  $("pz-knock-hint").textContent = knocks.size && !off
    ? t("Cards marked K may knock (or go gin): {cards}.", { cards: [...knocks].map(cardShort).join(" ") }) : "";
  const hand = $("pz-hand");
  hand.classList.toggle("knock-mode", P.knockMode);
  hand.replaceChildren(...sortCards(v.hand).map((code) => {
    const card = cardElement(code, { tag: "button", extraLabel: knocks.has(code) ? t("knock allowed") : "" });
    card.dataset.testid = "hand-card";
    card.disabled = off;
    if (c.phase === "discard") card.classList.add("can-discard");
    if (knocks.has(code)) {
      card.classList.add("knock-ok");
      card.append(el("span", { class: "knock-tag", "aria-hidden": "true", text: "K" }));
    }
    card.addEventListener("click", () => answer({ act: "discard", card: code, knock: P.knockMode && knocks.has(code) }));
    return card;
  }));
  $("pz-analyse").href = analysisHref(positionOf(c, { options: v.options, history: v.history }));
}

// ------------------------------------------------------------------ answering

/** The legal move the click means (the server's own object), else the click as it is:
 *  the server refuses it with its sentence. */
function moveOf(click) {
  return (P.puzzle.legal || []).find((a) => sameAction(a, click)) || click;
}

async function answer(click) {
  if (!P.puzzle || P.answered || P.busy) return;
  const action = moveOf(click);
  P.busy = true;
  try {
    const out = await api(`/api/puzzles/${encodeURIComponent(P.puzzle.id)}/solve`, { method: "POST", body: { action } });
    P.answered = true;
    P.knockMode = false;
    say("");
    render();
    showAnswer(action, out);
  } catch (e) {
    say(e.message, "error"); // refused: nothing changes
  } finally {
    P.busy = false;
  }
}

/** A move in the table of values, marked best and/or the player's. */
function moveLabel(move, best, chosen) {
  if (best && chosen) return t("{move} (best) ← yours", { move });
  if (best) return t("{move} (best)", { move });
  return chosen ? t("{move} ← yours", { move }) : move;
}

function showAnswer(action, out) {
  const s = remember(P.puzzle, out.correct);
  $("pz-streak").textContent = String(s.streak);
  const box = $("pz-answer");
  box.hidden = false;
  box.dataset.correct = String(out.correct);
  const move = actionWords(action);
  $("pz-verdict").textContent = out.correct ? t("Right: {move}.", { move }) : t("Not this time: {move}.", { move });
  $("pz-verdict").className = out.correct ? "pz-right" : "pz-wrong";
  const by = { margin: pct(out.margin), error: pct(out.margin_se), samples: number(out.samples), move: actionWords(out.best) };
  $("pz-best").textContent = out.correct && sameAction(action, out.best)
    ? t("The best move, by {margin} ± {error} of win chance over the next best ({samples} deals).", by)
    : t("The best move: {move}, by {margin} ± {error} over the next best ({samples} deals).", by);
  // why the best beats the move played (a clause about either move: never "Your move ...")
  $("pz-mistake").textContent = out.mistake ? t("Why not {move}: {reason}.", { move, reason: out.mistake }) : "";
  $("pz-mistake").hidden = !out.mistake;
  $("pz-why").textContent = out.why ? t("Why: {reason}", { reason: out.why }) : "";
  const rows = out.values.map((x) => {
    const chosen = sameAction(x.action, action);
    const best = sameAction(x.action, out.best);
    const tr = el("tr", { class: `${chosen ? "chosen" : ""}${best ? " best" : ""}`.trim(), "data-testid": "value-row" },
      el("td", { text: moveLabel(actionWords(x.action), best, chosen) }),
      el("td", { class: "num", text: `${pct(x.win)} ± ${pct(x.se)}` }),
      el("td", { class: "num", text: x.points >= 0 ? `+${decimal(x.points, 1)}` : decimal(x.points, 1) }));
    return tr;
  });
  $("pz-values").replaceChildren(el("table", { class: "score-sheet tr-values" },
    el("thead", {}, el("tr", {}, el("th", { text: t("move") }), el("th", { text: t("win chance ± s.e.") }), el("th", { text: t("points") }))),
    el("tbody", {}, ...rows)));
  const rc = $("pz-rating-change");
  if (out.rated && out.rating !== null) {
    const before = Number($("pz-rating").textContent) || null;
    const r = { before, rating: out.rating, puzzle: out.puzzle_rating };
    rc.textContent = before !== null ? t("Your puzzle rating: {before} → {rating}. The puzzle's: {puzzle}.", r)
      : t("Your puzzle rating: {rating}. The puzzle's: {puzzle}.", r);
    $("pz-rating").textContent = String(out.rating);
  } else if (P.puzzle.private) {
    rc.textContent = out.correct ? t("Solved: it leaves your list.") : t("It stays on your list until you solve it.");
  } else {
    rc.textContent = P.account ? t("Answered before: this answer is not rated.") : t("As a guest, your answer is not rated.");
  }
  loadHistory();
  $("pz-again").focus({ preventScroll: true });
  box.scrollIntoView({ block: "nearest" });
}

// ------------------------------------------------------------------ choosing a puzzle

function show(puzzle) {
  P.puzzle = puzzle;
  P.answered = false;
  P.knockMode = false;
  $("pz-answer").hidden = true;
  say("");
  render();
}

async function nextPuzzle() {
  if (P.mine) return nextMine();
  const theme = $("pz-theme").value;
  const q = theme ? `?theme=${encodeURIComponent(theme)}` : "";
  try {
    const p = await api(`/api/puzzles/next${q}`);
    history.replaceState(null, "", `/puzzles/${encodeURIComponent(p.id)}${q}`);
    show(p);
  } catch (e) {
    $("pz-board").hidden = P.puzzle === null;
    say(e.message, "error");
    if (!P.puzzle) $("pz-intro").textContent = e.message;
  }
}

async function nextMine() {
  let data;
  for (;;) {
    try {
      data = await api("/api/puzzles/mine");
    } catch (e) {
      $("pz-intro").textContent = e.message;
      $("pz-board").hidden = true;
      $("pz-answer").hidden = true;
      return;
    }
    const counts = $("pz-mine-counts");
    counts.hidden = false;
    counts.textContent = data.pending
      ? tn("Measuring the decisions your reviews marked: {n} to go…", "Measuring the decisions your reviews marked: {n} to go…", data.pending)
      : tn("{n} to practise, {solved} solved.", "{n} to practise, {solved} solved.", data.puzzles.length, { solved: number(data.solved) });
    counts.dataset.pending = String(data.pending);
    counts.dataset.left = String(data.puzzles.length);
    if (!data.pending) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (!data.puzzles.length) {
    $("pz-board").hidden = true;
    $("pz-answer").hidden = true;
    $("pz-intro").textContent = data.solved
      ? t("Every decision your reviews marked is solved. Well done!")
      : t("Your reviews have marked no decision to practise yet: review a match first.");
    return;
  }
  // oldest first; one answered wrong comes back after the others
  const current = P.puzzle ? P.puzzle.id : null;
  show(data.puzzles.find((p) => p.id !== current) || data.puzzles[0]);
}

async function loadHistory() {
  if (!P.account) {
    const s = local();
    if (!s.history.length) return;
    $("pz-history-box").hidden = false;
    $("pz-history").replaceChildren(historyList(s.history.map((h) => ({ ...h, rating: null }))));
    return;
  }
  try {
    const h = await api("/api/puzzles/history");
    $("pz-rating-box").hidden = false;
    $("pz-rating").textContent = String(h.puzzle_rating);
    if (!h.answers.length) return;
    $("pz-history-box").hidden = false;
    $("pz-history").replaceChildren(historyList(h.answers));
  } catch {
    /* the history is a comfort: the puzzle still works */
  }
}

/** The puzzles answered, newest first, each with its result in words (solved or failed:
 *  a list of every answer, not of the solved ones only). */
function historyList(answers) {
  return el("ol", { class: "pz-history-list" }, ...answers.slice(0, 30).map((a) => el("li", { "data-testid": "history-row" },
    el("span", { class: a.correct ? "pz-right" : "pz-wrong", "data-testid": "history-result",
      text: a.correct ? "✓ " + t("solved") + " · " : "✗ " + t("failed") + " · " }),
    el("a", { href: `/puzzles/${encodeURIComponent(a.id)}`, text: (a.themes && a.themes.length ? a.themes.join(", ") : t("puzzle")) }),
    a.rating !== null && a.rating !== undefined ? el("span", { class: "hint", text: " · " + t("rating {rating}", { rating: a.rating }) }) : null)));
}

async function themes() {
  const sel = $("pz-theme");
  try {
    const list = await api("/api/puzzles/themes");
    // "Take or pass: whether to ..." -> "Take or pass" (the whole title as its tooltip)
    for (const x of list.themes) sel.append(el("option", { value: x.name, text: x.title.split(":")[0], title: x.title }));
  } catch {
    /* no list: any theme */
  }
  const asked = new URLSearchParams(location.search).get("theme") || localStorage.getItem(THEME_KEY) || "";
  if ([...sel.options].some((o) => o.value === asked)) sel.value = asked;
}

// ------------------------------------------------------------------ wiring

async function start() {
  installSuitSprite();
  applyCardPrefs();
  $("pz-streak").textContent = String(local().streak);
  P.account = await signedIn();
  if (P.account) useSession(P.account.csrf);
  else $("pz-guest").hidden = false;
  $("pz-mine-link").hidden = !P.account;
  await themes();
  $("pz-theme").addEventListener("change", () => {
    try {
      localStorage.setItem(THEME_KEY, $("pz-theme").value);
    } catch {
      /* not kept */
    }
    if (!P.mine) nextPuzzle();
  });
  $("pz-next").addEventListener("click", () => nextPuzzle());
  $("pz-again").addEventListener("click", () => nextPuzzle());
  $("pz-take").addEventListener("click", () => answer({ act: "draw", from: "discard" }));
  $("pz-pass").addEventListener("click", () => answer({ act: "pass" }));
  $("pz-knock").addEventListener("click", () => {
    P.knockMode = !P.knockMode;
    render();
  });
  loadHistory();
  const parts = location.pathname.split("/").filter(Boolean);
  const id = parts[1] ? decodeURIComponent(parts[1]) : "";
  if (id === "mine") {
    P.mine = true;
    $("pz-title").textContent = t("Your own mistakes");
    $("pz-intro").textContent = t("The decisions your reviews marked, each measured afresh: shown again until you solve them. These answers are not rated.");
    $("pz-next").textContent = t("Next mistake");
    $("pz-again").textContent = t("Next mistake");
    $("pz-mine-link").hidden = true;
    await nextMine();
  } else if (id) {
    try {
      show(await api(`/api/puzzles/${encodeURIComponent(id)}`));
    } catch (e) {
      $("pz-intro").textContent = e.message + " " + t("Press Next puzzle for another.");
    }
  } else {
    await nextPuzzle();
  }
  document.body.dataset.ready = "1";
}

start();
