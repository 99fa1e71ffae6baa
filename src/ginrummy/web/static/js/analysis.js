// The analysis board (/analysis; docs/training.md "The analysis board"): set up what one
// seat sees by dragging cards from the deck into places (HTML5 drag and drop; or click a
// card, then click a place, for touch), and Analyse: POST /api/analysis answers every
// legal move best first, then the board asks again on more deals (SAMPLES) so the figures
// settle while the player watches, until the last or Stop. An impossible position gets
// the server's one sentence, naming the card. A page opening the board (a puzzle, a
// review) passes the seat's facts and history in the fragment: #position=JSON.

import { api, signedIn } from "./api.js";
import { RANKS, SUITS, cardElement, cardShort, installSuitSprite } from "./cards.js";
import { decimal, el } from "./dom.js";
import { number, t } from "./i18n.js";
import { applyCardPrefs } from "./prefs.js";
import { actionWords, pct, positionInFragment } from "./training.js";

const $ = (id) => document.getElementById(id);
const SAMPLES = [256, 1024, 4096, 16384];
// A guest's analysis stops at 4,096 deals (the server refuses more to guests: its coach's
// fair share); an account's goes on to 16,384.
const GUEST_SAMPLES = 4096;
const ZONES = ["hand", "pile", "opponent_took", "opponent_discarded", "opponent_passed"];
// A card is in at most one of these (the opponent's discards and passed up-card are
// facts about cards that also lie on the pile or in a hand).
const PLACES = new Set(["hand", "pile", "opponent_took"]);

const B = {
  zones: Object.fromEntries(ZONES.map((z) => [z, []])),
  picked: null, // {card, from} chosen by a click, waiting for a place
  history: null, // the opening page's history, kept until the position is edited
  extra: {}, // seat, upcard from the opening page
  run: 0, // the refinement in progress (a new Analyse or Stop ends the old)
};

function say(text, kind = "info") {
  const m = $("message");
  m.className = `message ${kind}`;
  m.textContent = text;
}

// ------------------------------------------------------------------ placing cards

function edited() {
  B.history = null;
  stop();
}

function place(card, zone, from = null) {
  if (!card || !ZONES.includes(zone)) return;
  if (from && from !== "deck" && from !== zone) B.zones[from] = B.zones[from].filter((c) => c !== card);
  if (PLACES.has(zone)) {
    for (const z of PLACES) if (z !== zone) B.zones[z] = B.zones[z].filter((c) => c !== card);
  }
  if (!B.zones[zone].includes(card)) B.zones[zone].push(card);
  edited();
  draw();
}

function unplace(card, zone) {
  B.zones[zone] = B.zones[zone].filter((c) => c !== card);
  edited();
  draw();
}

function pick(card, from) {
  B.picked = B.picked && B.picked.card === card && B.picked.from === from ? null : { card, from };
  draw();
}

function draggable(node, card, from) {
  node.draggable = true;
  node.addEventListener("dragstart", (e) => {
    e.dataTransfer.setData("text/plain", JSON.stringify({ card, from }));
    e.dataTransfer.effectAllowed = "move";
  });
}

function drawDeck() {
  const used = new Set([...B.zones.hand, ...B.zones.pile, ...B.zones.opponent_took]);
  const deck = $("an-deck");
  deck.replaceChildren();
  for (const s of SUITS) {
    for (const r of RANKS) {
      const code = r + s;
      const c = cardElement(code, { tag: "button", extraLabel: used.has(code) ? t("placed") : "" });
      c.dataset.testid = "deck-card";
      if (used.has(code)) c.classList.add("used");
      if (B.picked && B.picked.card === code && B.picked.from === "deck") c.classList.add("picked");
      draggable(c, code, "deck");
      c.addEventListener("click", () => pick(code, "deck"));
      deck.append(c);
    }
  }
}

