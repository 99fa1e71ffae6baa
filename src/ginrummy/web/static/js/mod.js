// The moderators' page (/mod): open flags with their figures and matches, open reports,
// and one account at a time (its screened matches, reports and history of marks and
// notes) with the moderator's actions: mark engine or booster (or take a mark away),
// clear a flag, close a report, leave a note. Every action needs a reason, which goes on
// the account's history. The API refuses anyone but a moderator; text is only set as text.

import { api, signedIn, useSession } from "./api.js";
import { el, table } from "./dom.js";
import { lang, number, t, tn } from "./i18n.js";
import { until } from "./privacy.js";
import { pct } from "./training.js";

const $ = (id) => document.getElementById(id);
const MARKS = { engine: t("engine"), booster: t("booster") };
const markWord = (mark) => MARKS[mark] || mark;
/** "12.5% of 40": an agreement over the contested decisions. */
const of = (x, count) => t("{percent} of {count}", { percent: pct(x), count: number(count) });
const when = (at) => new Date(at * 1000).toLocaleString(lang);

function say(text, kind = "error") {
  const m = $("mod-message");
  m.textContent = text;
  m.className = `message ${kind}`;
}

function userLink(name) {
  const a = el("a", { href: `/mod?u=${encodeURIComponent(name)}`, text: name, "data-testid": "mod-user" });
  a.addEventListener("click", (e) => {
    e.preventDefault();
    showAccount(name);
  });
  return a;
}

function matchLinks(ids) {
  const box = el("span");
  ids.slice(0, 12).forEach((id, i) => {
    if (i) box.append(" ");
    box.append(el("a", { href: `/review/${encodeURIComponent(id)}`, text: `#${i + 1}` }));
  });
  if (ids.length > 12) box.append(" " + tn("and {n} more", "and {n} more", ids.length - 12));
  return box;
}

/** A small form asking for the reason of an action, then running it. */
function withReason(label, testid, run) {
  const input = el("input", { type: "text", maxLength: 500, placeholder: t("Why (goes on the account's history)"), "aria-label": t("{action}: why", { action: label }), "data-testid": `${testid}-reason` });
  const go = el("button", { class: "btn small", type: "submit", text: label, "data-testid": testid });
  const form = el("form", { class: "tools" }, input, go);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    go.disabled = true;
    try {
      await run(input.value);
    } catch (err) {
      say(err.message);
    } finally {
      go.disabled = false;
    }
  });
  return form;
}

/** A report's words and, for a reported chat line, the conversation around it (the
 *  reported line marked). */
function reportWords(r) {
  const words = r.text || "—";
  const talk = r.context && Array.isArray(r.context.conversation) ? r.context.conversation : null;
  if (!talk || !talk.length) return words;
  const lines = talk.map((m) => {
    const reported = r.context.message != null && m.id === r.context.message;
    const li = el("li", { class: reported ? "reported" : null, "data-testid": reported ? "mod-reported-line" : "mod-chat-line" },
      el("span", { class: "chat-time", text: new Date(m.at * 1000).toLocaleTimeString(lang, { timeStyle: "short" }) }), " ",
      el("strong", { text: m.account || m.from || "?" }), " ", el("span", { text: m.text }));
    if (reported) li.prepend(el("span", { class: "visually-hidden", text: t("Reported:") + " " }));
    return li;
  });
  return el("div", {}, el("span", { text: words }),
    el("details", { class: "mod-conversation", "data-testid": "mod-conversation", open: true },
      el("summary", { text: tn("The conversation ({n} line)", "The conversation ({n} lines)", talk.length) }),
      el("ol", {}, ...lines)));
}

