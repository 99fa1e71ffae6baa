// The account page's chat and privacy settings (issue 45, docs/web-api.md "Settings of
// the signed-in account"): chat on, quick phrases only or off; hiding one's online status;
// whose challenges to accept; the players one has blocked, each with Unblock; and, for a
// muted account, until when a moderator muted it. Names are only ever set as text.

import { api, useSession } from "./api.js";
import { el } from "./dom.js";
import { lang, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

/** When, in the page's language: a date and a time to the minute. */
export const until = (at) => new Date(at * 1000).toLocaleString(lang,
  { dateStyle: "medium", timeStyle: "short" });

function tell(text, kind = "info") {
  const m = $("settings-message");
  m.textContent = text;
  m.className = `message ${text ? kind : ""}`;
}

function showMuted(mutedUntil) {
  const note = $("muted-note");
  const on = typeof mutedUntil === "number" && mutedUntil > Date.now() / 1000;
  note.hidden = !on;
  note.textContent = on ? t("You are muted until {time}.", { time: until(mutedUntil) }) : "";
}

function fill(s) {
  for (const r of document.querySelectorAll("#settings-form input[name=chat]")) r.checked = r.value === s.chat;
  for (const r of document.querySelectorAll("#settings-form input[name=challenges]")) r.checked = r.value === s.challenges;
  $("hide-online").checked = Boolean(s.hide_online);
  showMuted(s.muted_until);
}

async function showBlocks() {
  const list = $("block-list");
  let data;
  try {
    data = await api("/api/me/blocks");
  } catch (err) {
    list.replaceChildren(el("li", { class: "message error", text: err.message }));
    return;
  }
  const blocks = data.blocks || [];
  list.replaceChildren(...blocks.map((b) => {
    const name = b.username;
    const unblock = el("button", { type: "button", class: "btn ghost small", text: t("Unblock"),
      "aria-label": t("Unblock {name}", { name }), "data-testid": "unblock" });
    unblock.addEventListener("click", async () => {
      unblock.disabled = true;
      try {
        await api(`/api/block/${encodeURIComponent(name)}`, { method: "DELETE" });
        tell(t("You unblocked {name}.", { name }));
        await showBlocks();
      } catch (err) {
        tell(err.message, "error");
        unblock.disabled = false;
      }
    });
    return el("li", { class: "friend-item", "data-testid": "blocked-player", "data-username": name },
      el("a", { href: `/player/${encodeURIComponent(name)}`, text: name }), unblock);
  }));
  $("blocks-empty").hidden = blocks.length > 0;
}

/** The settings' part of the account page, for the signed-in `account`. */
export async function privacySettings(account) {
  if (!$("settings-form")) return;
  useSession(account.csrf);
  try {
    fill(await api("/api/me/settings"));
  } catch (err) {
    tell(err.message, "error");
  }
  $("settings-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const picked = (name) => document.querySelector(`#settings-form input[name=${name}]:checked`);
    const body = { hide_online: $("hide-online").checked };
    if (picked("chat")) body.chat = picked("chat").value;
    if (picked("challenges")) body.challenges = picked("challenges").value;
    const save = $("settings-save");
    save.disabled = true;
    try {
      fill(await api("/api/me/settings", { method: "POST", body }));
      tell(t("Your settings are saved."));
    } catch (err) {
      tell(err.message, "error");
    } finally {
      save.disabled = false;
    }
  });
  await showBlocks();
}
