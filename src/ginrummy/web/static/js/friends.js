// Friends (issue 45, docs/web-api.md "Friends, search, blocks"): the lobby's friends panel
// (the players a signed-in player follows: online or not, playing a public match to
// watch, a one-click challenge) with the player search by name prefix, and a profile's
// Follow and Block. Names and sentences from the server are only ever set as text.

import { api, rememberSeat, signedIn, useSession } from "./api.js";
import { durationWords, el } from "./dom.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const REFRESH_MS = 10000; // the friends' presence, asked again
const SEARCH_DELAY_MS = 250; // typing pauses this long before the search is asked
const CHALLENGE_CHECK_MS = 4000; // a waiting challenge, asked again (the notices tell sooner)

const profileUrl = (name) => `/player/${encodeURIComponent(name)}`;
const same = (a, b) => String(a).toLowerCase() === String(b).toLowerCase();

/** A player's presence: a dot and a word ("online", "offline", "playing"). */
export function presence(online, playing = false) {
  const state = playing ? "playing" : online ? "online" : "offline";
  const word = { playing: t("playing"), online: t("online"), offline: t("offline") }[state];
  return el("span", { class: `presence ${state}`, "data-testid": "presence", "data-state": state },
    el("span", { class: "presence-dot", "aria-hidden": "true" }), word);
}

function button(text, testid, cls = "btn small") {
  return el("button", { type: "button", class: cls, text, "data-testid": testid });
}

// ------------------------------------------------------------------ the lobby's panel

let me = null;
let following = new Set(); // lower-cased usernames this account follows
const rows = new Map(); // lower-cased username -> the friend's row
const waiting = new Map(); // lower-cased username -> {id, name, expires_at} of our challenge

/** One followed player's row: name (a BOT account's marked), presence, Watch (when
 *  playing), Challenge. */
function friendRow(name, bot) {
  const who = el("div", { class: "friend-who" },
    el("a", { href: profileUrl(name), text: bot ? `BOT ${name}` : name, "data-testid": "friend-name" }));
  const state = el("span", { class: "friend-state" });
  who.append(" ", state);
  const watch = el("a", { class: "btn ghost small", text: t("Watch"), "data-testid": "friend-watch",
    "aria-label": t("Watch {name}'s match", { name }) });
  watch.hidden = true;
  const challenge = button(t("Challenge"), "friend-challenge", "btn primary small");
  challenge.setAttribute("aria-label", t("Challenge {name}", { name }));
  const cancel = button(t("Cancel"), "friend-cancel", "btn ghost small");
  cancel.setAttribute("aria-label", t("Cancel the challenge to {name}", { name }));
  cancel.hidden = true;
  const said = el("p", { class: "friend-said", role: "status", "data-testid": "friend-said" });
  const li = el("li", { class: "friend-item", "data-testid": "friend", "data-username": name },
    who, el("div", { class: "friend-actions" }, watch, challenge, cancel), said);
  challenge.addEventListener("click", () => sendChallenge(name));
  cancel.addEventListener("click", () => cancelChallenge(name));
  return { li, state, watch, challenge, cancel, said, name };
}

function showWaiting(row) {
  const w = waiting.get(row.name.toLowerCase());
  row.challenge.hidden = Boolean(w);
  row.cancel.hidden = !w;
  if (w) {
    row.said.textContent = t("Waiting for {name} to answer (expires in {time})…",
      { name: row.name, time: durationWords(w.expires_at - Date.now() / 1000) });
  }
}

async function sendChallenge(name) {
  const row = rows.get(name.toLowerCase());
  if (!row) return;
  row.challenge.disabled = true;
  row.said.textContent = "";
  try {
    const r = await api("/api/challenges", { method: "POST", body: { to: name } });
    if (r.match) { // (a computer level accepts at once: not a followed player, but still)
      rememberSeat({ id: r.match.id, token: r.match.token, seat: r.match.seat });
      location.href = r.match.url;
      return;
    }
    waiting.set(name.toLowerCase(), { id: r.challenge, name, expires_at: r.expires_at });
    showWaiting(row);
    checkSoon();
  } catch (err) {
    row.said.textContent = err.message; // a refusal's sentence: privacy, a block, a limit
  } finally {
    row.challenge.disabled = false;
  }
}

async function cancelChallenge(name) {
  const key = name.toLowerCase();
  const w = waiting.get(key);
  const row = rows.get(key);
  if (!w) return;
  try {
    await api(`/api/challenges/${encodeURIComponent(w.id)}`, { method: "DELETE" });
    waiting.delete(key);
    if (row) {
      showWaiting(row);
      row.said.textContent = t("Cancelled by the challenger.");
    }
  } catch (err) {
    if (row) row.said.textContent = err.message;
  }
}