/** The mute: until when, a form to mute for a while (with the reason), and lifting it. */
function muteSection(a) {
  const now = Date.now() / 1000;
  const muted = typeof a.muted_until === "number" && a.muted_until > now;
  const parts = [el("h4", { text: t("Mute") }),
    el("p", { "data-testid": "mod-muted", text: muted ? t("Muted until {time}.", { time: until(a.muted_until) }) : t("Not muted.") })];
  const mute = (minutes, reason) => api(`/api/mod/accounts/${encodeURIComponent(a.username)}/mute`,
    { method: "POST", body: { minutes, reason } });
  const id = "mod-mute-minutes";
  const minutes = el("select", { id, "data-testid": "mod-mute-minutes" },
    ...[[10, t("10 minutes")], [60, t("1 hour")], [1440, t("1 day")], [10080, t("1 week")]]
      .map(([value, text]) => el("option", { value: String(value), text })));
  const form = withReason(t("Mute"), "mod-mute", async (reason) => {
    const r = await mute(Number(minutes.value), reason);
    say(t("{name} is muted until {time}.", { name: a.username, time: until(r.muted_until) }), "ok");
    await refresh(a.username);
  });
  form.prepend(el("label", { htmlFor: id, text: t("For") }), minutes);
  parts.push(form);
  if (muted) {
    parts.push(withReason(t("Lift the mute"), "mod-unmute", async (reason) => {
      await mute(0, reason);
      say(t("The mute on {name} is lifted.", { name: a.username }), "ok");
      await refresh(a.username);
    }));
  }
  return parts;
}

async function loadLists() {
  const [flags, reports] = await Promise.all([api("/api/mod/flags"), api("/api/mod/reports")]);
  $("flag-count").textContent = `(${number(flags.flags.length)})`;
  $("report-count").textContent = `(${number(reports.reports.length)})`;
  $("mod-flags").replaceChildren(flags.flags.length
    ? table([t("Account"), t("Decisions"), t("Agreement"), t("Error rate"), t("Contested agreement"), t("Why"), t("Matches")],
      flags.flags.map((f) => [userLink(f.username), number(f.decisions), pct(f.agreement), pct(f.error_rate),
        of(f.contested_agreement, f.contested), f.reason, matchLinks(f.matches)]), "mod-flag")
    : el("p", { class: "empty", text: t("No open flags.") }));
  $("mod-reports").replaceChildren(reports.reports.length
    ? table([t("Account"), t("By"), t("Reason"), t("Their words"), t("Match"), t("When"), ""],
      reports.reports.map((r) => [userLink(r.username), r.by, r.reason, reportWords(r),
        r.match ? el("a", { href: `/review/${encodeURIComponent(r.match)}`, text: t("review") }) : "—",
        when(r.created_at), withReason(t("Close"), "mod-close", async (text) => {
          await api(`/api/mod/reports/${encodeURIComponent(r.id)}/close`, { method: "POST", body: { text } });
          say(t("Report closed."), "ok");
          await refresh(r.username);
        })]), "mod-report")
    : el("p", { class: "empty", text: t("No open reports.") }));
}

let shown = null;

