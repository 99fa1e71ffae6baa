// Talking to the table's server: the JSON API for moves, a WebSocket for live STATE, and
// polling while the socket is down. Every STATE that arrives goes to one callback.
//
// The socket is watched both ways: the page pings every PING_MS with the version it shows
// (the server sends the state if the page is behind), the server beats while nothing
// happens (with the table's version: a page behind asks for the state), and a socket that
// brings nothing for SILENT_MS is taken for dead and reopened. While the server's database
// is away the STATE says so (`paused`): the page shows that moves are paused, and clears
// it when a state without it arrives.

import { api, retryWait } from "./api.js";
import { t } from "./i18n.js";
import { base, store } from "./state.js";

const PING_MS = 10000;
const SILENT_MS = 35000;

let onState = () => {};
let onError = () => {};
let onStatus = () => {};
let ws = null;
let backoff = 500;
let pollTimer = 0;
let reconnectTimer = 0;
let pingTimer = 0;
let lastHeard = 0;
let pausedShown = false;

/** Hook the controller in: new STATE, a refusal sentence, a connection line (or ""). */
export function setHandlers(handlers) {
  ({ onState, onError, onStatus } = handlers);
}

let socketHooks = { message: () => {}, opened: () => {}, closed: () => {} };

/** Hook in what else the socket brings (the table's chat, chat.js): every message that is
 *  not about the table's state, and each time the socket opens and closes. */
export function setSocketHooks(hooks) {
  socketHooks = { ...socketHooks, ...hooks };
}

/** Hand a STATE to the controller, showing or clearing "moves are paused". */
function gotState(state) {
  if (state && state.paused) {
    onStatus(state.paused);
    pausedShown = true;
  } else if (pausedShown) {
    pausedShown = false;
    onStatus(ws && ws.readyState === WebSocket.OPEN ? "" : RECONNECTING);
  }
  onState(state);
}

const RECONNECTING = t("Live connection lost: reconnecting… (the table still updates every few seconds)");

/** Fetch the seat's STATE once; on a bad link, hands the server's sentence (and its
 *  status) to `fatal`. A busy site (a rate limit, 429) never loses the seat: the page
 *  says so and asks again (the socket, when open, keeps the table live meanwhile). */
export async function refresh(fatal) {
  try {
    gotState(await api(base(), { token: store.token }));
  } catch (e) {
    if ([401, 403, 404].includes(e.status) && fatal) fatal(e.message, e.status);
    else if (e.status === 429) {
      onStatus(t("The site is busy (too many requests from your address): trying again…"));
      if (!store.S || !ws) {
        clearTimeout(busyTimer);
        busyTimer = setTimeout(() => refresh(fatal), retryWait(e, busyTries++));
      }
    } else onStatus(t("The table cannot be reached: reconnecting…"));
    return;
  }
  if (busyTries) onStatus(ws && ws.readyState === WebSocket.OPEN ? "" : RECONNECTING);
  busyTries = 0;
}

let busyTimer = 0;
let busyTries = 0;

function startPolling() {
  if (!pollTimer) pollTimer = setInterval(() => refresh(), 2500);
}

export function stopPolling() {
  clearInterval(pollTimer);
  pollTimer = 0;
}

/** Open the live connection (and keep reopening it with a growing pause). */
export function connect(fatal) {
  if (store.fatal) return;
  clearTimeout(reconnectTimer);
  const proto = location.protocol === "https:" ? "wss" : "ws";
  // The token goes in the socket's first message, not in the URL (which logs record).
  const url = `${proto}://${location.host}${base()}/ws`;
  let socket;
  try {
    socket = new WebSocket(url);
  } catch {
    scheduleReconnect(fatal);
    return;
  }
  ws = socket;
  socket.onopen = () => {
    socket.send(JSON.stringify(store.token ? { type: "auth", token: store.token } : { type: "auth", session: true }));
    backoff = 500;
    stopPolling();
    if (!pausedShown) onStatus("");
    lastHeard = Date.now();
    clearInterval(pingTimer);
    pingTimer = setInterval(() => watch(socket, fatal), PING_MS);
    socketHooks.opened();
  };
  socket.onmessage = (ev) => {
    lastHeard = Date.now();
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    if (msg.type === "state") gotState(msg.state);
    else if (msg.type === "beat") {
      // the table is at a version this page has not shown: ask for it
      if (store.S && typeof msg.version === "number" && msg.version > store.S.version) {
        socket.send(JSON.stringify({ type: "state" }));
      }
    } else if (msg.type === "error") {
      onError(msg.message || t("That was refused."));
      if (msg.status === 409) refresh(fatal);
    } else socketHooks.message(msg);
  };
  socket.onclose = (ev) => {
    if (ws !== socket) return;
    ws = null;
    clearInterval(pingTimer);
    socketHooks.closed();
    if ([1008, 4401, 4403, 4404].includes(ev.code)) {
      refresh(fatal); // the GET says exactly what is wrong with the link
      return;
    }
    scheduleReconnect(fatal);
  };
}

/** Every PING_MS: ping with the version shown, or drop a socket that went silent. */
function watch(socket, fatal) {
  if (ws !== socket) return;
  if (Date.now() - lastHeard > SILENT_MS) {
    ws = null; // taken for dead: reopen (its close event, if any, is ignored)
    clearInterval(pingTimer);
    socketHooks.closed();
    try {
      socket.close();
    } catch {
      /* already gone */
    }
    scheduleReconnect(fatal);
    return;
  }
  try {
    socket.send(JSON.stringify({ type: "ping", version: store.S ? store.S.version : -1 }));
  } catch {
    /* the close event follows */
  }
}

function scheduleReconnect(fatal) {
  if (store.fatal) return;
  if (!pausedShown) onStatus(RECONNECTING);
  startPolling();
  refresh(fatal);
  const wait = backoff + Math.random() * 250;
  backoff = Math.min(backoff * 2, 15000);
  reconnectTimer = setTimeout(() => connect(fatal), wait);
}

/** POST a change based on the current version; the answer is the new STATE. */
export async function post(path, body) {
  if (store.busy || !store.S) return false;
  store.busy = true;
  document.body.classList.add("busy");
  try {
    gotState(await api(path, { method: "POST", token: store.token, body: { ...body, version: store.S.version } }));
    return true;
  } catch (e) {
    onError(e.message);
    if (e.status === 409 || e.status === 0) refresh();
    return false;
  } finally {
    store.busy = false;
    document.body.classList.remove("busy");
  }
}

export const sendAction = (action) => post(`${base()}/actions`, { action });
export const sendNext = () => post(`${base()}/next`, {});

/** Where a finished match stands on a rematch: {offered_by, accepted}. */
export const rematchStatus = () => api(`${base()}/rematch`, { token: store.token });

/** Ask for (or accept) a rematch: the caller's seat in the new match. */
export const askRematch = () => api(`${base()}/rematch`, { method: "POST", token: store.token, body: {} });

/** Take the friend's seat with the invitation code, under a name. */
export const joinWithCode = (name) =>
  api(`${base()}/join`, { method: "POST", body: { invite: store.inviteCode, name } });
