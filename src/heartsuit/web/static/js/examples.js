// Examples: a won game from GET /api/examples, replayed frame by frame with the info bar as it
// was. Each frame after the first is the state after one move and names the taps of that move.

import { Board } from "./board.js";
import { cardName, formatTime, t } from "./i18n.js";

const root = document.querySelector("[data-examples]");
const caption = root.querySelector("[data-caption]");
const counter = root.querySelector("[data-counter]");
const scrubber = root.querySelector("[data-scrubber]");
const buttons = Object.fromEntries(
  [...root.querySelectorAll("[data-step]")].map((b) => [b.dataset.step, b]),
);
const board = new Board(root, { interactive: false });
const STEP_MS = 900;
// how long the two cards of a pair are shown marked before they go
const PAIR_MS = 450;

let frames = [];
let index = 0;
let timer = 0;
let pending = 0;
let marked = [];

/** The two taps that made the pair of frame `i`, or null when frame `i` is no pair. */
function pairOf(i) {
  if (i === 0 || frames[i].taps.includes("stock")) return null;
  return frames[i].taps.slice(-2);
}

function unmark() {
  for (const el of marked) el.classList.remove("pairing");
  marked = [];
  delete root.dataset.pairing;
}

function mark(targets) {
  marked = targets.map((target) =>
    target === "waste" ? root.querySelector('[data-pile="waste"]') : root.querySelector(`[data-pos="${target}"]`),
  );
  for (const el of marked) el.classList.add("pairing");
  root.dataset.pairing = targets.join(" ");
}

function where(target, before) {
  if (target === "waste") {
    const top = before.waste_top;
    return t("ex.waste", { card: top ? cardName(top.rank) : "" });
  }
  const view = before.heart[target - 1];
  const card = view ? cardName(view.rank) : "";
  return target === 25 ? t("ex.tip", { card }) : t("ex.pos", { card, pos: target });
}

function describe(i) {
  if (i === 0) return t("ex.start");
  const { taps } = frames[i];
  const before = frames[i - 1].game;
  const after = frames[i].game;
  if (taps.includes("stock")) {
    if (before.stock_count === 0) return t("ex.redeal", { n: i });
    return t("ex.flip", { n: i, card: after.waste_top ? cardName(after.waste_top.rank) : "" });
  }
  // a pair: the last two taps name its two cards, in the order they were tapped
  const [a, b] = taps.slice(-2);
  return t("ex.pair", { n: i, a: where(a, before), b: where(b, before) });
}

function showFrame(i) {
  const step = Math.max(0, Math.min(frames.length - 1, i));
  clearTimeout(pending);
  pending = 0;
  unmark();
  const forward = step === index + 1;
  index = step;
  const frame = frames[index];
  const game = frame.game;
  const pair = forward ? pairOf(index) : null;
  if (pair) {
    // one step forward onto a pair: first the two cards marked where they lie, then gone
    board.render(frames[index - 1].game);
    mark(pair);
    pending = setTimeout(() => {
      pending = 0;
      unmark();
      board.render(game);
    }, PAIR_MS);
  } else {
    board.render(game);
  }
  root.querySelector('[data-info="time"]').textContent = formatTime(game.elapsed_ms);
  root.querySelector('[data-info="score"]').textContent = String(game.score);
  root.querySelector('[data-info="moves"]').textContent = String(game.moves);
  root.querySelector('[data-info="code"]').textContent = game.code;
  caption.textContent = describe(index);
  const last = frames.length - 1;
  counter.textContent = t("ex.counter", { n: index, total: last });
  scrubber.value = String(index);
  root.dataset.frame = String(index);
  buttons.first.disabled = buttons.prev.disabled = index === 0;
  buttons.next.disabled = buttons.last.disabled = index === last;
  if (index === last) pause();
}

function play() {
  if (index === frames.length - 1) showFrame(0);
  buttons.play.setAttribute("aria-label", t("ex.pause"));
  buttons.play.title = t("ex.pause");
  buttons.play.setAttribute("aria-pressed", "true");
  timer = setInterval(() => showFrame(index + 1), STEP_MS);
}

function pause() {
  clearInterval(timer);
  timer = 0;
  buttons.play.setAttribute("aria-label", t("ex.play"));
  buttons.play.title = t("ex.play");
  buttons.play.setAttribute("aria-pressed", "false");
}

buttons.first.addEventListener("click", () => showFrame(0));
buttons.prev.addEventListener("click", () => showFrame(index - 1));
buttons.next.addEventListener("click", () => showFrame(index + 1));
buttons.last.addEventListener("click", () => showFrame(frames.length - 1));
buttons.play.addEventListener("click", () => (timer ? pause() : play()));
scrubber.addEventListener("input", () => {
  pause();
  showFrame(Number(scrubber.value));
});
root.addEventListener("keydown", (event) => {
  if (event.target === scrubber) return;
  if (event.key === "ArrowRight") showFrame(index + 1);
  else if (event.key === "ArrowLeft") showFrame(index - 1);
});

async function load() {
  const response = await fetch("/api/examples");
  if (!response.ok) throw new Error(String(response.status));
  const data = await response.json();
  frames = data.frames;
  scrubber.max = String(frames.length - 1);
  scrubber.disabled = false;
  for (const b of Object.values(buttons)) b.disabled = false;
  showFrame(0);
}

load()
  .catch(() => {
    caption.textContent = t("ex.error");
  })
  .finally(() => root.setAttribute("aria-busy", "false"));
