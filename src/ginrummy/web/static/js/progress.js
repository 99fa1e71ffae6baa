// Where this browser is in Learn to play (learn.js), for the lesson and the lobby's
// "Resume the lesson".

const KEY = "ginrummy.learn";

/** Where a lesson is kept: the first lesson under KEY, the others (learn_lessons.py)
 *  under KEY.NAME. */
const keyOf = (name) => (name ? `${KEY}.${name}` : KEY);

/** {step, total, done}, or null when the lesson (`name`; the first when empty) was never
 *  started here. */
export function lessonProgress(name = "") {
  try {
    const p = JSON.parse(localStorage.getItem(keyOf(name)) || "null");
    if (p && Number.isInteger(p.step) && Number.isInteger(p.total)) return p;
  } catch {
    /* unreadable: as if never started */
  }
  return null;
}

/** Remember the step reached (0-based) of `total`, and whether the lesson is done. */
export function saveProgress(step, total, done, name = "") {
  try {
    localStorage.setItem(keyOf(name), JSON.stringify({ step, total, done }));
  } catch {
    /* private mode: the lesson starts over next time */
  }
}
