// Draws the server's game view onto the heart skeleton that the page template lays out
// (25 places placed by the layout's geometry, plus the stock and the waste). It renders only
// what the server sends — free, outlined, dimmed, selected — and never applies a rule itself.

import { cardLabel, spokenRank, t } from "./i18n.js";

const STATE_CLASSES = ["free", "covered", "outlined", "dimmed", "selected"];

function setCard(el, view, interactive) {
  const empty = view === null;
  el.classList.toggle("empty", empty);
  if (interactive) el.disabled = empty;
  // an emptied place is no control at all (it is hidden, and fades out)
  if (empty) el.setAttribute("aria-hidden", "true");
  else el.removeAttribute("aria-hidden");
  if (empty) {
    el.removeAttribute("aria-label");
    for (const name of STATE_CLASSES) el.classList.remove(name);
    if (interactive) el.setAttribute("aria-pressed", "false");
    return;
  }
  el.querySelector(".rank").textContent = view.rank;
  el.classList.toggle("free", view.free !== false);
  el.classList.toggle("covered", view.free === false);
  el.classList.toggle("outlined", Boolean(view.outlined));
  el.classList.toggle("dimmed", Boolean(view.dimmed));
  el.classList.toggle("selected", Boolean(view.selected));
  el.dataset.rank = view.rank;
  if (interactive) el.setAttribute("aria-pressed", view.selected ? "true" : "false");
}

export class Board {
  /**
   * @param {HTMLElement} root the element holding [data-heart]
   * @param {object} options
   * @param {boolean} options.interactive whether cards are buttons that send taps
   * @param {(target: number|string) => void} [options.onTap]
   */
  constructor(root, { interactive, onTap = () => {} }) {
    this.interactive = interactive;
    this.slots = new Map();
    for (const el of root.querySelectorAll("[data-pos]")) this.slots.set(Number(el.dataset.pos), el);
    this.stock = root.querySelector('[data-pile="stock"]');
    this.waste = root.querySelector('[data-pile="waste"]');
    this.wasteCount = root.querySelector("[data-waste-count]");
    this.lastWaste = null;
    this.current = null;
    if (interactive) {
      // the keyboard focus ring of a covered card: drawn above the cards that lie on it (the
      // card itself stays under them, where it really is)
      this.ring = document.createElement("span");
      this.ring.className = "focus-ring";
      this.ring.hidden = true;
      this.ring.setAttribute("aria-hidden", "true");
      root.querySelector("[data-heart]").append(this.ring);
      root.addEventListener("focusout", () => {
        this.ring.hidden = true;
      });
      root.addEventListener("click", (event) => {
        const el = event.target.closest("[data-pos], [data-pile]");
        if (!el || el.disabled) return;
        this.setCurrent(el);
        onTap(el.dataset.pos ? Number(el.dataset.pos) : el.dataset.pile);
      });
      root.addEventListener("keydown", (event) => this.onKey(event));
      root.addEventListener("focusin", (event) => {
        const el = event.target.closest("[data-pos], [data-pile]");
        if (el) this.setCurrent(el);
        this.placeRing();
      });
    }
  }

  render(game) {
    game.heart.forEach((view, i) => {
      const el = this.slots.get(i + 1);
      setCard(el, view, this.interactive);
      if (view) el.setAttribute("aria-label", cardLabel(view));
    });
    this.renderStock(game);
    this.renderWaste(game);
    if (this.interactive) {
      this.fixRovingFocus();
      this.placeRing();
    }
  }

  /** Show the ring over the focused card when it is covered and focused from the keyboard. */
  placeRing() {
    const el = document.activeElement;
    const show =
      el && el.dataset && el.dataset.pos && el.classList.contains("covered") && el.matches(":focus-visible");
    this.ring.hidden = !show;
    if (!show) return;
    this.ring.style.setProperty("--x2", el.style.getPropertyValue("--x2"));
    this.ring.style.setProperty("--row", el.style.getPropertyValue("--row"));
  }