function drawZones() {
  for (const zone of ZONES) {
    const box = document.querySelector(`.an-zone[data-zone="${zone}"]`);
    const cards = box.querySelector(".an-cards");
    cards.replaceChildren(...B.zones[zone].map((code) => {
      const c = cardElement(code, { tag: "button", extraLabel: t("click to take it back, or drag it elsewhere") });
      c.dataset.testid = "placed-card";
      if (B.picked && B.picked.card === code && B.picked.from === zone) c.classList.add("picked");
      draggable(c, code, zone);
      c.addEventListener("click", (e) => {
        if (B.picked && B.picked.from !== zone) return; // the place takes the picked card
        e.stopPropagation();
        if (B.picked && B.picked.card === code && B.picked.from === zone) {
          B.picked = null;
          unplace(code, zone);
        } else pick(code, zone);
      });
      return c;
    }));
    box.querySelector(".an-n").textContent = `(${number(B.zones[zone].length)})`;
    box.dataset.cards = B.zones[zone].join(" ");
    box.classList.toggle("target", Boolean(B.picked) && B.picked.from !== zone);
  }
}

function draw() {
  drawDeck();
  drawZones();
  const card = B.picked ? cardShort(B.picked.card) : "";
  $("an-picked").textContent = !B.picked ? ""
    : B.picked.from === "deck" ? t("{card} picked: click a place for it", { card })
      : t("{card} picked: click a place for it, or the card again to take it back", { card });
}

function wireZones() {
  for (const zone of ZONES) {
    const box = document.querySelector(`.an-zone[data-zone="${zone}"]`);
    box.addEventListener("dragover", (e) => {
      e.preventDefault();
      box.classList.add("over");
    });
    box.addEventListener("dragleave", () => box.classList.remove("over"));
    box.addEventListener("drop", (e) => {
      e.preventDefault();
      box.classList.remove("over");
      try {
        const { card, from } = JSON.parse(e.dataTransfer.getData("text/plain"));
        B.picked = null;
        place(card, zone, from);
      } catch {
        /* not a card of this page */
      }
    });
    box.addEventListener("click", () => {
      if (!B.picked) return;
      const { card, from } = B.picked;
      B.picked = null;
      place(card, zone, from);
    });
  }
}

// ------------------------------------------------------------------ the position

function position() {
  const seat = B.extra.seat || 0;
  const me = Number($("an-score-me").value) || 0;
  const them = Number($("an-score-opp").value) || 0;
  const pos = {
    hand: B.zones.hand,
    pile: B.zones.pile,
    opponent_took: B.zones.opponent_took,
    opponent_discarded: B.zones.opponent_discarded,
    opponent_passed: B.zones.opponent_passed,
    stock: Number($("an-stock").value),
    to_play: $("an-to-play").value,
    scores: seat === 0 ? [me, them] : [them, me],
    options: { target: Number($("an-target").value) || 100, gin_only: $("an-gin-only").checked, oklahoma: $("an-oklahoma").checked },
  };
  if (seat) pos.seat = seat;
  const d = $("an-dealer").value;
  if (d !== "") pos.dealer = d === "0" ? seat : 1 - seat; // "you" / "the opponent"
  if (B.extra.upcard) pos.upcard = B.extra.upcard;
  if (B.history) pos.history = B.history;
  return pos;
}

function load(p) {
  const list = (x) => (Array.isArray(x) ? x : typeof x === "string" ? x.split(/[\s,]+/).filter(Boolean) : []);
  for (const z of ZONES) B.zones[z] = list(p[z]);
  const seat = p.seat === 1 ? 1 : 0;
  B.extra = { seat, upcard: p.upcard || null };
  const scores = Array.isArray(p.scores) ? p.scores : [0, 0];
  $("an-score-me").value = String(scores[seat] || 0);
  $("an-score-opp").value = String(scores[1 - seat] || 0);
  if (Number.isInteger(p.stock)) $("an-stock").value = String(p.stock);
  $("an-to-play").value = p.to_play === "discard" ? "discard" : "draw";
  $("an-dealer").value = p.dealer === undefined || p.dealer === null ? "" : p.dealer === seat ? "0" : "1";
  const o = p.options || {};
  $("an-target").value = String(o.target || 100);
  $("an-gin-only").checked = Boolean(o.gin_only);
  $("an-oklahoma").checked = Boolean(o.oklahoma);
  B.history = Array.isArray(p.history) ? p.history : null;
}

