// The site's menu on a phone (static/parts/topbar.html, static/css/phone.css): the Menu
// button shows the pages as a list under the bar and hides them again. A disclosure: the
// button says whether the list is open (aria-expanded), Tab goes from it into the list,
// Escape closes the list and puts the focus back on the button, and a click or the focus
// anywhere else closes it. On a wider screen the button is not shown and the pages are
// the bar's row of links.

const button = document.getElementById("pages-menu-button");
const list = document.getElementById("pages-menu");
const bar = button && button.closest(".topbar");

const isOpen = () => bar.classList.contains("pages-open");
const shown = () => button.offsetParent !== null; // (a narrow screen: the button is there)

function setOpen(open, { focus = false } = {}) {
  bar.classList.toggle("pages-open", open);
  button.setAttribute("aria-expanded", String(open));
  if (!open && focus && shown()) button.focus();
}

if (button && list && bar) {
  button.addEventListener("click", () => setOpen(!isOpen()));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && isOpen()) {
      ev.preventDefault();
      setOpen(false, { focus: true });
    }
  });
  // a click anywhere but the list and its button closes the list
  document.addEventListener("click", (ev) => {
    if (isOpen() && !list.contains(ev.target) && !button.contains(ev.target)) setOpen(false);
  });
  // so does the focus moving on past the list (Tab out of it)
  bar.addEventListener("focusout", (ev) => {
    const to = ev.relatedTarget;
    if (isOpen() && to && !list.contains(to) && !button.contains(to)) setOpen(false);
  });
  // a page shown again by the browser's Back button starts with the list closed
  window.addEventListener("pageshow", () => setOpen(false));
}
