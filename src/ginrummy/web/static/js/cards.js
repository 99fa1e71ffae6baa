// Cards drawn in HTML + inline SVG (no images, no web fonts): names, ordering, rendering.

import { lang, t } from "./i18n.js";

export const SUITS = ["C", "D", "H", "S"];
export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
// TRANSLATORS: a card's rank, as said in a card's name ("seven of clubs")
export const RANK_WORDS = {
  A: t("ace"), 2: t("two"), 3: t("three"), 4: t("four"), 5: t("five"), 6: t("six"), 7: t("seven"),
  8: t("eight"), 9: t("nine"), T: t("ten"), J: t("jack"), Q: t("queen"), K: t("king"),
};
// TRANSLATORS: a suit, as said in a card's name ("seven of clubs")
export const SUIT_WORDS = { C: t("clubs"), D: t("diamonds"), H: t("hearts"), S: t("spades") };
const SVG_NS = "http://www.w3.org/2000/svg";

/** "7C" -> "seven of clubs": a card's name inside a sentence. */
export function cardWords(code) {
  // TRANSLATORS: a card's name ("seven of clubs"); {rank} and {suit} are the words above
  return t("{rank} of {suit}", { rank: RANK_WORDS[code[0]], suit: SUIT_WORDS[code[1]] });
}

/** "7C" -> "Seven of clubs" (the accessible name of a card). */
export function cardName(code) {
  const words = cardWords(code);
  return words.charAt(0).toLocaleUpperCase(lang) + words.slice(1);
}

/** Short label for text: "7♣", "10♥". */
export function cardShort(code) {
  const r = code[0] === "T" ? "10" : code[0];
  return r + { C: "♣", D: "♦", H: "♥", S: "♠" }[code[1]];
}

/** "7C" -> a node that shows "7♣" and that a screen reader reads as "seven of clubs" (a
 *  suit symbol is read out as "black club suit"): for a card inside a sentence. */
export function cardSpoken(code) {
  const node = document.createElement("span");
  const seen = document.createElement("span");
  seen.setAttribute("aria-hidden", "true");
  seen.textContent = cardShort(code);
  const heard = document.createElement("span");
  heard.className = "visually-hidden";
  heard.textContent = cardWords(code);
  node.append(seen, heard);
  return node;
}

/** Points of a card (R1): ace 1, faces 10. */
export function cardPoints(code) {
  const i = RANKS.indexOf(code[0]);
  return Math.min(i + 1, 10);
}

/** Sort key: by suit then rank, or by rank then suit. */
export function sortCards(cards, by = "suit") {
  const key = (c) =>
    by === "rank"
      ? RANKS.indexOf(c[0]) * 4 + SUITS.indexOf(c[1])
      : SUITS.indexOf(c[1]) * 13 + RANKS.indexOf(c[0]);
  return [...cards].sort((a, b) => key(a) - key(b));
}

/** Insert the suit symbols once per page as an SVG sprite that every card references. */
export function installSuitSprite() {
  if (document.getElementById("suit-sprite")) return;
  const holder = document.createElement("div");
  holder.innerHTML = `
<svg id="suit-sprite" xmlns="${SVG_NS}" width="0" height="0" style="position:absolute" aria-hidden="true">
  <symbol id="suit-D" viewBox="0 0 100 100"><path d="M50 2 L88 50 L50 98 L12 50 Z"/></symbol>
  <symbol id="suit-H" viewBox="0 0 100 100"><path d="M50 94 C22 70 2 52 2 30 C2 13 15 3 29 3 C40 3 47 10 50 20 C53 10 60 3 71 3 C85 3 98 13 98 30 C98 52 78 70 50 94 Z"/></symbol>
  <symbol id="suit-S" viewBox="0 0 100 100"><path d="M50 2 C62 22 98 40 98 62 C98 78 86 87 73 87 C64 87 57 82 54 76 C55 87 59 94 68 98 L32 98 C41 94 45 87 46 76 C43 82 36 87 27 87 C14 87 2 78 2 62 C2 40 38 22 50 2 Z"/></symbol>
  <symbol id="suit-C" viewBox="0 0 100 100"><circle cx="50" cy="27" r="22"/><circle cx="25" cy="60" r="22"/><circle cx="75" cy="60" r="22"/><rect x="40" y="35" width="20" height="30"/><path d="M48 55 C48 78 43 91 32 98 L68 98 C57 91 52 78 52 55 Z"/></symbol>
</svg>`;
  document.body.prepend(holder.firstElementChild);
}

function suitSvg(suit, cls) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", cls);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(SVG_NS, "use");
  use.setAttribute("href", `#suit-${suit}`);
  svg.appendChild(use);
  return svg;
}

/**
 * Build a card face. `tag` is "button" for a card the player can act on, else "div".
 * The element carries data-card and an aria-label such as "Seven of clubs".
 */
export function cardElement(code, { tag = "div", small = false, extraLabel = "" } = {}) {
  const el = document.createElement(tag);
  const red = code[1] === "H" || code[1] === "D";
  // The suit's class lets the four-colour deck (prefs.js) colour clubs and diamonds; the
  // symbols stay, so no suit is told by its colour alone.
  el.className = `card face ${red ? "red" : "black"} suit-${code[1]}${small ? " small" : ""}`;
  el.dataset.card = code;
  if (tag === "button") el.type = "button";
  el.setAttribute("aria-label", cardName(code) + (extraLabel ? `, ${extraLabel}` : ""));
  if (tag !== "button") el.setAttribute("role", "img");
  const rank = code[0] === "T" ? "10" : code[0];
  const corner = (pos) => {
    const c = document.createElement("span");
    c.className = `corner ${pos}`;
    c.setAttribute("aria-hidden", "true");
    const r = document.createElement("span");
    r.className = "rank";
    r.textContent = rank;
    c.append(r, suitSvg(code[1], "pip"));
    return c;
  };
  const center = document.createElement("span");
  center.className = "center";
  center.setAttribute("aria-hidden", "true");
  if ("JQK".includes(code[0])) {
    center.classList.add("court");
    const letter = document.createElement("span");
    letter.className = "court-letter";
    letter.textContent = code[0];
    center.append(letter, suitSvg(code[1], "big"));
  } else {
    center.append(suitSvg(code[1], "big"));
  }
  // the centre first: its box spans the card, and the indices are drawn over it
  el.append(center, corner("tl"), corner("br"));
  return el;
}

/** A face-down card. */
export function cardBack({ tag = "div", small = false, label = "" } = {}) {
  const el = document.createElement(tag);
  el.className = `card back${small ? " small" : ""}`;
  if (tag === "button") el.type = "button";
  if (label) el.setAttribute("aria-label", label);
  else el.setAttribute("aria-hidden", "true");
  return el;
}
