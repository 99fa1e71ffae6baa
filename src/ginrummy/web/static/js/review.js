// The game review page: asks the server for this seat's review (docs/web-api.md, "Reviews
// and hints"), shows progress while it is graded, then an annotated step-by-step replay:
// marks on the moves, the best alternative highlighted on the cards, the loss and the
// reason, a summary per seat and a win-chance graph (graph.js) that jumps to a decision.

import { api, loadSeats, signedIn, useSession } from "./api.js";
import { cardBack, cardElement, cardShort, installSuitSprite, sortCards } from "./cards.js";
import { decimal, el, withNodes } from "./dom.js";
import { drawGraph } from "./graph.js";
import { number, t, tn } from "./i18n.js";
import { applyCardPrefs } from "./prefs.js";
import { analysisHref, percent, seenMoves } from "./training.js";

const $ = (id) => document.getElementById(id);
const SYMBOL = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const MARK_LABEL = { inaccuracy: t("Inaccuracy:"), mistake: t("Mistake:"), blunder: t("Blunder:") };

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const fragment = new URLSearchParams(location.hash.slice(1));
let token = fragment.get("token") || "";
if (!token) {
  const mine = loadSeats().find((s) => s.id === matchId);
  if (mine) token = mine.token;
}

const R = { data: null, steps: [], at: 0, points: [] };

// ------------------------------------------------------------------ loading

/** Where the "Back" link goes: the seat's table (its link here, or the account's seat),
 *  or, for a reader with no seat, the match's replay. */
function backLink(seat) {
  const id = encodeURIComponent(matchId);
  const a = $("table-link");
  if (token) a.href = `/play/${id}#token=${encodeURIComponent(token)}`;
  else if (seat === null || seat === undefined) {
    a.href = `/replay/${id}`;
    a.textContent = t("Replay");
  } else a.href = `/play/${id}`;
}

// Without a seat link in this browser, the review still opens: for the account that
// played the match (its session is its seat) and, once a public match is over, for anyone.
const NO_SEAT = t("This review is open to the match's players until it is over (and then to " +
  "everyone if the match is public): log in to the account that played it, or open it " +
  "from the table's Review button.");

async function load() {
  if (!matchId) {
    fail(t("This review link names no match."));
    return;
  }
  if (!token) {
    const acct = await signedIn();
    if (acct) useSession(acct.csrf);
  }
  const box = $("rv-progress");
  box.hidden = false;
  $("rv-retry").hidden = true;
  for (;;) {
    let d;
    try {
      d = await api(`/api/matches/${encodeURIComponent(matchId)}/review`, { method: "POST", token: token || null });
    } catch (e) {
      fail(e.status === 401 && !token ? NO_SEAT : e.message);
      return;
    }
    backLink(d.seat);
    if (d.status === "done") {
      box.hidden = true;
      show(d);
      return;
    }
    if (d.status === "failed") {
      fail(d.error || t("The review failed."), true);
      return;
    }
    const { done, total } = d.progress;
    const pct = total ? Math.round((100 * done) / total) : 0;
    $("rv-bar-fill").style.width = `${pct}%`;
    $("rv-bar").setAttribute("aria-valuenow", String(pct));
    $("rv-progress-text").textContent = total
      ? t("Grading the decisions: {done} of {total}…", { done: number(done), total: number(total) })
      : t("Waiting for the coach…");
    await new Promise((r) => setTimeout(r, 700));
  }
}

function fail(text, retry = false) {
  $("rv-progress").hidden = false;
  $("rv-progress-text").textContent = text;
  $("rv-bar").hidden = true;
  $("rv-retry").hidden = !retry;
}

// ------------------------------------------------------------------ the model

const actionWords = (a) => {
  if (!a) return "";
  if (a.act === "pass") return t("pass");
  if (a.act === "draw") return a.from === "stock" ? t("draw from the stock") : t("take the discard");
  const card = cardShort(a.card);
  return a.knock ? t("knock with {card}", { card }) : t("discard {card}", { card });
};

