// The browser's sentences in the page's language (docs/translating.md). Each page is sent
// with its language's translations in a JSON block (id "i18n"); every sentence a script
// shows goes through t() or tn(), written in English with {placeholders}:
//   t("{name} takes {card}.", { name, card })
//   tn("{n} match", "{n} matches", n)
// scripts/i18n.py extracts them into the catalogs. A sentence not translated yet shows in
// English. The language picker (in every page's bar) sets the language and reloads.

const data = (() => {
  try {
    return JSON.parse(document.getElementById("i18n")?.textContent || "{}");
  } catch {
    return {};
  }
})();

/** The page's language (a BCP 47 tag: "en", "es", "pt-BR", ...). */
export const lang = data.lang || document.documentElement.lang || "en";
const messages = data.messages || {};

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{([a-z_][a-z0-9_]*)\}/g, (m, name) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : m);
}

/** `message` in the page's language, its {placeholders} filled from `params`. */
export function t(message, params) {
  const found = messages[message];
  return fill(typeof found === "string" && found ? found : message, params);
}

/** The form of `one`/`many` for `n` in the page's language ({n} and `params` filled). */
export function tn(one, many, n, params) {
  const forms = messages[one];
  const singular = data.plural === "zero-one" ? n === 0 || n === 1 : n === 1;
  let text = singular ? one : many;
  if (Array.isArray(forms) && forms.length) text = forms[singular ? 0 : Math.min(1, forms.length - 1)];
  return fill(text, { n: number(n), ...(params || {}) });
}

/** A number written as the page's language writes it (1,234.5 / 1.234,5). */
export function number(x, options) {
  return new Intl.NumberFormat(lang, options).format(x);
}

/** Choose a language: kept in a cookie for a year (and in the account, by the server, for
 *  one that is signed in), then the page is shown again in it. */
async function choose(code) {
  document.cookie = `gr_lang=${encodeURIComponent(code)}; Max-Age=31536000; Path=/; SameSite=Lax`;
  try {
    await fetch("/api/me/language", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ lang: code }),
    });
  } catch {
    /* the cookie alone is enough for this browser */
  }
  location.reload();
}

for (const picker of document.querySelectorAll("select.lang-select")) {
  picker.addEventListener("change", () => choose(picker.value));
}
