// The hand summary shown between hands: for each player the cards that count they took in
// tricks (from the state's public `last_hand`: cards played face up, never a kitty's), the
// hand's points and the totals after it (the score sheet's line, which the engine wrote), and
// the moon with how it scored. Built from one state; it sends nothing.

import { t } from "./i18n.js";
import { cardLabel, cardShort, isMe, moonChoiceText, nameWithMark, parseCard, seatName } from "./hearts-render.js";

/** Whether the state can show the summary of finished hand ``n`` (its sheet line is there). */
export function hasSummary(state, n) {
  return n !== null && n !== undefined && Boolean(state.sheet && state.sheet.hands[n]);
}

/** The finished hand a freshly opened page shows the summary of: the last one, while the
 * next has not started its play yet (or the match is over); else null. */
export function summaryOnOpen(state) {
  const last = state.last_hand;
  if (!last) return null;
  const pub = state.public;
  const started = pub.tricks_played > 0 || (pub.trick && pub.trick.plays.length > 0);
  if (state.over || (!started && pub.hand_number === last.hand_number + 1)) return last.hand_number;
  return null;
}

/** The words of hand ``n``'s moon, or "" without one: who shot it, and how it scored (the
 * shooter's choice in their words, or the table's fixed rule). */
export function moonLine(state, n) {
  const sheet = state.sheet;
  const shooter = sheet.shooters[n];
  if (shooter === null || shooter === undefined) return "";
  const how = (sheet.moons || [])[n];
  const name = seatName(state, shooter);
  const parts = [`☾ ${t("hearts.ev.moon", { name })}`];
  if (how) {
    const choice = moonChoiceText(state, how);
    if (state.table.rules.moon !== "shooter_chooses") parts.push(t("hearts.summary.moon_rule", { choice }));
    else parts.push(`${isMe(state, shooter) ? t("hearts.ev.moon_chosen_you", { choice }) : t("hearts.ev.moon_chosen", { name, choice })}.`);
  }
  return parts.join(" ");
}

function cell(row, text, header = false) {
  const el = document.createElement(header ? "th" : "td");
  if (header) el.scope = row.parentElement && row.parentElement.tagName === "THEAD" ? "col" : "row";
  el.textContent = text;
  row.append(el);
  return el;
}

/** The cards a seat took, small, in their suits' colours; their names for screen readers. */
function takenCell(row, cards) {
  const td = document.createElement("td");
  td.className = "ht-taken";
  if (!cards || !cards.length) {
    td.textContent = cards ? t("hearts.summary.none") : "–";
    row.append(td);
    return;
  }
  const seen = document.createElement("span");
  seen.setAttribute("aria-hidden", "true");
  for (const code of cards) {
    const mini = document.createElement("span");
    mini.className = "ht-mini";
    mini.dataset.suit = parseCard(code).suit;
    mini.textContent = cardShort(code);
    seen.append(mini);
  }
  const spoken = document.createElement("span");
  spoken.className = "visually-hidden";
  spoken.textContent = cards.map(cardLabel).join(", ");
  td.append(seen, spoken);
  row.append(td);
}

/** The table of hand ``n``: a row per player (the cards they took, the points, the total). */
export function summaryTable(state, n) {
  const sheet = state.sheet;
  const last = state.last_hand && state.last_hand.hand_number === n ? state.last_hand : null;
  const table = document.createElement("table");
  table.className = "ht-summary-table";
  const caption = document.createElement("caption");
  caption.className = "visually-hidden";
  caption.textContent = t("hearts.summary.title", { n: n + 1 });
  table.append(caption);
  const head = table.createTHead().insertRow();
  for (const key of ["player", "taken", "points", "total"]) cell(head, t(`hearts.summary.${key}`), true);
  const body = table.createTBody();
  state.table.seats.forEach((_, seat) => {
    const row = body.insertRow();
    row.dataset.seat = String(seat);
    const moon = sheet.shooters[n] === seat;
    cell(row, `${moon ? "☾ " : ""}${nameWithMark(state, seat)}`, true);
    takenCell(row, last ? last.taken[seat] : null);
    const points = sheet.hands[n][seat];
    const pts = cell(row, points > 0 ? `+${points}` : String(points));
    pts.className = "ht-pts";
    pts.dataset.points = String(points);
    const total = cell(row, String(sheet.totals[n][seat]));
    total.className = "ht-total";
  });
  return table;
}
