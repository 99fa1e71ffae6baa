// Talking to the server (docs/web-api.md) and remembering this browser's seats.

import { t } from "./i18n.js";

const STORE_KEY = "ginrummy.seats";

/** An error from the server, carrying its HTTP status, the sentence for the player and,
 *  for a refusal by a rate limit (429), the seconds its Retry-After asks to wait. */
export class ApiError extends Error {
  constructor(status, message, retryAfter = null) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/** Whether a refusal is the site being busy or away (a rate limit, a server error, no
 *  connection), not an answer about the request: worth asking again after a wait. */
export const busy = (e) => e instanceof ApiError && (e.status === 0 || e.status === 429 || e.status >= 500);

/** The wait before the next try: the server's Retry-After, else 1, 2, 4 .. 30 s. */
export const retryWait = (e, attempt) =>
  1000 * Math.min(30, Math.max(1, (e && e.retryAfter) || 2 ** attempt));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let sessionCsrf = ""; // set when a table is played through the account's session

/** Play the table through the logged-in account (no seat link in this browser): its
 *  changes carry the session's CSRF token. */
export function useSession(csrf) {
  sessionCsrf = csrf || "";
}

let session = null; // the answer, asked once per page (the top bar and the page share it)

/**
 * The logged-in account ({username, rating, deviation, ..., csrf}), or null for a guest:
 * asked of `GET /api/session`, which answers a guest with 200 and `{"account": null}`, so
 * a guest's pages log no refused request. A busy site (the address's allowance of reads
 * spent, a server error, no connection) is no answer: it is asked again after a growing
 * wait, so a signed-in player is never taken for a guest because of a limit.
 */
export function signedIn() {
  if (!session) session = askSession();
  return session;
}

async function askSession() {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const r = await api("/api/session");
      return r && r.account ? r.account : null;
    } catch (e) {
      if (!busy(e)) return null;
      await sleep(retryWait(e, attempt));
    }
  }
}

/** Call the JSON API; throws ApiError with the server's sentence on refusal. */
export async function api(path, { method = "GET", token = null, body = undefined } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  else if (sessionCsrf && method !== "GET") headers["X-CSRF-Token"] = sessionCsrf;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, t("The table cannot be reached. Check your connection."));
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const wait = Number(res.headers.get("Retry-After"));
    throw new ApiError(res.status, messageOf(data) || defaultMessage(res.status),
      Number.isFinite(wait) && wait > 0 ? wait : null);
  }
  return data;
}

function messageOf(data) {
  if (!data) return "";
  if (typeof data.error === "string") return data.error;
  if (data.error && typeof data.error.message === "string") return data.error.message;
  if (typeof data.message === "string") return data.message;
  if (typeof data.detail === "string") return data.detail;
  return "";
}

function defaultMessage(status) {
  switch (status) {
    case 400: return t("That is not allowed.");
    case 401: return t("This link has no seat token.");
    case 403: return t("This link's seat token is not valid for this match.");
    case 404: return t("There is no such match.");
    case 409: return t("The table moved on; showing the latest position.");
    case 413: return t("That request is too large.");
    case 429: return t("The site is busy: wait a moment and try again.");
    default: return t("The server refused the request ({status}).", { status: String(status) });
  }
}

/** Every seat this browser holds: [{id, token, seat, invite_url?, created}] (newest first). */
export function loadSeats() {
  try {
    const list = JSON.parse(localStorage.getItem(STORE_KEY) || "[]");
    return Array.isArray(list) ? list.filter((s) => s && s.id && s.token) : [];
  } catch {
    return [];
  }
}

/** Remember (or refresh) one seat; keeps at most 200. */
export function rememberSeat(entry) {
  const seats = loadSeats().filter((s) => s.token !== entry.token);
  const old = loadSeats().find((s) => s.token === entry.token) || {};
  seats.unshift({ ...old, ...entry, created: old.created || Date.now() });
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(seats.slice(0, 200)));
  } catch {
    /* private mode: the list simply is not kept */
  }
}

/** Forget one seat (the lobby's remove button). */
export function forgetSeat(token) {
  const seats = loadSeats().filter((s) => s.token !== token);
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify(seats));
  } catch {
    /* ignore */
  }
}

const arenaKey = (matchId) => `ginrummy.arena.${matchId}`;

/** Remember that match `matchId` is a match of the arena at `arenaUrl` (/tournament/ID):
 *  its table's end leads back there and on to the arena's next pairing. */
export function rememberArena(matchId, arenaUrl) {
  try {
    localStorage.setItem(arenaKey(matchId), arenaUrl);
  } catch {
    /* private mode: the table asks the arenas at the end instead */
  }
}

/** The arena a match of this browser's player is in (its page's address), if known. */
export function knownArena(matchId) {
  try {
    return localStorage.getItem(arenaKey(matchId));
  } catch {
    return null;
  }
}

/** The table link of a seat: the token lives in the fragment, never in path or query. */
export function playUrl(id, token) {
  return `/play/${encodeURIComponent(id)}#token=${encodeURIComponent(token)}`;
}

/**
 * Download what the server sends at `path`, byte for byte (its Content-Disposition names
 * the file; `fallback` otherwise). Throws ApiError with the server's sentence on refusal.
 */
export async function downloadFile(path, fallback, token = null) {
  let res;
  try {
    // a private match's record is its players' until it is over: send the seat's token
    // (a session-played seat sends its cookie, as every same-origin fetch does)
    res = await fetch(path, { cache: "no-store", headers: token ? { Authorization: `Bearer ${token}` } : {} });
  } catch {
    throw new ApiError(0, t("The table cannot be reached. Check your connection."));
  }
  if (!res.ok) {
    let data = null;
    try {
      data = await res.json();
    } catch {
      data = null;
    }
    throw new ApiError(res.status, messageOf(data) || defaultMessage(res.status));
  }
  const named = /filename="([^"]+)"/.exec(res.headers.get("Content-Disposition") || "");
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = named ? named[1] : fallback;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