// ------------------------------------------------------------------ analysing

function stop() {
  B.run += 1;
  $("an-stop").disabled = true;
  document.body.dataset.refining = "false";
}

function showResults(out, final) {
  const rows = out.actions.map((x, i) => el("tr", { class: `${i === 0 ? "best" : ""}${final ? "" : " settling"}`.trim(), "data-testid": "analysis-row" },
    el("td", { text: i === 0 ? t("{move} (best)", { move: actionWords(x.action) }) : actionWords(x.action) }),
    el("td", { class: "num", text: `${pct(x.win)} ± ${pct(x.se)}` }),
    el("td", { class: "num", text: `${x.points >= 0 ? "+" : ""}${decimal(x.points, 2)} ± ${decimal(x.points_se, 2)}` })));
  $("an-results").replaceChildren(el("table", { class: "score-sheet tr-values" },
    el("thead", {}, el("tr", {}, el("th", { text: t("move") }), el("th", { text: t("win chance ± s.e.") }), el("th", { text: t("points this hand ± s.e.") }))),
    el("tbody", {}, ...rows)));
  const samples = number(out.samples);
  $("an-samples").textContent = final ? t("on {samples} deals", { samples }) : t("on {samples} deals, refining…", { samples });
  const r = $("an-results");
  r.dataset.samples = String(out.samples);
  r.dataset.best = JSON.stringify(out.actions[0] ? out.actions[0].action : null);
}

async function analyse() {
  stop();
  const run = B.run;
  $("an-stop").disabled = false;
  document.body.dataset.refining = "true";
  say("");
  const base = position();
  const steps = (await signedIn()) ? SAMPLES : SAMPLES.filter((n) => n <= GUEST_SAMPLES);
  if (run !== B.run) return;
  for (let i = 0; i < steps.length; i++) {
    let out;
    try {
      out = await api("/api/analysis", { method: "POST", body: { ...base, samples: steps[i], seed: 0 } });
    } catch (e) {
      if (run !== B.run) return;
      stop();
      if (e.status === 503 && i > 0) {
        say(e.message + " " + t("The figures shown are on {samples} deals.", { samples: number(steps[i - 1]) }));
      } else {
        say(e.message, "error");
        if (i === 0) {
          $("an-results").replaceChildren(el("p", { class: "hint", text: t("No answer for this position.") }));
          $("an-samples").textContent = "";
          delete $("an-results").dataset.samples;
        }
      }
      return;
    }
    if (run !== B.run) return; // stopped, or asked again
    const last = i === steps.length - 1;
    showResults(out, last);
    if (last) stop();
    if (last && steps.length < SAMPLES.length) {
      say(t("Log in to refine on {samples} deals.", { samples: number(SAMPLES[SAMPLES.length - 1]) }));
    }
  }
}

// ------------------------------------------------------------------ wiring

function start() {
  installSuitSprite();
  applyCardPrefs();
  const given = positionInFragment();
  if (given) load(given);
  wireZones();
  draw();
  $("an-go").addEventListener("click", () => analyse());
  $("an-stop").addEventListener("click", () => {
    stop();
    const n = $("an-results").dataset.samples;
    if (n) $("an-samples").textContent = t("on {samples} deals (stopped)", { samples: number(Number(n)) });
  });
  $("an-clear").addEventListener("click", () => {
    for (const z of ZONES) B.zones[z] = [];
    B.picked = null;
    B.extra = {};
    edited();
    draw();
  });
  for (const id of ["an-stock", "an-to-play", "an-dealer", "an-score-me", "an-score-opp", "an-target", "an-gin-only", "an-oklahoma"]) {
    $(id).addEventListener("change", () => edited());
  }
  document.body.dataset.ready = "1";
  if (given) analyse();
}

start();