let checkTimer = null;

function checkSoon() {
  clearTimeout(checkTimer);
  if (waiting.size) checkTimer = setTimeout(checkWaiting, CHALLENGE_CHECK_MS);
}

/** Our waiting challenges: the table the moment one is accepted, the answer otherwise. */
async function checkWaiting() {
  for (const [key, w] of [...waiting]) {
    let c;
    try {
      c = await api(`/api/challenges/${encodeURIComponent(w.id)}`);
    } catch {
      continue; // a moment's failure: the next check
    }
    if (c.status === "open") continue;
    waiting.delete(key);
    if (c.status === "accepted" && c.match) {
      rememberSeat({ id: c.match.id, token: c.match.token, seat: c.match.seat });
      location.href = c.match.url;
      return;
    }
    const row = rows.get(key);
    if (!row) continue;
    showWaiting(row);
    row.said.textContent = {
      declined: t("Declined: {reason}", { reason: c.reason_text || "" }),
      cancelled: t("Cancelled by the challenger."),
      expired: t("This challenge has expired."),
    }[c.status] || "";
  }
  for (const row of rows.values()) if (waiting.has(row.name.toLowerCase())) showWaiting(row);
  checkSoon();
}

function order(f) { // playing first, then online, then the rest; by name within each
  return f.playing ? 0 : f.online ? 1 : 2;
}

async function refreshFriends() {
  let data;
  try {
    data = await api("/api/me/following");
  } catch (err) {
    $("friends-message").textContent = err.message;
    return;
  }
  $("friends-message").textContent = "";
  const list = $("friends-list");
  const friends = [...(data.following || [])].sort((a, b) =>
    order(a) - order(b) || a.username.localeCompare(b.username));
  following = new Set(friends.map((f) => f.username.toLowerCase()));
  for (const [key, row] of rows) {
    if (!following.has(key)) {
      row.li.remove();
      rows.delete(key);
    }
  }
  friends.forEach((f, i) => {
    const key = f.username.toLowerCase();
    let row = rows.get(key);
    if (!row) {
      row = friendRow(f.username, Boolean(f.bot));
      rows.set(key, row);
    }
    row.state.replaceChildren(presence(f.online, Boolean(f.playing)));
    row.watch.hidden = !f.playing;
    if (f.playing) row.watch.href = `/watch/${encodeURIComponent(f.playing)}`;
    row.li.dataset.state = f.playing ? "playing" : f.online ? "online" : "offline";
    showWaiting(row);
    // in order, moving only what is out of place (a moved button would lose the focus)
    if (list.children[i] !== row.li) list.insertBefore(row.li, list.children[i] || null);
  });
  $("friends-empty").hidden = friends.length > 0;
  syncResults();
}

// ------------------------------------------------------------------ player search

let asked = 0; // the latest search's number: an older answer arriving late is dropped
let searchTimer = null;

/** The search's Follow buttons as the friends list now says. */
function syncResults() {
  for (const b of document.querySelectorAll("#player-results [data-follow]")) {
    followLabel(b, following.has(b.dataset.follow.toLowerCase()));
  }
}

function followLabel(b, on) {
  const name = b.dataset.follow;
  b.textContent = on ? t("Unfollow") : t("Follow");
  b.setAttribute("aria-label", on ? t("Unfollow {name}", { name }) : t("Follow {name}", { name }));
  b.dataset.following = String(on);
}

function resultRow(p) {
  const li = el("li", { class: "friend-item", "data-testid": "player-result", "data-username": p.username },
    el("div", { class: "friend-who" },
      el("a", { href: profileUrl(p.username), text: p.username, "data-testid": "result-name" }), " ",
      el("span", { class: "friend-rating", text: t("Rating {rating}", { rating: Math.round(p.rating) }) }), " ",
      presence(p.online)));
  if (!same(p.username, me.username)) {
    const said = el("p", { class: "friend-said", role: "status" });
    const b = button("", "result-follow", "btn small");
    b.dataset.follow = p.username;
    followLabel(b, following.has(p.username.toLowerCase()));
    b.addEventListener("click", async () => {
      const on = b.dataset.following !== "true";
      b.disabled = true;
      said.textContent = "";
      try {
        await api(`/api/follow/${encodeURIComponent(p.username)}`, { method: on ? "POST" : "DELETE" });
        followLabel(b, on);
        await refreshFriends();
      } catch (err) {
        said.textContent = err.message;
      } finally {
        b.disabled = false;
      }
    });
    li.append(el("div", { class: "friend-actions" }, b), said);
  }
  return li;
}