function build(d) {
  const viewer = d.seat ?? 0; // a reader with no seat sees the table from seat 0's side
  const decisions = new Map();
  for (const h of d.review.hands) for (const x of h.decisions) decisions.set(`${h.index}:${x.action}`, x);
  const steps = [];
  const points = [];
  for (const h of d.hands) {
    h.actions.forEach((a, j) => {
      const dec = decisions.get(`${h.index}:${j}`) || null;
      const step = { hand: h, j, frame: h.frames[j], action: a, dec };
      if (dec) {
        const mine = dec.seat === viewer;
        points.push({
          step: steps.length,
          y: mine ? dec.equity.played : 1 - dec.equity.played,
          mark: dec.mark,
          hand: h.index,
          label: t("Hand {hand}, move {move}: {action}",
            { hand: number(h.index + 1), move: number(j + 1), action: actionWords(dec.played) }),
        });
      }
      steps.push(step);
    });
    steps.push({ hand: h, j: h.actions.length, frame: h.frames[h.actions.length], action: null, dec: null, end: true });
  }
  R.steps = steps;
  R.points = points;
}

// ------------------------------------------------------------------ rendering

function nameOf(seat) {
  return seat === R.data.seat ? t("You") : R.data.players[seat] || t("Seat {seat}", { seat: String(seat) });
}

function show(d) {
  R.data = d;
  installSuitSprite();
  applyCardPrefs();
  build(d);
  const [a, b] = d.players;
  $("rv-title").textContent = t("Game review: {first} vs {second}", { first: a, second: b });
  $("rv-scope").textContent = d.scope.match_over
    ? t("The match is over: every decision of both players, each graded from what that player could see.")
    : d.scope.hands.length
      ? t("Your decisions in the finished hands ({hands}), graded from what you could see. The opponent's decisions are shown once the match is over.",
        { hands: d.scope.hands.map((i) => number(i + 1)).join(", ") })
      : t("No hand has finished yet: the review covers finished hands only.");
  $("rv-graph-who").textContent = d.seat === null
    ? t("({name}'s, after each graded move)", { name: d.players[0] }) : t("(yours, after each graded move)");
  $("rv-grid").hidden = false;
  renderSummary();
  renderMoves();
  offerPractice(d);
  if (!R.steps.length) {
    drawGraph($("rv-graph"), [], 0, go);
    $("rv-where").textContent = t("Nothing to review yet");
    $("rv-decision").replaceChildren(el("p", { text: t("The review covers finished hands: come back when a hand is over.") }));
    return;
  }
  const firstMark = R.steps.findIndex((s) => s.dec && s.dec.mark);
  go(firstMark >= 0 ? firstMark : 0);
}

/** "Practise these": for the account that played the reviewed seat, when its decisions
 *  are marked, a link to its own puzzles (GET /api/puzzles/mine; docs/training.md). */
async function offerPractice(d) {
  if (d.seat === null || d.seat === undefined) return;
  const marked = d.review.hands.reduce(
    (n, h) => n + h.decisions.filter((x) => x.mark && x.seat === d.seat).length, 0);
  if (!marked || !(await signedIn())) return;
  $("rv-practise-link").textContent = t("Practise these ({count} marked)", { count: number(marked) });
  $("rv-practise").hidden = false;
}

/** The analysis board on this step's position, as the seat to play saw it (R11): its
 *  hand, the pile, the stock and what its opponent took, threw and passed, and the hand's
 *  moves so far. The viewer's own moves always; the opponent's once the match is over
 *  (its cards are in the frame then); null at the end of a hand. */
function boardPosition(s, me) {
  const f = s.frame;
  if (s.end) return null;
  const seat = f.to_play;
  const hand = seat === me ? f.hand : f.opp;
  if (!hand || (seat !== 0 && seat !== 1)) return null;
  const h = s.hand;
  const upcard = h.frames[0].pile[0];
  return {
    seat, dealer: h.dealer, upcard, hand, pile: f.pile,
    ...seenMoves(h.actions.slice(0, s.j), seat, upcard), stock: f.stock,
    to_play: f.phase === "discard" ? "discard" : "draw", scores: h.scores,
    options: R.data.options || {},
  };
}

