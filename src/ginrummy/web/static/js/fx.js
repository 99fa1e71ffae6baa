// Card movements and table sounds, each behind its own toggle (see state.js: motion
// follows prefers-reduced-motion until the player chooses).

import { motionOn, soundOn } from "./state.js";

/**
 * Slide `el` from the screen rectangle `from` to where it now is (FLIP). A card-sized
 * source also gives the starting size (a small card grows to its place); a larger one (a
 * whole hand) only gives the starting point: a moving card is never drawn larger than it is.
 */
export function flyFrom(el, from, { delay = 0, duration = 320 } = {}) {
  if (!motionOn() || !el || !from || typeof el.animate !== "function") return;
  const to = el.getBoundingClientRect();
  if (!to.width) return;
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  if (Math.abs(dx) < 2 && Math.abs(dy) < 2) return;
  const scale = from.width && to.width ? Math.min(1, from.width / to.width) : 1;
  el.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, zIndex: 5 },
      { transform: "none", zIndex: 5 },
    ],
    { duration, delay, easing: "cubic-bezier(0.2, 0.8, 0.25, 1)", fill: "backwards" },
  );
}

/** A gentle pop for cards that appear (dealt or revealed). */
export function popIn(el, delay = 0) {
  if (!motionOn() || !el || typeof el.animate !== "function") return;
  el.animate(
    [{ transform: "translateY(-24px) scale(0.92)", opacity: 0 }, { transform: "none", opacity: 1 }],
    { duration: 280, delay, easing: "cubic-bezier(0.2, 0.8, 0.25, 1)", fill: "backwards" },
  );
}

let audio = null;

function ctx() {
  if (audio) return audio;
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  try {
    audio = new AC();
  } catch {
    audio = null;
  }
  return audio;
}

const SOUNDS = {
  draw: [[520, 0.05, "triangle", 0.07]],
  discard: [[300, 0.07, "triangle", 0.08]],
  knock: [[180, 0.08, "square", 0.06], [180, 0.08, "square", 0.06, 0.14]],
  gin: [[523, 0.12, "sine", 0.08], [659, 0.12, "sine", 0.08, 0.12], [784, 0.2, "sine", 0.08, 0.24]],
  turn: [[660, 0.06, "sine", 0.05]],
  error: [[150, 0.12, "sawtooth", 0.04]],
};

/** Play one of the table's short synthesized sounds (no audio files), if sound is on. */
export function sound(name) {
  if (!soundOn()) return;
  const c = ctx();
  if (!c || !SOUNDS[name]) return;
  if (c.state === "suspended") c.resume().catch(() => {});
  const now = c.currentTime;
  for (const [freq, len, type, gain, at = 0] of SOUNDS[name]) {
    const o = c.createOscillator();
    const g = c.createGain();
    o.type = type;
    o.frequency.value = freq;
    g.gain.setValueAtTime(gain, now + at);
    g.gain.exponentialRampToValueAtTime(0.0001, now + at + len);
    o.connect(g).connect(c.destination);
    o.start(now + at);
    o.stop(now + at + len + 0.02);
  }
}
