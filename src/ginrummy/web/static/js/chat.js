// Chat (issue 45): the players' chat at the table and the spectators' chat on the watch
// page. At the table the lines come over the seat's socket ({"type": "chat"}, play.js hands
// them here) and are caught up with GET .../chat?after=ID whenever the socket (re)opens or
// while it is down; the panel sits beside the table on a laptop and in a drawer behind a
// "Chat" button (with an unread count) on a phone. The watch page asks for the spectators'
// chat every two seconds (it has no socket); the players do not see it while they play.
// Quick phrases are sent by key and shown in the page's language; the signed-in account's
// setting takes free text away ("phrases") or the whole chat ("off"). A line from someone
// else can be reported to the moderators. Every name and line is set as text
// (textContent, text nodes), never as markup.

import { api, busy, retryWait, signedIn, useSession } from "./api.js";
import { el, withNodes } from "./dom.js";
import { lang, number, t, tn } from "./i18n.js";

/** The most characters a line may have (the server's limit too). */
export const MAX_CHARS = 140;
const KEEP_LINES = 300; // lines a panel keeps (the oldest go)
const SAY_KEEP = 20; // lines the live region keeps
const WATCH_POLL_MS = 2000;
const HIDDEN_POLL_MS = 20000; // a watch page in a background tab
const REFUSED_POLL_MS = 10000; // a player of the match, while it is in play
const SOCKET_DOWN_POLL_MS = 5000; // the table's socket is down: the chat is asked for
const CATCH_UP_AGAIN_MS = 2000;

/** The quick phrases, by the key the server takes, in the page's language. */
const PHRASES = {
  // TRANSLATORS: a quick phrase a player sends in the table's chat with one click
  gl: t("Good luck"),
  // TRANSLATORS: a quick phrase a player sends in the table's chat with one click
  gg: t("Good game"),
  // TRANSLATORS: a quick phrase a player sends in the table's chat with one click (a gin is the best end of a hand)
  "nice-gin": t("Nice gin"),
  // TRANSLATORS: a quick phrase a player sends in the table's chat with one click
  thanks: t("Thanks"),
  // TRANSLATORS: a quick phrase a player sends in the table's chat with one click (after a slip)
  oops: t("Oops"),
};

let idCount = 0;
const uid = (stem) => `${stem}-${++idCount}`;

const clock = (() => {
  try {
    return new Intl.DateTimeFormat(lang, { hour: "2-digit", minute: "2-digit" });
  } catch {
    return null;
  }
})();

/** The signed-in account and its chat setting: {account, mode: "on"|"phrases"|"off",
 *  mutedUntil}; a guest chats with "on" (guests have no settings). */
async function chatSetting() {
  const account = await signedIn();
  if (!account) return { account: null, mode: "on", mutedUntil: null };
  try {
    const s = await api("/api/me/settings");
    const mode = ["on", "phrases", "off"].includes(s && s.chat) ? s.chat : "on";
    return { account, mode, mutedUntil: (s && s.muted_until) || null };
  } catch {
    return { account, mode: "on", mutedUntil: null };
  }
}

/** What a line says, in the page's language for a quick phrase. */
const lineText = (m) => (m.phrase && PHRASES[m.phrase]) || String(m.text ?? "");

/** A message as the server sends it, or null when it is not one. */
function valid(m) {
  return m && typeof m === "object" && Number.isInteger(m.id) ? m : null;
}

// ------------------------------------------------------------------ the report dialog

let dialog = null;

