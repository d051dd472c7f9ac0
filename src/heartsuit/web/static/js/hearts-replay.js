// The replay of a finished Hearts match (/hearts/replay/<table>/<match>): every hand face up,
// stepped through deal, passes and each card of each trick, with the score sheet beside it.
// Everything comes from one `hearts.replay` reply, which the server gives only for a match
// that is over; the page works out nothing but which cards are still in each hand at a step
// (dealt, minus passed, plus received, minus played), and never a rule.

import { lang, t } from "./i18n.js";
import { cardElement, cardLabel, cardShort, moonChoiceText, seatName, sheetTable } from "./hearts-render.js";
import { Connection } from "./ws.js";

const root = document.querySelector("[data-replay]");
const tableId = root.dataset.table;
const askedMatch = root.dataset.match ? Number(root.dataset.match) : null;
const $ = (name) => root.querySelector(`[data-${name}]`);
const el = {
  lead: $("lead"),
  refused: $("refused"),
  refusedText: $("refused-text"),
  body: $("body"),
  matches: $("matches"),
  codeLine: $("code-line"),
  code: $("code"),
  hand: $("hand"),
  counter: $("counter"),
  caption: $("caption"),
  trick: $("trick"),
  seats: $("seats"),
  sheet: $("sheet"),
};
const buttons = Object.fromEntries([...root.querySelectorAll("[data-step]")].map((b) => [b.dataset.step, b]));

let replay = null; // the hearts.replay reply
let steps = []; // {hand, kind: "deal" | "pass" | "play" | "done", trick, play}
let index = 0;
let asked = false;
let view = null; // a hearts.state-like object for hearts-render.js's names and score sheet

const conn = new Connection({
  lang,
  table: tableId,
  onReady: () => {
    if (!asked) {
      asked = true;
      load();
    }
  },
  onStatus: (online) => {
    if (!online && !replay) refuse(t("game.offline"));
  },
});

async function load() {
  try {
    const message = { type: "hearts.replay", table: tableId };
    if (askedMatch) message.match = askedMatch;
    show(await conn.request(message));
  } catch (error) {
    refuse(error.message && error.code !== "offline" ? error.message : t("game.offline"));
  }
  root.setAttribute("aria-busy", "false");
}

function refuse(text) {
  el.lead.hidden = true;
  el.body.hidden = true;
  el.refused.hidden = false;
  el.refusedText.textContent = text;
}

function show(reply) {
  replay = reply;
  view = {
    table: { seats: reply.seats, mode: reply.mode, status: "over" },
    you: [],
    view: null,
    sheet: reply.sheet,
    over: { winners: reply.winners },
    public: {},
  };
  steps = buildSteps(reply);
  const preset = t(`hearts.preset.${reply.preset}`);
  const players = reply.seats.length;
  el.lead.textContent = t("hreplay.lead", { preset, n: players, match: reply.match });
  el.code.textContent = reply.code || "";
  el.codeLine.hidden = !reply.code;
  drawMatches();
  el.hand.replaceChildren(
    ...reply.hands.map((hand, h) => {
      const option = document.createElement("option");
      option.value = String(h);
      option.textContent = t("hreplay.hand_n", { n: hand.number + 1 });
      return option;
    }),
  );
  el.sheet.replaceChildren(sheetTable(view));
  el.body.hidden = false;
  el.refused.hidden = true;
  const fromHash = /^#hand-(\d+)$/.exec(location.hash);
  const start = fromHash ? handStart(Number(fromHash[1]) - 1) : 0;
  go(start >= 0 ? start : 0);
}

function drawMatches() {
  const count = replay.matches;
  el.matches.hidden = count < 2;
  if (count < 2) return;
  const links = [];
  for (let n = 1; n <= count; n++) {
    const a = document.createElement("a");
    a.href = `/hearts/replay/${encodeURIComponent(tableId)}/${n}`;
    a.textContent = t("hreplay.match_n", { n });
    if (n === replay.match) a.setAttribute("aria-current", "page");
    links.push(a);
  }
  el.matches.replaceChildren(...links);
}

