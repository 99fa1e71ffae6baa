// The Gin Rummy service worker: makes the site installable and, when a page cannot be
// reached, answers with a page that says so. The game plays on the server: no match,
// state or API answer is ever stored here, and every request goes to the network first.

const CACHE = "ginrummy-offline-1"; // a new name when offline.html changes, so browsers fetch it again
const OFFLINE_PAGE = "/static/offline.html";

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE).then((c) => c.add(new Request(OFFLINE_PAGE, { cache: "reload" }))).then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  if (event.request.mode !== "navigate") return; // the API, scripts and sockets: untouched
  event.respondWith(
    fetch(event.request).catch(async () => (await caches.match(OFFLINE_PAGE)) || Response.error()),
  );
});