/** The dialog that asks a few words about a reported line (one per page, made once). */
function reportDialog() {
  if (dialog) return dialog;
  const title = uid("chat-report-title");
  const textId = uid("chat-report-text");
  const node = el("dialog", { class: "chat-dialog", "aria-labelledby": title, "data-testid": "chat-report-dialog" });
  const quote = el("blockquote", { class: "chat-quote", "data-testid": "chat-report-quote" });
  const text = el("textarea", { id: textId, rows: 3, maxLength: 500, "data-testid": "chat-report-text" });
  const said = el("p", { class: "message", role: "status", "data-testid": "chat-report-message" });
  const send = el("button", { class: "btn primary small", type: "submit", "data-testid": "chat-report-send", text: t("Send the report") });
  const cancel = el("button", { class: "btn ghost small", type: "button", "data-testid": "chat-report-cancel", text: t("Cancel") });
  const form = el("form", { method: "dialog" },
    el("h2", { id: title, text: t("Report this message") }), quote,
    el("label", { htmlFor: textId, text: t("What is wrong with it? (optional, at most 500 characters)") }), text,
    said, el("p", { class: "chat-dialog-buttons" }, cancel, send));
  node.append(form);
  // the table's keys (S draws, K knocks) are not for a dialog's buttons
  node.addEventListener("keydown", (e) => e.stopPropagation());
  cancel.addEventListener("click", () => node.close());
  document.body.append(node);
  dialog = { node, form, quote, text, said, send };
  return dialog;
}

/** Report `m` (a line of the chat of match `match`): a signed-in player says a few words
 *  and it goes to the moderators with the conversation; a guest is told to log in. */
async function reportLine(m, match, button, notice) {
  const account = await signedIn();
  if (!account) {
    notice(withNodes(t("{link} to report a message."), { link: el("a", { href: "/account", text: t("Log in") }) }));
    return;
  }
  const d = reportDialog();
  d.quote.replaceChildren(el("strong", { text: String(m.from ?? "") }), document.createTextNode(" "),
    document.createTextNode(lineText(m)));
  d.text.value = "";
  d.said.textContent = "";
  d.send.disabled = false;
  d.form.onsubmit = async (e) => {
    e.preventDefault();
    d.send.disabled = true;
    try {
      useSession(account.csrf);
      await api("/api/reports", { method: "POST", body: {
        username: m.account || String(m.from ?? ""), reason: "abuse", text: d.text.value.trim(),
        match, message: m.id,
      } });
      d.node.close();
      button.disabled = true;
      button.textContent = t("Reported");
      notice(t("Thank you: a moderator will look at it. Nothing about it is shown to the player."));
    } catch (err) {
      d.said.textContent = err.message;
      d.send.disabled = false;
    }
  };
  d.node.onclose = () => {
    if (button.isConnected && !button.closest("[hidden]")) button.focus({ preventScroll: true });
  };
  d.node.showModal();
  d.text.focus();
}

// ------------------------------------------------------------------ a chat panel

/**
 * Fill `panel` (a section) with a chat: its title, the lines, a line for refusals, and for
 * one who may write the quick phrases and (mode "on") the text box. Options: title, match
 * (its id, for reports), write ("on" | "phrases" | "guest" | "none"), send(body) (a promise
 * of the server's {message}), mine(m) (a line of this page's player), closeButton (a
 * drawer's), empty (the sentence while there is no line). Returns the box's handle.
 */
