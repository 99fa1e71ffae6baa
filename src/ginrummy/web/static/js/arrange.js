// Arranging one's own hand by drag and drop (mouse, pen and touch, via pointer events)
// and by keyboard (Shift+arrows). A drop saves the new order (state.js), which survives
// reloads; a press without movement stays a click (discard).

const THRESHOLD = 6; // px of movement before a press becomes a drag

let drag = null;

/** The hand's cards in screen order. */
const cardsIn = (container) => [...container.querySelectorAll("button[data-card]")];

/** Where a card dropped at (x, y) goes among the other cards: an index into them. */
function dropIndex(others, x, y) {
  let idx = 0;
  for (let i = 0; i < others.length; i++) {
    const r = others[i].getBoundingClientRect();
    const cy = r.top + r.height / 2;
    const sameRow = Math.abs(y - cy) < r.height / 2;
    const before = sameRow ? x > r.left + r.width / 2 : y > cy;
    if (before) idx = i + 1;
  }
  return idx;
}

function marker(container) {
  let m = container.querySelector(".drop-marker");
  if (!m) {
    m = document.createElement("div");
    m.className = "drop-marker";
    m.setAttribute("aria-hidden", "true");
    container.append(m);
  }
  return m;
}

function placeMarker(container, others, idx) {
  const m = marker(container);
  const box = container.getBoundingClientRect();
  const ref = others[Math.min(idx, others.length - 1)];
  if (!ref) return;
  const r = ref.getBoundingClientRect();
  const x = idx >= others.length ? r.right + 3 : r.left - 3;
  m.style.left = `${x - box.left}px`;
  m.style.top = `${r.top - box.top}px`;
  m.style.height = `${r.height}px`;
  m.hidden = false;
}

/**
 * Make the cards in `container` draggable. `onDrop(codes)` gets the new order of every
 * card code; `wasDragged()` tells a click handler to ignore the click that ends a drag.
 */
export function enableArranging(container, onDrop) {
  container.addEventListener("pointerdown", (ev) => {
    const card = ev.target.closest("button[data-card]");
    if (!card || !container.contains(card) || ev.button > 0) return;
    drag = { card, id: ev.pointerId, x0: ev.clientX, y0: ev.clientY, active: false, moved: false };
  });
  container.addEventListener("pointermove", (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    const dx = ev.clientX - drag.x0;
    const dy = ev.clientY - drag.y0;
    if (!drag.active) {
      if (Math.hypot(dx, dy) < THRESHOLD) return;
      drag.active = true;
      drag.moved = true;
      try {
        drag.card.setPointerCapture(ev.pointerId);
      } catch {
        /* synthetic events have no capture */
      }
      drag.card.classList.add("dragging");
      document.body.classList.add("arranging");
    }
    ev.preventDefault();
    drag.card.style.transform = `translate(${dx}px, ${dy}px)`;
    const others = cardsIn(container).filter((c) => c !== drag.card);
    drag.idx = dropIndex(others, ev.clientX, ev.clientY);
    placeMarker(container, others, drag.idx);
  });
  const finish = (ev, cancelled) => {
    if (!drag || ev.pointerId !== drag.id) return;
    const d = drag;
    if (!d.active) {
      drag = null;
      return;
    }
    d.card.classList.remove("dragging");
    d.card.style.transform = "";
    document.body.classList.remove("arranging");
    const m = container.querySelector(".drop-marker");
    if (m) m.hidden = true;
    // The click that follows this pointerup must not discard the card.
    drag = { ...d, active: false, swallow: true };
    setTimeout(() => {
      if (drag && drag.swallow) drag = null;
    }, 0);
    if (cancelled || d.idx === undefined) return;
    const order = cardsIn(container).map((c) => c.dataset.card).filter((c) => c !== d.card.dataset.card);
    order.splice(d.idx, 0, d.card.dataset.card);
    onDrop(order);
  };
  container.addEventListener("pointerup", (ev) => finish(ev, false));
  container.addEventListener("pointercancel", (ev) => finish(ev, true));
  container.addEventListener(
    "click",
    (ev) => {
      if (drag && drag.swallow) {
        ev.stopPropagation();
        ev.preventDefault();
        drag = null;
      }
    },
    true,
  );
}

/** Keyboard arranging: move the card `code` one place left (-1) or right (+1). */
export function nudge(container, code, step) {
  const order = cardsIn(container).map((c) => c.dataset.card);
  const i = order.indexOf(code);
  const j = i + step;
  if (i < 0 || j < 0 || j >= order.length) return null;
  order.splice(i, 1);
  order.splice(j, 0, code);
  return order;
}