/** Every step of the match, in order: each hand's deal, its passes, each card, its end. */
function buildSteps(reply) {
  const out = [];
  reply.hands.forEach((hand, h) => {
    out.push({ hand: h, kind: "deal" });
    if (hand.passes.some((cards) => cards && cards.length)) out.push({ hand: h, kind: "pass" });
    hand.tricks.forEach((trick, ti) => {
      trick.plays.forEach((_, pi) => out.push({ hand: h, kind: "play", trick: ti, play: pi }));
    });
    out.push({ hand: h, kind: "done" });
  });
  return out;
}

function handStart(h) {
  return steps.findIndex((step) => step.hand === h);
}

function handEnd(h) {
  let last = -1;
  steps.forEach((step, i) => {
    if (step.hand === h) last = i;
  });
  return last;
}

/** Whether step ``i`` is the last card of its trick (the trick is complete there). */
function endsTrick(step) {
  if (step.kind !== "play") return false;
  return step.play === replay.hands[step.hand].tricks[step.trick].plays.length - 1;
}

/** The cards each seat holds at ``step``, and the points each has taken in tricks by then. */
function position(step) {
  const hand = replay.hands[step.hand];
  const players = hand.deal.length;
  const afterPass = step.kind === "play" || step.kind === "done";
  const held = hand.deal.map((cards) => [...cards]);
  const received = hand.deal.map(() => new Set());
  if (afterPass) {
    hand.passes.forEach((cards, seat) => {
      if (!cards) return;
      const to = hand.pass_to[seat];
      held[seat] = held[seat].filter((card) => !cards.includes(card));
      held[to].push(...cards);
      cards.forEach((card) => received[to].add(card));
    });
  }
  const taken = new Array(players).fill(0);
  const done = step.kind === "done" ? hand.tricks.length : step.kind === "play" ? step.trick : 0;
  const played = new Set();
  hand.tricks.forEach((trick, ti) => {
    const upTo = ti < done ? trick.plays.length : step.kind === "play" && ti === step.trick ? step.play + 1 : 0;
    trick.plays.slice(0, upTo).forEach(([, card]) => played.add(card));
    const complete = ti < done || (ti === step.trick && endsTrick(step));
    if (complete && trick.winner !== null) taken[trick.winner] += trick.points;
  });
  return { held: held.map((cards) => cards.filter((card) => !played.has(card))), received, taken };
}

function go(i) {
  index = Math.max(0, Math.min(steps.length - 1, i));
  draw();
}