function chatBox(panel, opts) {
  const titleId = uid("chat-title");
  panel.setAttribute("aria-labelledby", titleId);
  const head = el("div", { class: "chat-head" }, el("h2", { id: titleId, class: "chat-title", text: opts.title }));
  if (opts.closeButton) head.append(opts.closeButton);
  const lines = el("ol", { class: "chat-lines", "data-testid": "chat-lines", tabIndex: 0,
    "aria-label": t("Messages") });
  const empty = el("p", { class: "chat-empty", "data-testid": "chat-empty", text: opts.empty });
  const notice = el("p", { class: "chat-notice", role: "status", "data-testid": "chat-notice" });
  panel.replaceChildren(head, lines, empty, notice);
  // the new lines from others, read out by a screen reader (a polite region of its own,
  // outside the panel, so a closed drawer's lines are heard too; the table's own news
  // stay in #speech)
  const live = el("div", { class: "visually-hidden", role: "log", "aria-live": "polite",
    "aria-label": t("New chat messages"), "data-testid": "chat-live" });
  panel.after(live);

  const ids = new Set();
  let last = 0;
  const say = (nodes, kind = "") => {
    notice.className = `chat-notice ${kind}`;
    notice.replaceChildren(...(Array.isArray(nodes) ? nodes : [nodes || ""]));
  };

  const writing = opts.write;
  let input = null;
  let count = null;
  const pending = new Set(); // quick phrases on their way (a double click sends one)
  const send = async (body) => {
    say("");
    const r = await opts.send(body);
    if (r && r.message) add([r.message], { own: true });
  };
  const sendPhrase = async (key) => {
    if (pending.has(key)) return;
    pending.add(key);
    try {
      await send({ phrase: key });
    } catch (err) {
      say(err.message, "error");
    } finally {
      pending.delete(key);
    }
  };
  // a line written goes at once (the box is emptied for the next); a refused one comes back
  // to the box, unless something new was written there meanwhile
  const sendText = async (text) => {
    input.value = "";
    count.update();
    try {
      await send({ text });
    } catch (err) {
      say(err.message, "error");
      if (!input.value) {
        input.value = text;
        count.update();
      }
    }
  };
  if (writing === "on" || writing === "phrases") {
    const row = el("div", { class: "chat-phrases", role: "group", "aria-label": t("Quick phrases") });
    for (const [key, text] of Object.entries(PHRASES)) {
      const b = el("button", { class: "btn ghost small chat-phrase", type: "button", text, "data-phrase": key,
        "data-testid": `chat-phrase-${key}` });
      b.addEventListener("click", () => sendPhrase(key));
      row.append(b);
    }
    panel.append(row);
  }
  if (writing === "on") {
    const inputId = uid("chat-input");
    const countId = uid("chat-count");
    input = el("input", { id: inputId, type: "text", maxLength: MAX_CHARS, autocomplete: "off",
      enterKeyHint: "send", class: "chat-input", "data-testid": "chat-input", "aria-describedby": countId });
    count = el("span", { id: countId, class: "chat-count", "data-testid": "chat-count" });
    count.update = () => {
      const n = input.value.length;
      // TRANSLATORS: under the chat's box: the characters written and the most there may be ("12/140")
      count.textContent = t("{count}/{max}", { count: number(n), max: number(MAX_CHARS) });
      count.classList.toggle("near", n >= MAX_CHARS - 20);
    };
    count.update();
    const submit = el("button", { class: "btn primary small", type: "submit", text: t("Send"), "data-testid": "chat-send" });
    const form = el("form", { class: "chat-form", "data-testid": "chat-form" },
      el("label", { htmlFor: inputId, class: "visually-hidden", text: t("Your message") }),
      input, count, submit);
    input.addEventListener("input", count.update);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (text) sendText(text);
    });
    panel.append(form);
  } else if (writing === "phrases") {
    panel.append(el("p", { class: "chat-hint", "data-testid": "chat-phrases-only",
      text: t("Quick phrases only: your settings turned free text off.") }));
  } else if (writing === "guest") {
    panel.append(el("p", { class: "chat-hint", "data-testid": "chat-login" },
      el("a", { href: "/account", text: t("Log in to chat") })));
  }
  // the table's keys (S draws, K knocks, arrows pick cards) are not for the chat's buttons
  panel.addEventListener("keydown", (e) => e.stopPropagation());

  function line(m, own) {
    const from = String(m.from ?? "");
    const li = el("li", { class: `chat-line${own ? " mine" : ""}${m.phrase ? " phrase" : ""}`,
      "data-testid": "chat-line", "data-id": String(m.id) });
    const body = el("span", { class: "chat-body" });
    if (clock && Number.isFinite(m.at)) {
      const when = new Date(m.at * 1000);
      body.append(el("time", { class: "chat-time", dateTime: when.toISOString(), text: clock.format(when) }), " ");
    }
    body.append(el("span", { class: "chat-name", "data-testid": "chat-name", text: from }),
      el("span", { class: "chat-text", "data-testid": "chat-text", text: lineText(m) }));
    li.append(body);
    if (!own && m.account) { // (a guest's line cannot be reported: no account wrote it)
      const b = el("button", { class: "chat-report", type: "button", text: t("Report"), "data-testid": "chat-report",
        // TRANSLATORS: a chat line's Report button, as a screen reader names it: begin with your word for "Report" (a voice control says what it sees)
        "aria-label": t("Report the message from {name}", { name: from }) });
      b.addEventListener("click", () => reportLine(m, opts.match, b, say));
      li.append(b);
    }
    return li;
  }

  /** Put new lines in (by id; one already shown is skipped). quiet: the history, not
   *  read out and not counted as unread. Returns how many came from others. */
  function add(list, { quiet = false, own = false } = {}) {
    const atEnd = lines.scrollHeight - lines.scrollTop - lines.clientHeight < 40;
    let fresh = 0;
    let mineAdded = false;
    for (const raw of Array.isArray(list) ? list : []) {
      const m = valid(raw);
      if (!m || ids.has(m.id)) continue;
      ids.add(m.id);
      last = Math.max(last, m.id);
      const isMine = own || opts.mine(m);
      const li = line(m, isMine);
      const after = [...lines.children].find((n) => Number(n.dataset.id) > m.id);
      lines.insertBefore(li, after || null);
      if (isMine) mineAdded = true;
      else if (!quiet) {
        fresh += 1;
        // TRANSLATORS: a new chat line, as a screen reader reads it out: who wrote it, and what
        const said = el("p", { text: t("{name}: {text}", { name: String(m.from ?? ""), text: lineText(m) }) });
        live.append(said);
        while (live.childElementCount > SAY_KEEP) live.firstElementChild.remove();
      }
    }
    while (lines.childElementCount > KEEP_LINES) lines.firstElementChild.remove();
    empty.hidden = lines.childElementCount > 0;
    lines.hidden = lines.childElementCount === 0;
    if (atEnd || mineAdded || quiet) lines.scrollTop = lines.scrollHeight;
    if (fresh && opts.onFresh) opts.onFresh(fresh);
    return fresh;
  }

  empty.hidden = false;
  lines.hidden = true;
  return {
    add,
    say,
    last: () => last,
    focus: () => (input || panel.querySelector(".chat-phrase") || lines).focus(),
    toBottom: () => { lines.scrollTop = lines.scrollHeight; },
    setWriting: (on) => { // (the spectators' chat for a player of a match in play: read only)
      for (const n of panel.querySelectorAll(".chat-phrases, .chat-form")) n.hidden = !on;
    },
  };
}