/** The bots a rating reviews like (ginrummy.review.PLAYS_LIKE), as this site's players
 * know the computers (its levels easy, medium and hard are the bots easy, marjj and
 * expert). */
const LIKE = {
  expert: t("the Hard computer"),
  "strong or marjj": t("the Medium computer"),
  simple: t("a computer between Easy and Medium"),
  easy: t("the Easy computer"),
  random: t("a computer playing at random"),
};

function renderSummary() {
  const d = R.data;
  const rows = d.scope.seats.map((s) => {
    const x = d.review.seats[s];
    const pct = (v) => percent(100 * v, 2);
    return el("tr", { "data-testid": `summary-seat-${s}` },
      el("th", { scope: "row", text: nameOf(s) }),
      el("td", { text: number(x.decisions) }),
      el("td", {
        text: pct(x.error_rate_normalized ?? x.error_rate),
        title: t("Win chance lost per move (the losses marked on the moves, averaged), scaled " +
          "by what each hand was worth; the rating goes by it (unscaled: {rate})", { rate: pct(x.error_rate) }),
      }),
      el("td", { class: "rv-sym inaccuracy", text: number(x.inaccuracies) }),
      el("td", { class: "rv-sym mistake", text: number(x.mistakes) }),
      el("td", { class: "rv-sym blunder", text: number(x.blunders) }),
      el("td", { text: number(x.hinted || 0) }),
    );
  });
  const head = el("tr", {}, ...["", t("moves"), t("error rate"), "?!", "?", "??", t("hinted")]
    .map((text) => el("th", { scope: "col", text })));
  const table = el("table", { class: "rv-table" }, el("thead", {}, head), el("tbody", {}, ...rows));
  // Skill and luck add up: start + skill + luck = result (docs/review.md), a table of its
  // own so each fits a phone.
  const signed = (v) => (v == null ? "–" : `${v >= 0 ? "+" : ""}${percent(100 * v, 0)}`);
  const whole = (v) => (v == null ? "–" : percent(100 * v, 0));
  const accRows = d.scope.seats.map((s) => {
    const x = d.review.seats[s];
    return el("tr", { "data-testid": `accounting-seat-${s}` },
      el("th", { scope: "row", text: nameOf(s) }),
      el("td", { text: whole(x.expected), title: t("The chance to win the match before the first deal") }),
      el("td", { text: signed(x.skill), title: t("Win chance the opponent's mistakes gave, minus what this player's own cost") }),
      el("td", { text: signed(x.luck), title: t("The rest: the cards (deals and draws)") }),
      el("td", { text: whole(x.result) }));
  });
  const accHead = el("tr", {}, ...["", t("start"), t("+ skill"), t("+ luck"), t("= result")]
    .map((text) => el("th", { scope: "col", text })));
  const accounting = el("table", { class: "rv-table", "data-testid": "accounting" },
    el("thead", {}, accHead), el("tbody", {}, ...accRows));
  // The rating in words under the table (it would not fit a phone's row): the band and
  // the bot that reviews alike (docs/review.md).
  const ratings = d.scope.seats.filter((s) => d.review.seats[s].rating).map((s) => {
    const x = d.review.seats[s];
    const values = {
      name: nameOf(s), rating: el("span", { class: "rv-rating", text: x.rating }),
      like: LIKE[x.plays_like] || x.plays_like, range: x.rating_interval,
    };
    const line = x.rating_interval && x.rating_interval !== x.rating
      ? t("{name}: {rating} (plays like {like}; from this one match, anywhere from {range})")
      : t("{name}: {rating} (plays like {like})");
    return el("p", { class: "rv-rating-line", "data-testid": `rating-seat-${s}` }, ...withNodes(line, values));
  });
  const notes = [];
  for (const s of d.scope.seats) {
    const x = d.review.seats[s];
    if (x.luck_adjusted != null) {
      notes.push(t("{name}: with average cards the result would have been {adjusted} (start + skill; actual {actual}).",
        { name: nameOf(s), adjusted: percent(100 * x.luck_adjusted, 0), actual: percent(100 * x.result, 0) }));
    }
  }
  const capped = d.scope.seats.reduce((n, s) => n + (d.review.seats[s].capped || 0), 0);
  if (capped) {
    notes.push(tn("The server was busy: {n} move was graded with fewer samples than usual (marked \"busy\"), so those grades may differ on another run.",
      "The server was busy: {n} moves were graded with fewer samples than usual (marked \"busy\"), so those grades may differ on another run.", capped));
  }
  $("rv-summary").replaceChildren(
    el("div", { class: "rv-table-wrap" }, table),
    el("div", { class: "rv-table-wrap" }, accounting),
    ...ratings,
    el("p", { class: "hint", text: t("Error rate: win chance lost per decision. ?! inaccuracy (3+ points), ? mistake (6+), ?? blunder (10+), marked only where the loss is clearly more than the estimate's noise. Start + skill + luck = result.") }),
    ...notes.map((text) => el("p", { class: "hint", text })),
  );
}

