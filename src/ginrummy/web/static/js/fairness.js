// Deals people can trust: the table shows the server's commitment to the secret seed as
// soon as the match starts, keeps it in this browser, and once the match is over checks
// the revealed seed and salt against it (SHA-256, as `ginrummy verify` does).

import { api } from "./api.js";
import { withNodes } from "./dom.js";
import { renderEnding } from "./ending.js";
import { t } from "./i18n.js";
import { $, el } from "./render.js";
import { base, store } from "./state.js";

let shownFor = null;
let revealedFor = null;

const key = () => `ginrummy.commit.${store.matchId}`;

async function sha256Hex(text) {
  if (!window.crypto || !crypto.subtle) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Show the commitment (once per match) and, at the end, the seed and salt checked. */
export async function renderFairness() {
  const S = store.S;
  if (!S) return;
  const finished = S.status === "finished";
  if (shownFor === S.id && (!finished || revealedFor === S.id)) return;
  shownFor = S.id;
  let f;
  try {
    f = await api(`${base()}/fairness`);
  } catch {
    return;
  }
  const line = $("fair-line");
  store.withheld = f.withheld || null; // a daily match while its day lasts
  renderEnding();
  if (!f.commitment) {
    line.textContent = "";
    return;
  }
  let kept = localStorage.getItem(key());
  if (!kept) {
    kept = f.commitment;
    try {
      localStorage.setItem(key(), kept);
    } catch {
      /* private mode: checked against what the server says now */
    }
  }
  const commitment = el("code", { text: kept, title: t("The server's commitment to this match's secret seed") });
  line.replaceChildren(...withNodes(finished && f.salt
    ? t("Deals sealed before the first card: SHA-256 {commitment}. The match is over: the seed and salt are revealed in the result.")
    : f.withheld ? t("Deals sealed before the first card: SHA-256 {commitment}. {withheld}")
      : t("Deals sealed before the first card: SHA-256 {commitment}. The seed and salt are shown when the match ends."),
  { commitment, withheld: f.withheld || "" }));
  if (finished && f.withheld) revealedFor = S.id; // (asked once: it opens at 00:00 UTC)
  if (!finished || !f.salt) return;
  revealedFor = S.id;
  const hash = await sha256Hex(`ginrummy-commit/1:${f.seed_text}:${f.salt}`);
  const ok = hash === null ? null : hash === kept;
  const box = $("fair-reveal");
  box.hidden = false;
  box.replaceChildren(
    el("strong", { text: ok === false ? t("The deals do NOT match the seal!") : t("Fair deal:") + " " }),
    ...withNodes(ok
      ? t("seed {seed}, salt {salt} give exactly the commitment shown at the start ✓. Check every deal yourself: download the record and run {command}.")
      : t("seed {seed}, salt {salt}. Check every deal yourself: download the record and run {command}."),
    { seed: f.seed_text, salt: el("code", { text: f.salt }), command: el("code", { text: "ginrummy verify RECORD" }) }),
  );
  box.dataset.verified = String(ok);
}