  renderStock(game) {
    const n = game.stock_count;
    this.stock.classList.toggle("empty-pile", n === 0);
    this.stock.querySelector("[data-count]").textContent = String(n);
    this.stock.dataset.count = String(n);
    // placement help: with no pair to take, turning up a card is the move to make
    const hint = Boolean(game.stock_outlined);
    this.stock.classList.toggle("outlined", hint);
    let label;
    if (n === 0) label = t("pile.stock_empty");
    else label = t("pile.stock", { n });
    if (hint) label = `${label}, ${t("pile.stock_hint")}`;
    this.stock.setAttribute("aria-label", label);
    if (this.interactive) this.stock.disabled = false;
  }

  renderWaste(game) {
    const top = game.waste_top;
    const el = this.waste;
    // a card-view-shaped object: the waste top is always free to take
    setCard(el, top ? { ...top, free: true } : null, this.interactive);
    this.wasteCount.textContent = game.waste_count > 1 ? String(game.waste_count) : "";
    el.dataset.count = String(game.waste_count);
    if (this.interactive) el.disabled = top === null;
    let label = t("pile.waste_empty");
    if (top) {
      const parts = [spokenRank(top.rank)];
      if (top.selected) parts.push(t("card.selected"));
      if (top.outlined) parts.push(t("card.suggested"));
      if (top.dimmed) parts.push(t("card.dimmed"));
      label = t("pile.waste", { card: parts.join(", ") });
    }
    el.setAttribute("aria-label", label);
    const key = `${game.waste_count}:${top ? top.card : ""}`;
    if (this.lastWaste !== null && top && game.waste_count > Number(this.lastWaste.split(":")[0])) {
      el.classList.remove("flipped");
      void el.offsetWidth; // restart the animation
      el.classList.add("flipped");
    }
    this.lastWaste = key;
  }

  // ---- keyboard: one tab stop for the whole table, arrows move between cards ----

  items() {
    return [...this.slots.values(), this.stock, this.waste].filter((el) => !el.disabled);
  }

  setCurrent(el) {
    if (this.current === el) return;
    if (this.current) this.current.tabIndex = -1;
    this.current = el;
    el.tabIndex = 0;
  }

  fixRovingFocus() {
    const items = this.items();
    for (const el of items) if (el !== this.current) el.tabIndex = -1;
    if (this.current && !this.current.disabled) return;
    const hadFocus = this.current && this.current === document.activeElement;
    const free = items.find((el) => el.classList.contains("free") && el.dataset.pos);
    const next = free || this.stock;
    if (this.current) this.current.tabIndex = -1;
    this.current = null;
    this.setCurrent(next);
    if (hadFocus || document.activeElement === document.body) {
      if (hadFocus) next.focus({ preventScroll: true });
    }
  }

  onKey(event) {
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    const dir = moves[event.key];
    const from = event.target.closest("[data-pos], [data-pile]");
    if (!dir || !from) return;
    event.preventDefault();
    const next = this.neighbour(from, dir);
    if (next) {
      this.setCurrent(next);
      next.focus();
    }
  }

  neighbour(from, [dx, dy]) {
    const at = (el) => [Number(el.dataset.x2), Number(el.dataset.row)];
    const [x0, y0] = at(from);
    let best = null;
    let bestScore = Infinity;
    for (const el of this.items()) {
      if (el === from) continue;
      const [x, y] = at(el);
      let score;
      if (dx !== 0) {
        if (Math.abs(y - y0) >= 0.75 || Math.sign(x - x0) !== dx) continue;
        score = Math.abs(x - x0) + Math.abs(y - y0);
      } else {
        if (Math.sign(y - y0) !== dy || Math.abs(y - y0) < 0.25) continue;
        score = Math.abs(y - y0) * 10 + Math.abs(x - x0);
      }
      if (score < bestScore) {
        best = el;
        bestScore = score;
      }
    }
    return best;
  }
}
