// Fair play for players: a marked account's profile says so, and any signed-in player can
// report an account, from its profile or from a finished match (POST /api/reports). Text
// is only ever set as text.

import { api, signedIn, useSession } from "./api.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";

const REASONS = [
  ["engine", t("Engine help (a program or someone else plays for them)")],
  ["boosting", t("Boosting (losing on purpose, or playing a friend's other account)")],
  ["abuse", t("Abuse (insults, harassment)")],
  ["other", t("Something else")],
];

const MARKS = {
  engine: t("A moderator has marked this account for engine help: it is off the leaderboard, and its rated opponents got back the points they lost to it."),
  booster: t("A moderator has marked this account for boosting: it is off the leaderboard, and its rated opponents got back the points they lost to it."),
};

/** The notice a marked account's profile shows (null: no mark). */
export function markNotice(mark) {
  const text = MARKS[mark];
  return text ? el("p", { class: "message error", role: "note", "data-testid": "player-mark", text }) : null;
}

/** A "Report" button that opens a small form under it; `match` names the match it is
 *  about (or null). Needs a signed-in player (the caller checks). */
export function reportButton(username, match = null) {
  const box = el("span", { class: "report" });
  const open = el("button", { class: "btn ghost small", type: "button", "data-testid": "report-open", text: match ? t("Report {name}", { name: username }) : t("Report") });
  box.append(open);
  open.addEventListener("click", () => {
    open.hidden = true;
    box.append(reportForm(username, match, () => { open.hidden = false; }));
  });
  return box;
}

function reportForm(username, match, closed) {
  const id = `report-${Math.random().toString(36).slice(2, 8)}`;
  const select = el("select", { id: `${id}-reason`, "data-testid": "report-reason" },
    ...REASONS.map(([value, text]) => el("option", { value, text })));
  const text = el("textarea", { id: `${id}-text`, maxLength: 500, rows: 3, "data-testid": "report-text", placeholder: t("What happened? (optional, at most 500 characters)") });
  const send = el("button", { class: "btn primary small", type: "submit", "data-testid": "report-send", text: t("Send the report") });
  const cancel = el("button", { class: "btn ghost small", type: "button", text: t("Cancel") });
  const said = el("p", { class: "message", role: "status", "aria-live": "polite", "data-testid": "report-message" });
  const form = el("form", { class: "report-form", "aria-label": t("Report {name}", { name: username }) },
    el("label", { htmlFor: select.id, text: t("Why are you reporting {name}?", { name: username }) }), select,
    el("label", { htmlFor: text.id, text: t("Details for the moderators") }), text,
    el("p", { class: "tools" }, send, cancel), said);
  cancel.addEventListener("click", () => { form.remove(); closed(); });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    send.disabled = true;
    try {
      const acct = await signedIn();
      if (acct) useSession(acct.csrf);
      await api("/api/reports", { method: "POST", body: { username, reason: select.value, text: text.value, ...(match ? { match } : {}) } });
      form.replaceChildren(el("p", { class: "message", role: "status", "data-testid": "report-message", text: t("Thank you: a moderator will look at it. Nothing about it is shown to the player.") }));
    } catch (err) {
      said.textContent = err.message;
      send.disabled = false;
    }
  });
  return form;
}

/** The profile page: the mark notice and the Report button (not on one's own profile). */
async function profile() {
  const name = decodeURIComponent(location.pathname.split("/").pop() || "");
  let p;
  try {
    p = await api(`/api/players/${encodeURIComponent(name)}`);
  } catch {
    return; // the page's own script says what went wrong
  }
  const notice = markNotice(p.mark);
  const actions = document.getElementById("player-actions");
  if (notice && actions) actions.before(notice);
  const acct = await signedIn();
  if (acct && actions && acct.username.toLowerCase() !== p.username.toLowerCase()) {
    actions.append(" ", reportButton(p.username));
  }
}

if (document.body.dataset.page === "player") profile();