/** The sentence a muted account is shown when its chat opens (null: not muted). */
function mutedLine(until) {
  if (!until || until * 1000 <= Date.now()) return null;
  const when = new Date(until * 1000);
  let text;
  try {
    text = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(when);
  } catch {
    text = when.toLocaleString();
  }
  return t("A moderator has muted you until {time}.", { time: text });
}

// ------------------------------------------------------------------ the table's chat

const table = {
  state: "idle", // "idle" | "starting" | "on" | "none"
  queued: [], // lines the socket brought while the chat was starting
  box: null,
  catchUp: null,
  socketOpen: true,
};

/** A message of the seat's socket that is not a STATE (play.js passes them on): a line
 *  of the players' chat is shown (once, however often it comes). */
export function chatSocketMessage(msg) {
  if (!msg || msg.type !== "chat") return;
  if (table.state === "on") table.box.add([msg]);
  else if (table.state === "starting") table.queued.push(msg);
}

/** The seat's socket opened (again): catch up on the lines said while it was away, now
 *  and once more a moment later (a line said between this answer and the server's taking
 *  the socket's authentication is pushed by neither). */
export function chatSocketOpened() {
  table.socketOpen = true;
  if (!table.catchUp) return;
  table.catchUp();
  setTimeout(() => table.catchUp(), CATCH_UP_AGAIN_MS);
}