function draw() {
  const step = steps[index];
  const hand = replay.hands[step.hand];
  const { held, received, taken } = position(step);
  el.hand.value = String(step.hand);
  const trickCount = hand.tricks.length;
  const trickNo = step.kind === "play" ? step.trick + 1 : step.kind === "done" ? trickCount : 0;
  el.counter.textContent = t("hreplay.counter", {
    hand: step.hand + 1,
    hands: replay.hands.length,
    trick: trickNo,
    tricks: trickCount,
  });
  el.caption.textContent = caption(step);
  drawTrick(step);
  drawSeats(step, held, received, taken);
  markSheet(step.hand);
  buttons["hand-start"].disabled = index === 0;
  buttons.prev.disabled = index === 0;
  buttons["prev-trick"].disabled = index === 0;
  buttons.next.disabled = index === steps.length - 1;
  buttons["next-trick"].disabled = index === steps.length - 1;
  buttons["hand-end"].disabled = index === steps.length - 1;
  const hash = `#hand-${step.hand + 1}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

function name(seat) {
  return seatName(view, seat);
}

function cardList(cards) {
  return cards.map(cardShort).join(" ");
}

function caption(step) {
  const hand = replay.hands[step.hand];
  if (step.kind === "deal") {
    const parts = [t("hreplay.dealt", { n: hand.number + 1 })];
    const dir = hand.pass_direction;
    parts.push(["left", "right", "across"].includes(dir) ? t(`hreplay.pass_dir.${dir}`) : t("hreplay.pass_dir.hold"));
    if (hand.kitty.length) parts.push(t("hreplay.kitty", { cards: cardList(hand.kitty) }));
    return parts.join(" ");
  }
  if (step.kind === "pass") {
    return hand.passes
      .map((cards, seat) => (cards && cards.length ? t("hreplay.passed", { name: name(seat), cards: cardList(cards), to: name(hand.pass_to[seat]) }) : null))
      .filter(Boolean)
      .join(" ");
  }
  if (step.kind === "play") {
    const trick = hand.tricks[step.trick];
    const [seat, card] = trick.plays[step.play];
    const parts = [t(step.play === 0 ? "hreplay.leads" : "hreplay.plays", { name: name(seat), card: cardLabel(card) })];
    if (endsTrick(step)) {
      if (trick.winner === null) parts.push(t("hearts.trick.held"));
      else parts.push(t("hreplay.takes", { name: name(trick.winner), points: trick.points }));
      if (step.trick === 0 && hand.kitty.length && hand.kitty_taker !== null) {
        parts.push(t("hreplay.kitty_taken", { name: name(hand.kitty_taker) }));
      }
    }
    return parts.join(" ");
  }
  const points = hand.points.map((p, seat) => `${name(seat)} ${p > 0 ? "+" : ""}${p}`).join(", ");
  const parts = [t("hreplay.hand_done", { n: hand.number + 1, points })];
  if (hand.shooter !== null && hand.shooter !== undefined) {
    parts.push(t("hreplay.moon", { name: name(hand.shooter), choice: hand.moon ? moonChoiceText(view, hand.moon) : "" }));
  }
  if (step.hand === replay.hands.length - 1) {
    parts.push(t("hreplay.over", { names: replay.winners.map(name).join(", ") }));
  }
  return parts.join(" ");
}

function drawTrick(step) {
  const hand = replay.hands[step.hand];
  let trick = null;
  let upTo = 0;
  if (step.kind === "play") {
    trick = hand.tricks[step.trick];
    upTo = step.play + 1;
  } else if (step.kind === "done" && hand.tricks.length) {
    trick = hand.tricks[hand.tricks.length - 1];
    upTo = trick.plays.length;
  }
  el.trick.replaceChildren();
  if (!trick) return;
  const complete = upTo === trick.plays.length;
  const cancelled = new Set(trick.cancelled || []);
  trick.plays.slice(0, upTo).forEach(([seat, card], i) => {
    const figure = document.createElement("figure");
    figure.className = "hr-play";
    figure.dataset.seat = String(seat);
    let label = t("hreplay.card_of", { card: cardLabel(card), name: name(seat) });
    if (cancelled.has(i) && complete) {
      figure.classList.add("cancelled");
      label += `, ${t("hearts.cancelled")}`;
    }
    if (complete && trick.winner === seat) {
      figure.classList.add("winner");
      label += `, ${t("hearts.takes_it")}`;
    }
    const caption = document.createElement("figcaption");
    caption.textContent = (complete && trick.winner === seat ? "★ " : "") + name(seat);
    figure.append(cardElement(card, { label }), caption);
    el.trick.append(figure);
  });
}

function drawSeats(step, held, received, taken) {
  const hand = replay.hands[step.hand];
  const turn = step.kind === "play" ? hand.tricks[step.trick].plays[step.play][0] : null;
  el.seats.replaceChildren(
    ...held.map((cards, seat) => {
      const li = document.createElement("li");
      li.className = "hr-seat";
      li.dataset.seat = String(seat);
      if (seat === turn) li.classList.add("turn");
      const top = document.createElement("p");
      top.className = "hr-seat-top";
      const who = document.createElement("span");
      who.className = "hr-name";
      who.textContent = name(seat);
      const points = document.createElement("span");
      points.className = "hr-points";
      const value = step.kind === "done" ? hand.points[seat] : taken[seat];
      points.textContent = t("hreplay.points", { n: value });
      top.append(who, points);
      li.append(top);
      if (step.kind === "pass" && hand.passes[seat] && hand.passes[seat].length) {
        const pass = document.createElement("p");
        pass.className = "hr-pass";
        pass.textContent = t("hreplay.pass_to", { name: name(hand.pass_to[seat]), cards: cardList(hand.passes[seat]) });
        li.append(pass);
      }
      const row = document.createElement("div");
      row.className = "hr-cards";
      row.setAttribute("role", "list");
      if (step.kind === "done") {
        // the hand is over: what each seat took that counts, instead of an empty hand
        const took = hand.penalties[seat];
        row.classList.add("took");
        row.setAttribute("aria-label", t("hreplay.took", { name: name(seat), n: took.length }));
        for (const card of took) {
          const face = cardElement(card);
          face.setAttribute("role", "listitem");
          row.append(face);
        }
        if (!took.length) {
          row.removeAttribute("role");
          row.removeAttribute("aria-label");
          row.textContent = t("hreplay.took_none");
        }
        li.append(row);
        return li;
      }
      row.setAttribute("aria-label", t("hreplay.holds", { name: name(seat), n: cards.length }));
      for (const card of cards) {
        const label = received[seat].has(card) ? `${cardLabel(card)}, ${t("hreplay.received")}` : cardLabel(card);
        const face = cardElement(card, { label });
        face.setAttribute("role", "listitem");
        if (received[seat].has(card)) face.classList.add("received");
        if (step.kind === "pass" && hand.passes[seat] && hand.passes[seat].includes(card)) face.classList.add("passing");
        row.append(face);
      }
      li.append(row);
      return li;
    }),
  );
}

function markSheet(h) {
  const rows = el.sheet.querySelectorAll("tbody tr");
  rows.forEach((row, i) => {
    row.classList.toggle("current", i === h);
    if (i === h) row.setAttribute("aria-current", "true");
    else row.removeAttribute("aria-current");
  });
}

/** The first step of the trick after (dir 1) or before (dir -1) the one at ``index``. */
function trickStep(dir) {
  const here = steps[index];
  const key = (step) => `${step.hand}:${step.kind === "play" ? step.trick : step.kind}`;
  let i = index;
  if (dir > 0) {
    while (i < steps.length - 1 && key(steps[i]) === key(here)) i++;
    return i;
  }
  // back: to the start of this trick, or of the one before when already there
  const startOf = (j) => {
    while (j > 0 && key(steps[j - 1]) === key(steps[j])) j--;
    return j;
  };
  const start = startOf(i);
  return start < i ? start : startOf(Math.max(0, start - 1));
}

const actions = {
  prev: () => go(index - 1),
  next: () => go(index + 1),
  "prev-trick": () => go(trickStep(-1)),
  "next-trick": () => go(trickStep(1)),
  "hand-start": () => {
    const start = handStart(steps[index].hand);
    go(start < index ? start : handStart(Math.max(0, steps[index].hand - 1)));
  },
  "hand-end": () => {
    const end = handEnd(steps[index].hand);
    go(end > index ? end : handEnd(Math.min(replay.hands.length - 1, steps[index].hand + 1)));
  },
};

for (const [step, button] of Object.entries(buttons)) {
  button.addEventListener("click", () => {
    if (replay) actions[step]();
  });
}

el.hand.addEventListener("change", () => go(handStart(Number(el.hand.value))));

const KEYS = { ArrowLeft: "prev", ArrowRight: "next", PageUp: "prev-trick", PageDown: "next-trick", Home: "hand-start", End: "hand-end" };

document.addEventListener("keydown", (event) => {
  if (!replay || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target instanceof HTMLElement && target.closest("select, input, textarea")) return;
  const action = KEYS[event.key];
  if (!action) return;
  event.preventDefault();
  actions[action]();
});
