// The player's card preferences, remembered by this browser and shared by every page
// that shows cards: a four-colour deck (clubs green, diamonds blue; each suit keeps its
// symbol, so colour is never the only clue) and large cards (bigger cards and indices).

const KEYS = { fourColour: "ginrummy.deck.fourColour", largeCards: "ginrummy.deck.large" };
const CLASSES = { fourColour: "four-colour", largeCards: "large-cards" };
const memory = {}; // when this browser keeps nothing (private mode)

/** Whether a preference ("fourColour" or "largeCards") is on; both start off. */
export function cardPref(name) {
  if (name in memory) return memory[name];
  try {
    return localStorage.getItem(KEYS[name]) === "on";
  } catch {
    return false;
  }
}

/** Put the remembered preferences on the page (the classes live on <html>). */
export function applyCardPrefs() {
  for (const name of Object.keys(KEYS)) {
    document.documentElement.classList.toggle(CLASSES[name], cardPref(name));
  }
}

/** Turn a preference on or off, remember it, and show it at once. */
export function setCardPref(name, on) {
  try {
    localStorage.setItem(KEYS[name], on ? "on" : "off");
    delete memory[name];
  } catch {
    memory[name] = on; // private mode: the choice lasts until the page closes
  }
  document.documentElement.classList.toggle(CLASSES[name], on);
}

// The same choice made in another tab shows here too.
window.addEventListener("storage", (e) => {
  if (Object.values(KEYS).includes(e.key)) applyCardPrefs();
});
