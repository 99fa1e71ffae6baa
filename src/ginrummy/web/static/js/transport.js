// Talking to the table's server: the JSON API for moves, a WebSocket for live STATE, and
// polling while the socket is down. Every STATE that arrives goes to one callback.

import { api } from "./api.js";
import { base, store } from "./state.js";

let onState = () => {};
let onError = () => {};
let onStatus = () => {};
let ws = null;
let backoff = 500;
let pollTimer = 0;
let reconnectTimer = 0;

/** Hook the controller in: new STATE, a refusal sentence, a connection line (or ""). */
export function setHandlers(handlers) {
  ({ onState, onError, onStatus } = handlers);
}

/** Fetch the seat's STATE once; on a bad link, hands the server's sentence to `fatal`. */
export async function refresh(fatal) {
  try {
    onState(await api(base(), { token: store.token }));
  } catch (e) {
    if ([401, 403, 404].includes(e.status) && fatal) fatal(e.message);
    else onStatus("The table cannot be reached. Retrying…");
  }
}

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
    socket.send(JSON.stringify({ type: "auth", token: store.token }));
    backoff = 500;
    stopPolling();
    onStatus("");
  };
  socket.onmessage = (ev) => {
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    if (msg.type === "state") onState(msg.state);
    else if (msg.type === "error") {
      onError(msg.message || "That was refused.");
      if (msg.status === 409) refresh(fatal);
    }
  };
  socket.onclose = (ev) => {
    if (ws !== socket) return;
    ws = null;
    if ([1008, 4401, 4403, 4404].includes(ev.code)) {
      refresh(fatal); // the GET says exactly what is wrong with the link
      return;
    }
    scheduleReconnect(fatal);
  };
}

function scheduleReconnect(fatal) {
  if (store.fatal) return;
  onStatus("Live connection lost: reconnecting… (the table still updates every few seconds)");
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
    onState(await api(path, { method: "POST", token: store.token, body: { ...body, version: store.S.version } }));
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