async function showAccount(name) {
  shown = name;
  const box = $("mod-account");
  let a;
  try {
    a = await api(`/api/mod/accounts/${encodeURIComponent(name)}`);
  } catch (err) {
    box.replaceChildren(el("p", { class: "message error", text: err.message }));
    return;
  }
  history.replaceState(null, "", `/mod?u=${encodeURIComponent(a.username)}`);
  const s = a.screened;
  const parts = [
    el("h3", { text: a.username, "data-testid": "mod-account-name" }),
    el("p", { "data-testid": "mod-account-mark", text: a.mark ? t("Marked: {mark}.", { mark: markWord(a.mark) }) : t("No mark.") }),
    el("p", { text: t("Rating {rating} after {rated} rated matches. Screened: {matches} matches, {decisions} decisions, "
      + "agreement {agreement}, error rate {error_rate}, contested agreement {contested_agreement} of {contested}.", {
      rating: Math.round(a.rating), rated: number(a.rated_matches), matches: number(s.matches),
      decisions: number(s.decisions), agreement: pct(s.agreement), error_rate: pct(s.error_rate),
      contested_agreement: pct(s.contested_agreement), contested: number(s.contested),
    }) }),
  ];
  if (a.flag) {
    parts.push(el("p", { "data-testid": "mod-account-flag", text: t("Flag ({status}): {reason}", { status: a.flag.status, reason: a.flag.reason }) }));
  }
  const mark = (value, label, testid) => withReason(label, testid, async (reason) => {
    const r = await api(`/api/mod/accounts/${encodeURIComponent(a.username)}/mark`, { method: "POST", body: { mark: value, reason } });
    const given = r.refunds.map((x) => `${x.username} +${number(x.points)}`).join(", ");
    const p = { name: a.username, mark: markWord(value), refunds: given };
    say(!value ? t("The mark on {name} is taken away.", p)
      : given ? t("Marked {name} ({mark}). Points given back: {refunds}.", p)
        : t("Marked {name} ({mark}). No points to give back.", p), "ok");
    await refresh(a.username);
  });
  parts.push(el("h4", { text: t("Actions") }));
  if (a.mark !== "engine") parts.push(mark("engine", t("Mark: engine"), "mod-mark-engine"));
  if (a.mark !== "booster") parts.push(mark("booster", t("Mark: booster"), "mod-mark-booster"));
  if (a.mark) parts.push(mark(null, t("Take the mark away"), "mod-unmark"));
  if (a.flag && a.flag.status === "open") {
    parts.push(withReason(t("Clear the flag"), "mod-clear", async (text) => {
      await api(`/api/mod/accounts/${encodeURIComponent(a.username)}/clear`, { method: "POST", body: { text } });
      say(t("The flag on {name} is cleared.", { name: a.username }), "ok");
      await refresh(a.username);
    }));
  }
  parts.push(withReason(t("Add a note"), "mod-note", async (text) => {
    await api(`/api/mod/accounts/${encodeURIComponent(a.username)}/note`, { method: "POST", body: { text } });
    say(t("Noted."), "ok");
    await refresh(a.username);
  }));
  parts.push(...muteSection(a));
  parts.push(el("h4", { text: t("Screened matches") }), a.matches.length
    ? table([t("Match"), t("Decisions"), t("Agreement"), t("Error rate"), t("Contested agreement"), t("Screened")],
      a.matches.map((m) => [el("a", { href: `/review/${encodeURIComponent(m.match)}`, text: m.match }), number(m.decisions),
        pct(m.agreement), pct(m.error_rate), of(m.contested_agreement, m.contested), when(m.at)]))
    : el("p", { class: "empty", text: t("No screened matches.") }));
  parts.push(el("h4", { text: t("Reports") }), a.reports.length
    ? table([t("By"), t("Reason"), t("Their words"), t("Status"), t("When")],
      a.reports.map((r) => [r.by, r.reason, reportWords(r), r.status, when(r.created_at)]))
    : el("p", { class: "empty", text: t("No reports.") }));
  parts.push(el("h4", { text: t("History of marks and notes") }), a.log.length
    ? table([t("When"), t("Moderator"), t("What"), t("Why")],
      a.log.map((e) => [when(e.at), e.moderator || t("operator"),
        e.action === "mark" ? (e.mark ? t("marked {mark}", { mark: markWord(e.mark) }) : t("mark taken away")) : e.action, e.text]), "mod-log")
    : el("p", { class: "empty", text: t("Nothing yet.") }));
  if (a.refunds.length) {
    parts.push(el("h4", { text: t("Points given back") }),
      table([t("To"), t("Match"), t("Points")], a.refunds.map((r) => [r.username, r.match, `+${number(r.points)}`])));
  }
  box.replaceChildren(...parts);
}

async function refresh(name) {
  await loadLists();
  if (name || shown) await showAccount(name || shown);
}

async function start() {
  const acct = await signedIn();
  if (!acct) {
    say(t("Log in as a moderator to see this page."));
    return;
  }
  useSession(acct.csrf);
  try {
    await api("/api/mod");
  } catch (err) {
    say(err.message);
    return;
  }
  $("mod-body").hidden = false;
  $("mod-find").addEventListener("submit", (e) => {
    e.preventDefault();
    const name = $("mod-username").value.trim();
    if (name) showAccount(name);
  });
  await loadLists();
  const wanted = new URLSearchParams(location.search).get("u");
  if (wanted) await showAccount(wanted);
}

start();