async function search() {
  const prefix = $("player-search").value.trim();
  const out = $("player-results");
  const n = ++asked;
  if (!prefix) {
    out.replaceChildren();
    $("search-message").textContent = "";
    return;
  }
  let data;
  try {
    data = await api(`/api/players?search=${encodeURIComponent(prefix)}`);
  } catch (err) {
    if (n === asked) $("search-message").textContent = err.message;
    return;
  }
  if (n !== asked) return;
  const players = data.players || [];
  out.replaceChildren(...players.map(resultRow));
  $("search-message").textContent = players.length ? ""
    : t("No player's name starts with “{prefix}”.", { prefix });
}

/** The lobby's friends panel (index.html): a guest is invited to log in. */
export async function friendsPanel() {
  if (!$("friends-panel")) return;
  me = await signedIn();
  $("friends-guest").hidden = Boolean(me);
  $("friends-in").hidden = !me;
  if (!me) return;
  useSession(me.csrf);
  $("player-search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(search, SEARCH_DELAY_MS);
  });
  $("player-search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    clearTimeout(searchTimer);
    search();
  });
  document.addEventListener("ginrummy:notices", () => { if (waiting.size) checkWaiting(); });
  await refreshFriends();
  setInterval(() => { if (!document.hidden) refreshFriends(); }, REFRESH_MS);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refreshFriends(); });
}

// ------------------------------------------------------------------ a profile

/**
 * A profile's presence line and, for a signed-in viewer on someone else's profile, its
 * Follow/Unfollow and Block/Unblock (blocking asks first). `p` is GET /api/players/NAME.
 */
export async function profileActions(p, account, actions) {
  const line = el("p", { class: "player-presence", "data-testid": "player-presence" }, presence(p.online));
  const rating = $("player-rating");
  (rating || actions).after(line);
  if (!account || same(account.username, p.username)) return;
  useSession(account.csrf);
  const name = p.username;
  const follow = button("", "follow-button", "btn small");
  const block = button("", "block-button", "btn ghost small");
  const said = el("p", { class: "message", role: "status", "aria-live": "polite", "data-testid": "people-message" });
  let state = { following: Boolean(p.following), blocked: Boolean(p.blocked) };
  const show = () => {
    follow.textContent = state.following ? t("Unfollow") : t("Follow");
    follow.setAttribute("aria-label", state.following ? t("Unfollow {name}", { name }) : t("Follow {name}", { name }));
    block.textContent = state.blocked ? t("Unblock") : t("Block");
    block.setAttribute("aria-label", state.blocked ? t("Unblock {name}", { name }) : t("Block {name}", { name }));
    follow.hidden = state.blocked; // (a blocked player is not followed)
  };
  const tell = (text, kind = "info") => {
    said.textContent = text;
    said.className = `message ${text ? kind : ""}`;
  };
  /** The profile again: what following and blocking are now. */
  const reload = async () => {
    const q = await api(`/api/players/${encodeURIComponent(name)}`).catch(() => null);
    if (q) state = { following: Boolean(q.following), blocked: Boolean(q.blocked) };
    show();
  };
  follow.addEventListener("click", async () => {
    const on = !state.following;
    follow.disabled = true;
    try {
      await api(`/api/follow/${encodeURIComponent(name)}`, { method: on ? "POST" : "DELETE" });
      state.following = on;
      show();
      tell(on ? t("You follow {name}: they are in your friends in the lobby.", { name })
        : t("You no longer follow {name}.", { name }));
    } catch (err) {
      tell(err.message, "error");
    } finally {
      follow.disabled = false;
    }
  });
  block.addEventListener("click", async () => {
    const on = !state.blocked;
    if (on && !confirm(t("Block {name}? They can no longer challenge you, chat with you, follow you or be paired with you. They are not told.", { name }))) return;
    block.disabled = true;
    try {
      await api(`/api/block/${encodeURIComponent(name)}`, { method: on ? "POST" : "DELETE" });
      await reload();
      tell(on ? t("You blocked {name}.", { name }) : t("You unblocked {name}.", { name }));
    } catch (err) {
      tell(err.message, "error");
    } finally {
      block.disabled = false;
    }
  });
  show();
  actions.append(" ", follow, " ", block);
  actions.after(said);
}

friendsPanel();
