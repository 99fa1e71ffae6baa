// Where this browser is in Learn to play (learn.js), for the lesson and the lobby's
// "Resume the lesson".

const KEY = "ginrummy.learn";

/** {step, total, done}, or null when the lesson was never started here. */
export function lessonProgress() {
  try {
    const p = JSON.parse(localStorage.getItem(KEY) || "null");
    if (p && Number.isInteger(p.step) && Number.isInteger(p.total)) return p;
  } catch {
    /* unreadable: as if never started */
  }
  return null;
}

/** Remember the step reached (0-based) of `total`, and whether the lesson is done. */
export function saveProgress(step, total, done) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ step, total, done }));
  } catch {
    /* private mode: the lesson starts over next time */
  }
}
