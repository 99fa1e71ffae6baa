// The site as an installable app: the service worker (/sw.js) that shows a page saying
// so when the site cannot be reached, and the sentence every page uses when offline. The
// game itself always plays on the server: nothing of a match is kept for offline use.

import { t } from "./i18n.js";

export const OFFLINE =
  t("You are offline. Gin Rummy plays on its server: the table comes back when your connection does.");

/** Register the service worker (where the browser has them and the page is secure). */
export function installApp() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js").catch(() => {
    /* not installable here; the site works the same */
  });
}

/** Keep `node` (a status line) saying OFFLINE while the browser is offline. */
export function watchOffline(node) {
  const sync = () => {
    node.hidden = navigator.onLine;
    node.textContent = navigator.onLine ? "" : OFFLINE;
  };
  window.addEventListener("offline", sync);
  window.addEventListener("online", sync);
  sync();
}
