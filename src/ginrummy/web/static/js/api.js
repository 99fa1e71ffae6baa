// Talking to the server (docs/web-api.md) and remembering this browser's seats.

const STORE_KEY = "ginrummy.seats";

/** An error from the server, carrying its HTTP status and the sentence for the player. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

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
 * a guest's pages log no refused request.
 */
export function signedIn() {
  if (!session) {
    session = api("/api/session").then((r) => (r && r.account ? r.account : null), () => null);
  }
  return session;
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
    throw new ApiError(0, "The table cannot be reached. Check your connection.");
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    throw new ApiError(res.status, messageOf(data) || defaultMessage(res.status));
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
  return (
    {
      400: "That is not allowed.",
      401: "This link has no seat token.",
      403: "This link's seat token is not valid for this match.",
      404: "There is no such match.",
      409: "The table moved on; showing the latest position.",
      413: "That request is too large.",
    }[status] || `The server refused the request (${status}).`
  );
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
    throw new ApiError(0, "The table cannot be reached. Check your connection.");
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