/** The seat's socket closed: the chat is asked for until it opens again. */
export function chatSocketClosed() {
  table.socketOpen = false;
}

/**
 * Start the table's chat, once the first STATE is in: `path` is the match's API path,
 * `token` the seat's (or "" for the account's session), `seat` this page's seat, `match`
 * the match's id, `panel` the empty section beside the table, `toggleHost` where the
 * phone's "Chat" button goes. Nothing shows when the table has no chat (a computer, a BOT
 * seat) or the account turned it off.
 */
export async function startTableChat({ path, token, seat, match, panel, toggleHost }) {
  if (table.state !== "idle" || !panel) return;
  table.state = "starting";
  const { mode, mutedUntil } = await chatSetting();
  let first = null;
  if (mode !== "off") {
    try {
      first = await api(`${path}/chat`, { token: token || null });
    } catch {
      first = null; // no chat here (or none the page can reach): no panel
    }
  }
  if (!first || first.chat !== true) {
    table.state = "none";
    table.queued = [];
    return;
  }

  // the phone's drawer: a button (with the count of unread lines) opens it, Escape or
  // its Close button shuts it
  const narrow = matchMedia("(max-width: 1099px), (max-height: 480px)"); // (as chat.css)
  const badge = el("span", { class: "chat-badge", "aria-hidden": "true", "data-testid": "chat-unread" });
  const unreadWords = el("span", { class: "visually-hidden" });
  const toggle = el("button", { class: "btn ghost small chat-toggle", type: "button", id: "chat-toggle",
    "aria-expanded": "false", "aria-controls": panel.id, "data-testid": "chat-toggle" },
  // TRANSLATORS: the phone's button that opens the table's chat (a count of unread lines beside it)
  el("span", { text: t("Chat") }), badge, unreadWords);
  const close = el("button", { class: "btn ghost small chat-close", type: "button", text: t("Close"),
    "data-testid": "chat-close" });
  let unread = 0;
  const showUnread = () => {
    badge.textContent = unread ? number(unread) : "";
    badge.hidden = !unread;
    unreadWords.textContent = unread ? " " + tn("{n} unread message", "{n} unread messages", unread) : "";
  };
  const shown = () => panel.getClientRects().length > 0;
  const setOpen = (open, focus = true) => {
    panel.classList.toggle("open", open);
    toggle.setAttribute("aria-expanded", String(open));
    if (open) {
      unread = 0;
      showUnread();
      box.toBottom();
      if (focus) box.focus();
    } else if (focus) opener.focus();
  };
  let opener = toggle; // where the focus goes back when the drawer shuts
  toggle.addEventListener("click", () => {
    opener = toggle;
    setOpen(!panel.classList.contains("open"));
  });
  // the result of a hand covers the phone's Chat button: its panel has one of its own, so
  // "Good game" is said without leaving the result (the drawer opens above the panel)
  const overToggle = el("button", { class: "btn ghost chat-toggle", type: "button",
    "aria-controls": panel.id, "data-testid": "chat-toggle-over", text: t("Chat") });
  overToggle.addEventListener("click", () => {
    opener = overToggle;
    setOpen(true);
  });
  const overActions = document.querySelector("#hand-over .actions");
  close.addEventListener("click", () => setOpen(false));
  const escape = (e) => {
    if (e.key === "Escape" && narrow.matches && panel.classList.contains("open") && !(dialog && dialog.node.open)) {
      e.preventDefault();
      setOpen(false, panel.contains(document.activeElement) || document.activeElement === document.body);
    }
  };
  panel.addEventListener("keydown", escape); // (the panel keeps its keys from the table's)
  document.addEventListener("keydown", escape);
  narrow.addEventListener("change", () => { if (!narrow.matches) setOpen(false, false); });

  const box = chatBox(panel, {
    title: t("Chat"),
    match,
    write: mode,
    empty: t("No messages yet: say hello."),
    closeButton: close,
    mine: (m) => m.seat === seat,
    send: (body) => api(`${path}/chat`, { method: "POST", token: token || null, body }),
    onFresh: (n) => {
      if (shown()) return;
      unread += n;
      showUnread();
    },
  });
  panel.classList.add("table-chat");
  showUnread();
  box.add(first.messages, { quiet: true });
  box.add(table.queued);
  table.queued = [];
  const muted = mutedLine(mutedUntil);
  if (muted) box.say(muted, "error");
  if (toggleHost) toggleHost.append(toggle);
  if (overActions) overActions.prepend(overToggle);
  panel.hidden = false;
  document.body.classList.add("has-chat");
  table.box = box;
  table.state = "on";

  let asking = false;
  table.catchUp = async () => {
    if (asking) return;
    asking = true;
    try {
      const r = await api(`${path}/chat?after=${box.last()}`, { token: token || null });
      box.add(r && r.messages);
    } catch {
      /* asked again when the socket opens, or on the next round while it is down */
    } finally {
      asking = false;
    }
  };
  setInterval(() => { if (!table.socketOpen) table.catchUp(); }, SOCKET_DOWN_POLL_MS);
  setTimeout(table.catchUp, CATCH_UP_AGAIN_MS); // (the first answer may precede the socket's)
}

