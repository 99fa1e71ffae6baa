// The puzzle page (/puzzles, /puzzles/ID, /puzzles/mine; docs/training.md "Puzzles"): the
// position as its player saw it (R11), drawn with the table's cards; the player makes the
// move on the cards (a card to discard, the stock or the pile to draw, Take or Pass, Knock)
// and the server answers (docs/web-api.md, "Training"): right or wrong, the best move,
// every legal move's win chance with its standard error, and one sentence why. A refused
// move gets the server's sentence and changes nothing. The streak lives in this browser;
// an account's puzzle rating and history come from the server.

import { api, signedIn, useSession } from "./api.js";
import { cardBack, cardElement, cardShort, installSuitSprite, sortCards } from "./cards.js";
import { el } from "./dom.js";
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
  $("pz-title").textContent = p.private ? "Your own mistake" : "Puzzle";
  const bits = [`Hand ${c.hand_index + 1}`, `you ${c.scores[0]}, opponent ${c.scores[1]}, to ${c.target}`,
    c.dealer === c.seat ? "you dealt" : "the opponent dealt"];
  if (!p.private) bits.push(`difficulty ${p.rating}`);
  if (p.themes && p.themes.length) bits.push(p.themes.join(", "));
  if (p.private && p.mark) bits.push(`marked as ${p.mark === "inaccuracy" ? "an" : "a"} ${p.mark} in your match`);
  $("pz-where").textContent = bits.join(" · ");
  const top = c.pile.length ? c.pile[c.pile.length - 1] : null;
  let task;
  if (c.phase === "offer") task = `The up-card is the ${cardShort(top)}: take it, or pass?`;
  else if (c.phase === "draw") task = top ? `Your draw: the stock, or the ${cardShort(top)}?` : "Your draw.";
  else task = "Your discard: which card? (Knock, or go gin, where the hand allows it.)";
  $("pz-task").textContent = off ? "" : task;
  document.body.dataset.phase = c.phase;
  document.body.dataset.puzzle = p.id;
  document.body.dataset.answered = String(off);

  // the opponent: ten backs (it is not its turn), and what it did in the open
  const opp = $("pz-opp-hand");
  opp.replaceChildren(...Array.from({ length: 10 }, () => cardBack({ small: true })));
  opp.setAttribute("role", "img");
  opp.setAttribute("aria-label", "The opponent holds 10 cards");
  const facts = [
    fact("took from the pile", c.opponent_took, "opponent-took"),
    fact("threw", c.opponent_discarded, "opponent-threw"),
    fact("passed the up-card", c.opponent_passed, "opponent-passed"),
  ].filter(Boolean);
  $("pz-facts").replaceChildren(...(facts.length ? facts : [el("span", { class: "hint", text: "The opponent has not taken, thrown or passed a card yet." })]));

  // the stock and the pile
  const canStock = legalOf((a) => a.act === "draw" && a.from === "stock").length > 0;
  const canPile = legalOf((a) => a.act === "draw" && a.from === "discard").length > 0;
  const stock = $("pz-stock");
  stock.replaceChildren();
  for (let i = 0; i < Math.min(2, Math.max(0, c.stock - 1)); i++) stock.append(cardBack());
  const back = cardBack({ tag: "button", label: `Stock, ${c.stock} cards${canStock ? ": draw the top card" : ""}` });
  back.dataset.testid = "stock";
  back.disabled = off;
  back.addEventListener("click", () => answer({ act: "draw", from: "stock" }));
  stock.append(back, el("span", { class: "stock-count", "aria-hidden": "true", text: String(c.stock) }));
  stock.classList.toggle("clickable", canStock && !off);
  $("pz-stock-label").textContent = `Stock (${c.stock})`;
  const pile = $("pz-pile");
  pile.replaceChildren();
  if (c.pile.length > 1) {
    const under = cardElement(c.pile[c.pile.length - 2]);
    under.classList.add("under");
    under.setAttribute("aria-hidden", "true");
    pile.append(under);
  }
  if (top) {
    const t = cardElement(top, { tag: "button", extraLabel: `top of the discard pile${canPile ? ": take it" : ""}` });
    t.dataset.testid = "discard-top";
    t.disabled = off;
    t.addEventListener("click", () => answer({ act: "draw", from: "discard" }));
    pile.append(t);
  }
  pile.classList.toggle("clickable", canPile && !off);
  $("pz-pile-count").textContent = `(${c.pile.length})`;
  $("pz-pile-list").replaceChildren(el("span", { class: "tr-label", text: "The pile, bottom first:" }), ...smallCards(c.pile));

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
  kb.textContent = P.knockMode ? "Knock: pick a card" : "Knock";
  $("pz-knock-hint").textContent = knocks.size && !off
    ? `Cards marked K may knock (or go gin): ${[...knocks].map(cardShort).join(" ")}.` : "";
  const hand = $("pz-hand");
  hand.classList.toggle("knock-mode", P.knockMode);
  hand.replaceChildren(...sortCards(v.hand).map((code) => {
    const card = cardElement(code, { tag: "button", extraLabel: knocks.has(code) ? "knock allowed" : "" });
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

function showAnswer(action, out) {
  const s = remember(P.puzzle, out.correct);
  $("pz-streak").textContent = String(s.streak);
  const box = $("pz-answer");
  box.hidden = false;
  box.dataset.correct = String(out.correct);
  $("pz-verdict").textContent = out.correct ? `Right: ${actionWords(action)}.` : `Not this time: ${actionWords(action)}.`;
  $("pz-verdict").className = out.correct ? "pz-right" : "pz-wrong";
  $("pz-best").textContent = out.correct && sameAction(action, out.best)
    ? `The best move, by ${pct(out.margin)} ± ${pct(out.margin_se)} of win chance over the next best (${out.samples.toLocaleString("en")} deals).`
    : `The best move: ${actionWords(out.best)}, by ${pct(out.margin)} ± ${pct(out.margin_se)} over the next best (${out.samples.toLocaleString("en")} deals).`;
  $("pz-mistake").textContent = out.mistake ? `Your move ${out.mistake}` : "";
  $("pz-mistake").hidden = !out.mistake;
  $("pz-why").textContent = out.why ? `Why: ${out.why}` : "";
  const rows = out.values.map((x) => {
    const chosen = sameAction(x.action, action);
    const best = sameAction(x.action, out.best);
    const tr = el("tr", { class: `${chosen ? "chosen" : ""}${best ? " best" : ""}`.trim(), "data-testid": "value-row" },
      el("td", { text: actionWords(x.action) + (best ? " (best)" : "") + (chosen ? " ← yours" : "") }),
      el("td", { class: "num", text: `${pct(x.win)} ± ${pct(x.se)}` }),
      el("td", { class: "num", text: x.points >= 0 ? `+${x.points.toFixed(1)}` : x.points.toFixed(1) }));
    return tr;
  });
  $("pz-values").replaceChildren(el("table", { class: "score-sheet tr-values" },
    el("thead", {}, el("tr", {}, el("th", { text: "move" }), el("th", { text: "win chance ± s.e." }), el("th", { text: "points" }))),
    el("tbody", {}, ...rows)));
  const rc = $("pz-rating-change");
  if (out.rated && out.rating !== null) {
    const before = Number($("pz-rating").textContent) || null;
    rc.textContent = `Your puzzle rating: ${before !== null ? `${before} → ` : ""}${out.rating}. The puzzle's: ${out.puzzle_rating}.`;
    $("pz-rating").textContent = String(out.rating);
  } else if (P.puzzle.private) {
    rc.textContent = out.correct ? "Solved: it leaves your list." : "It stays on your list until you solve it.";
  } else {
    rc.textContent = P.account ? "Answered before: this answer is not rated." : "As a guest, your answer is not rated.";
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
      ? `Measuring the decisions your reviews marked: ${data.pending} to go…`
      : `${data.puzzles.length} to practise, ${data.solved} solved.`;
    counts.dataset.pending = String(data.pending);
    counts.dataset.left = String(data.puzzles.length);
    if (!data.pending) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (!data.puzzles.length) {
    $("pz-board").hidden = true;
    $("pz-answer").hidden = true;
    $("pz-intro").textContent = data.solved
      ? "Every decision your reviews marked is solved. Well done!"
      : "Your reviews have marked no decision to practise yet: review a match first.";
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

function historyList(answers) {
  return el("ol", { class: "pz-history-list" }, ...answers.slice(0, 30).map((a) => el("li", { "data-testid": "history-row" },
    el("span", { class: a.correct ? "pz-right" : "pz-wrong", text: a.correct ? "✓ " : "✗ " }),
    el("a", { href: `/puzzles/${encodeURIComponent(a.id)}`, text: (a.themes && a.themes.length ? a.themes.join(", ") : "puzzle") }),
    a.rating !== null && a.rating !== undefined ? el("span", { class: "hint", text: ` · rating ${a.rating}` }) : null)));
}

async function themes() {
  const sel = $("pz-theme");
  try {
    const t = await api("/api/puzzles/themes");
    // "Take or pass: whether to ..." -> "Take or pass" (the whole title as its tooltip)
    for (const x of t.themes) sel.append(el("option", { value: x.name, text: x.title.split(":")[0], title: x.title }));
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
    $("pz-title").textContent = "Your own mistakes";
    $("pz-intro").textContent = "The decisions your reviews marked, each measured afresh: shown again until you solve them. These answers are not rated.";
    $("pz-next").textContent = "Next mistake";
    $("pz-again").textContent = "Next mistake";
    $("pz-mine-link").hidden = true;
    await nextMine();
  } else if (id) {
    try {
      show(await api(`/api/puzzles/${encodeURIComponent(id)}`));
    } catch (e) {
      $("pz-intro").textContent = `${e.message} Press Next puzzle for another.`;
    }
  } else {
    await nextPuzzle();
  }
  document.body.dataset.ready = "1";
}

start();