function renderMoves() {
  const list = $("rv-moves");
  list.replaceChildren();
  let hand = -1;
  R.steps.forEach((s, i) => {
    if (!s.dec) return;
    if (s.hand.index !== hand) {
      hand = s.hand.index;
      list.append(el("li", { class: "rv-moves-hand", text: t("Hand {hand}", { hand: number(hand + 1) }) }));
    }
    const sym = s.dec.mark ? SYMBOL[s.dec.mark] : "";
    const item = el("li", {},
      el("button", {
        type: "button", class: `rv-move ${s.dec.mark || "good"}`, "data-step": String(i),
        "data-testid": s.dec.mark ? "review-mark" : "review-move",
        onclick: () => go(i),
      },
      el("span", { class: "rv-move-no", text: `${number(s.j + 1)}.` }),
      el("span", { class: "rv-move-who", text: nameOf(s.dec.seat) }),
      el("span", { class: "rv-move-what", text: actionWords(s.dec.played) }),
      el("span", { class: `rv-sym ${s.dec.mark || ""}`, text: sym }),
      s.dec.hinted ? el("span", { class: "rv-hinted", text: t("hinted") }) : null,
      ));
    list.append(item);
  });
  if (!list.children.length) list.append(el("li", { class: "hint", text: t("No decisions to grade yet.") }));
}

function cardRow(target, cards, { highlight = {}, small = false } = {}) {
  target.replaceChildren(...cards.map((c) => {
    const e = cardElement(c, { small });
    if (highlight[c]) {
      e.classList.add(...highlight[c].split(" "));
    }
    return e;
  }));
}