// ------------------------------------------------------------------ the spectators' chat

/**
 * The watch page's chat among spectators, in `panel` (an empty section): read every two
 * seconds (a background tab seldom); a signed-in spectator writes (or sends quick phrases),
 * a guest is asked to log in. A player of the match in play is refused (403): the panel
 * says the server's sentence and asks again now and then (the chat opens when it is over).
 */
export async function startWatchChat(matchId, panel) {
  if (!panel) return;
  const { account, mode, mutedUntil } = await chatSetting();
  if (mode === "off") return;
  const path = `/api/matches/${encodeURIComponent(matchId)}/watch/chat`;
  const me = account ? account.username.toLowerCase() : null;
  const box = chatBox(panel, {
    title: t("Spectators' chat"),
    match: matchId,
    write: account ? mode : "guest",
    empty: t("No messages yet."),
    mine: (m) => Boolean(me && typeof m.account === "string" && m.account.toLowerCase() === me),
    send: (body) => {
      useSession(account.csrf);
      return api(path, { method: "POST", body });
    },
  });
  const muted = account && mutedLine(mutedUntil);
  if (muted) box.say(muted, "error");
  panel.hidden = false;
  document.body.classList.add("has-watch-chat");

  let first = true;
  let refused = false;
  let tries = 0;
  let timer = 0;
  let stopped = false;
  const poll = async () => {
    clearTimeout(timer);
    let wait = document.hidden ? HIDDEN_POLL_MS : WATCH_POLL_MS;
    try {
      const r = await api(`${path}?after=${box.last()}`);
      box.add(r && r.messages, { quiet: first });
      first = false;
      tries = 0;
      if (refused) {
        refused = false;
        box.say("");
        box.setWriting(true);
      }
    } catch (err) {
      if (err.status === 404) { // (only a public match has a spectators' chat)
        panel.hidden = true;
        document.body.classList.remove("has-watch-chat");
        stopped = true;
        return;
      }
      if (err.status === 403) {
        refused = true;
        box.say(err.message);
        box.setWriting(false);
        wait = REFUSED_POLL_MS;
      } else if (busy(err)) {
        wait = Math.max(wait, retryWait(err, tries++));
      } else {
        box.say(err.message, "error");
        wait = REFUSED_POLL_MS;
      }
    }
    timer = setTimeout(poll, wait);
  };
  document.addEventListener("visibilitychange", () => { if (!document.hidden && !stopped) poll(); });
  await poll();
}
