// The challenge page (docs/web-api.md, "Challenges"): /challenge makes one (to a player,
// from a profile's "Challenge", or an open link anyone may take), /challenge/ID shows one:
// its maker waits there (sharing the link) until it is accepted, declined or expired and
// is then taken to the table; anyone else may accept it (the challenged player may also
// decline it, with a reason).

import { api, ApiError, rememberSeat } from "./api.js";
import { durationWords } from "./dom.js";
import { t } from "./i18n.js";
import { describe, shownName } from "./notices.js";

const KEY = "ginrummy.challenges"; // challenge id -> the maker's seat token
const $ = (id) => document.getElementById(id);

function made() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}");
  } catch {
    return {};
  }
}

function remember(id, token) {
  const all = made();
  all[id] = token;
  const ids = Object.keys(all).slice(-50);
  try {
    localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(ids.map((k) => [k, all[k]]))));
  } catch {
    /* private mode: the maker's account still finds it */
  }
}

/** A request as this browser: with the session's CSRF token when signed in, or the maker's
 *  seat token for a guest's own challenge. */
async function call(account, path, method = "GET", body = undefined, token = null) {
  if (token || !account || method === "GET") return api(path, { method, body, token });
  const headers = { Accept: "application/json", "X-CSRF-Token": account.csrf };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, cache: "no-store",
    body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, (data && data.error) || t("Refused ({status}).", { status: String(res.status) }));
  return data;
}

function go(match) {
  rememberSeat({ id: match.id, token: match.token, seat: match.seat });
  location.href = match.url;
}

async function makePage(account, say) {
  $("challenge-make").hidden = false;
  const to = new URLSearchParams(location.search).get("to") || "";
  $("challenge-to").value = to;
  if (!account) {
    $("challenge-rated").disabled = true;
    $("challenge-guest").hidden = false;
  }
  $("challenge-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    say("");
    const [move, bank] = $("challenge-clock").value.split("+").map(Number);
    const body = {
      to: $("challenge-to").value.trim() || null,
      target: Number(document.querySelector("input[name=challenge-target]:checked").value),
      gin_only: $("challenge-gin-only").checked,
      oklahoma: $("challenge-oklahoma").checked,
      rated: $("challenge-rated").checked,
      clock: { move, bank },
    };
    try {
      const r = await call(account, "/api/challenges", "POST", body);
      remember(r.challenge, r.token);
      if (r.match) go(r.match); // a computer level accepts at once
      else location.href = r.url;
    } catch (err) {
      say(err.message);
    }
  });
}

async function viewPage(account, say, id) {
  const token = made()[id] || null;
  const me = account ? account.username.toLowerCase() : null;
  let c;
  try {
    c = await call(account, `/api/challenges/${encodeURIComponent(id)}`, "GET", undefined, token);
  } catch (err) {
    say(err.message);
    return;
  }
  const maker = Boolean(token) || (me !== null && c.from.toLowerCase() === me);
  const view = $("challenge-view");
  view.hidden = false;
  const render = () => {
    $("challenge-title").textContent = c.to
      ? t("{name} challenges {opponent}", { name: shownName(c.from, c.from_bot), opponent: shownName(c.to, c.to_bot) })
      : t("{name}'s open challenge", { name: shownName(c.from, c.from_bot) });
    $("challenge-detail").textContent = describe(c);
    const left = durationWords(c.expires_at - Date.now() / 1000);
    const status = {
      open: maker
        ? (c.to ? t("Waiting for {name} to answer (expires in {time})…", { name: c.to, time: left })
          : t("Waiting for someone to accept (the link works for {time})…", { time: left }))
        : t("Open: accept it to play."),
      accepted: t("Accepted: the match has started."),
      declined: t("Declined: {reason}", { reason: c.reason_text || "" }),
      cancelled: t("Cancelled by the challenger."),
      expired: t("This challenge has expired."),
    }[c.status];
    $("challenge-status").textContent = status;
    $("challenge-share").hidden = !(maker && !c.to && c.status === "open");
    $("challenge-link").textContent = `${location.origin}${c.url}`;
    $("challenge-cancel").hidden = !(maker && c.status === "open");
    $("challenge-accept").hidden = maker || c.status !== "open";
    $("challenge-decline-row").hidden = maker || c.status !== "open" || !c.to
      || me === null || c.to.toLowerCase() !== me;
  };
  render();
  $("challenge-accept").addEventListener("click", async () => {
    try {
      const r = await call(account, `/api/challenges/${encodeURIComponent(id)}/accept`, "POST", {});
      go(r.match);
    } catch (err) {
      say(err.message);
    }
  });
  $("challenge-decline").addEventListener("click", async () => {
    try {
      await call(account, `/api/challenges/${encodeURIComponent(id)}/decline`, "POST",
        { reason: $("challenge-reason").value });
      c.status = "declined";
      render();
    } catch (err) {
      say(err.message);
    }
  });
  $("challenge-cancel").addEventListener("click", async () => {
    try {
      await call(account, `/api/challenges/${encodeURIComponent(id)}`, "DELETE", undefined, token);
      c.status = "cancelled";
      render();
    } catch (err) {
      say(err.message);
    }
  });
  if (!maker) return;
  // the maker waits here: taken to the table the moment the challenge is accepted
  const check = async () => {
    try {
      c = await call(account, `/api/challenges/${encodeURIComponent(id)}`, "GET", undefined, token);
    } catch {
      return; /* a moment's failure: the next check */
    }
    render();
    if (c.status === "accepted" && c.match) go(c.match);
  };
  const loop = async () => {
    await check();
    if (c.status === "open") setTimeout(loop, 1500);
  };
  document.addEventListener("ginrummy:notices", check); // an account hears at once
  setTimeout(loop, 1500);
}

/** The challenge page: making one, or one challenge. */
export async function challengePage(account, say) {
  const id = decodeURIComponent(location.pathname.split("/")[2] || "");
  if (id) await viewPage(account, say, id);
  else await makePage(account, say);
}