function go(i) {
  if (!R.steps.length) return;
  R.at = Math.max(0, Math.min(R.steps.length - 1, i));
  const s = R.steps[R.at];
  const d = R.data;
  const me = d.seat ?? 0;
  const f = s.frame;
  const h = s.hand;
  const dec = s.dec;
  // Highlights: the played card (and the best alternative) on whichever cards show them.
  const hl = {};
  const mark = (card, cls) => {
    if (card) hl[card] = hl[card] ? `${hl[card]} ${cls}` : cls;
  };
  let pileHl = "";
  let stockHl = "";
  const a = s.action;
  if (a && a.act === "discard") mark(a.card, "rv-played");
  if (a && a.act === "draw") (a.from === "discard" ? (pileHl = "rv-played") : (stockHl = "rv-played"));
  if (dec && dec.mark !== null && dec.best) {
    const b = dec.best;
    if (b.act === "discard") mark(b.card, "rv-best");
    else if (b.act === "draw" && b.from === "discard") pileHl += " rv-best";
    else if (b.act === "draw") stockHl += " rv-best";
  }
  if (dec && dec.hinted) document.body.dataset.hinted = "1";
  else delete document.body.dataset.hinted;

  const opp = 1 - me;
  const oppCards = f.opp ? sortCards(f.opp) : null;
  $("rv-opp-label").textContent = oppCards ? nameOf(opp) : t("{name} (hidden)", { name: nameOf(opp) });
  if (oppCards) {
    cardRow($("rv-opp"), oppCards, { highlight: hl, small: true });
  } else {
    const n = f.to_play === opp && f.phase === "discard" ? 11 : 10;
    const took = f.opp_took || [];
    const row = took.map((c) => {
      const e = cardElement(c, { small: true });
      e.classList.add("rv-known");
      e.title = t("Taken from the discard pile");
      return e;
    });
    for (let k = took.length; k < n; k++) row.push(cardBack({ small: true }));
    $("rv-opp").replaceChildren(...row);
  }
  $("rv-me-label").textContent = t("Your hand");
  cardRow($("rv-me"), sortCards(f.hand), { highlight: hl });

  const top = f.pile.length ? f.pile[f.pile.length - 1] : null;
  const pile = $("rv-discard");
  pile.replaceChildren();
  if (top) {
    const e = cardElement(top);
    if (pileHl.trim()) e.classList.add(...pileHl.trim().split(" "));
    pile.append(e);
  }
  const stock = $("rv-stock");
  stock.replaceChildren();
  const back = cardBack({ label: tn("{n} card in the stock", "{n} cards in the stock", f.stock) });
  if (stockHl.trim()) back.classList.add(...stockHl.trim().split(" "));
  stock.append(back);
  $("rv-stock-label").textContent = t("Stock · {count}", { count: number(f.stock) });

  const total = h.actions.length;
  $("rv-where").replaceChildren(
    el("strong", { text: t("Hand {hand}", { hand: number(h.index + 1) }) }),
    el("span", { text: " · " + (s.end ? t("end of the hand") : t("move {move} of {total}", { move: number(s.j + 1), total: number(total) })) }),
    el("span", { class: "hint", text: " · " + t("score {score}", { score: `${number(h.scores[0])}–${number(h.scores[1])}` }) }),
  );
  $("rv-decision").replaceChildren(...describe(s));
  const pos = boardPosition(s, me);
  $("rv-analyse").hidden = !pos;
  if (pos) {
    $("rv-analyse").href = analysisHref(pos);
    $("rv-analyse").textContent = pos.seat === me ? t("Analyse this position")
      : t("Analyse {name}'s position", { name: nameOf(pos.seat) });
  }
  document.body.dataset.step = String(R.at);
  drawGraph($("rv-graph"), R.points, R.at, go);
  for (const b of document.querySelectorAll(".rv-move")) {
    const on = Number(b.dataset.step) === R.at;
    b.classList.toggle("current", on);
    if (on) b.setAttribute("aria-current", "step");
    else b.removeAttribute("aria-current");
  }
  const cur = document.querySelector(".rv-move.current");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

/** A finished hand's result in a sentence: its kind, who scores and how much. */
function handResult(r) {
  const p = { name: nameOf(r.scorer), points: number(r.points) };
  if (r.scorer === R.data.seat) {
    if (r.result === "gin") return t("Gin: You score {points}.", p);
    return r.result === "undercut" ? t("Undercut: You score {points}.", p) : t("Knock: You score {points}.", p);
  }
  if (r.result === "gin") return t("Gin: {name} scores {points}.", p);
  return r.result === "undercut" ? t("Undercut: {name} scores {points}.", p) : t("Knock: {name} scores {points}.", p);
}

function describe(s) {
  if (s.end) {
    const r = s.hand.result;
    if (!r) return [el("p", { text: t("The hand was not finished.") })];
    if (r.result === "dead") return [el("p", { text: t("A dead hand: nobody scores.") })];
    return [el("p", { class: "rv-result", text: handResult(r) })];
  }
  const a = s.action;
  const who = nameOf(a.seat);
  const drawn = a.act === "draw" && a.card ? ` (${cardShort(a.card)})` : "";
  const line = el("p", { class: "rv-played-line" }, el("strong", { text: t("{name}:", { name: who }) + " " }), `${actionWords(a)}${drawn}`);
  const dec = s.dec;
  if (!dec) {
    return [line, el("p", { class: "hint", text: a.seat !== R.data.seat && !R.data.scope.match_over
      ? t("The opponent's decisions are graded once the match is over.")
      : t("Only one move was possible, or this move is not graded.") })];
  }
  const out = [line];
  const pct = (v) => percent(100 * v, 1);
  const error = decimal(100 * (dec.loss_se || 0), 1);
  if (dec.mark) {
    out[0].append(el("span", { class: `rv-sym big ${dec.mark}`, text: ` ${SYMBOL[dec.mark]}` }));
    out.push(el("p", { class: `rv-verdict ${dec.mark}`, "data-testid": "decision-mark" },
      el("strong", { text: `${MARK_LABEL[dec.mark]} ` }),
      t("loses {loss} ± {error} points of win chance ({played}; best was {best}, {best_chance}).", {
        loss: decimal(100 * dec.loss, 1), error, played: pct(dec.equity.played), best: actionWords(dec.best),
        best_chance: pct(dec.equity.best),
      })));
  } else if (dec.loss > 0) {
    out.push(el("p", { class: "rv-verdict ok" },
      t("Close to the best: {best} has {best_chance}, this {played} (a difference within the estimate's noise, ± {error}).", {
        best: actionWords(dec.best), best_chance: pct(dec.equity.best), played: pct(dec.equity.played), error,
      })));
  } else if (dec.best && JSON.stringify(dec.best) !== JSON.stringify(dec.played)) {
    // (a hinted decision: the coach's choice stays the best move; this one measured as well)
    out.push(el("p", { class: "rv-verdict best" }, t("As good as the best: the coach's choice was "
      + "{best} ({best_chance}), this move {played}.", {
      best: actionWords(dec.best), best_chance: pct(dec.equity.best), played: pct(dec.equity.played),
    })));
  } else {
    out.push(el("p", { class: "rv-verdict best" }, t("The best move ({played} to win the match).", { played: pct(dec.equity.played) })));
  }
  const better = (dec.alternatives || []).filter((x) => x.margin > 0);
  if (better.length) {
    out.push(el("p", { class: "rv-alternatives", "data-testid": "decision-alternatives",
      text: t("Better: {moves}", {
        moves: better.map((x) => `${actionWords(x.action)} ${pct(x.equity)} (+${decimal(100 * x.margin, 1)})`).join("; "),
      }) }));
  }
  if (dec.capped) out.push(el("p", { class: "hint", text: t("Busy server: graded with fewer samples than usual.") }));
  if (dec.why) out.push(el("p", { class: "rv-why", text: t("Why: {reason}", { reason: dec.why }) }));
  if (dec.hinted) out.push(el("p", { class: "rv-hinted-line", "data-testid": "decision-hinted", text: t("A hint was shown for this decision.") }));
  return out;
}

// ------------------------------------------------------------------ keys and buttons

function nextMarked(dir) {
  for (let i = R.at + dir; i >= 0 && i < R.steps.length; i += dir) {
    if (R.steps[i].dec && R.steps[i].dec.mark) return i;
  }
  return R.at;
}

document.addEventListener("keydown", (ev) => {
  if (!R.data || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const target = ev.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
  const moves = { ArrowLeft: R.at - 1, ArrowRight: R.at + 1, Home: 0, End: R.steps.length - 1 };
  if (ev.key in moves) go(moves[ev.key]);
  else if (ev.key === "ArrowUp") go(nextMarked(-1));
  else if (ev.key === "ArrowDown") go(nextMarked(1));
  else return;
  ev.preventDefault();
});

$("rv-first").addEventListener("click", () => go(0));
$("rv-prev").addEventListener("click", () => go(R.at - 1));
$("rv-next").addEventListener("click", () => go(R.at + 1));
$("rv-last").addEventListener("click", () => go(R.steps.length - 1));
$("rv-prev-mark").addEventListener("click", () => go(nextMarked(-1)));
$("rv-next-mark").addEventListener("click", () => go(nextMarked(1)));
$("rv-retry").addEventListener("click", () => {
  $("rv-bar").hidden = false;
  load();
});

load();
