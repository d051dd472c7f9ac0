// Draws a Hearts table from one `hearts.state` message (docs/web.md "Hearts"). Everything
// shown comes from the message: the hand's order, which cards are illegal and why, whose turn
// it is. The functions here build DOM and text; they never send anything.

import { t } from "./i18n.js";

// U+FE0E asks for the text (not emoji) form of the suit symbols
export const SUIT_SYMBOL = { C: "♣\uFE0E", D: "♦\uFE0E", H: "♥\uFE0E", S: "♠\uFE0E" };
const FACES = new Set(["J", "Q", "K", "A"]);

/** "QS" -> {rank: "Q", suit: "S"}; "10H" -> {rank: "10", suit: "H"}. */
export function parseCard(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

/** The spoken name of a card: "Ratu sekop" / "Queen of spades". */
export function cardLabel(code) {
  const { rank, suit } = parseCard(code);
  const spoken = FACES.has(rank) ? t(`hcard.rank.${rank}`) : rank;
  return t("hcard.name", { rank: spoken, suit: t(`hcard.suit.${suit}`) });
}

/** "Q♠" for the eye. */
export function cardShort(code) {
  const { rank, suit } = parseCard(code);
  return `${rank}${SUIT_SYMBOL[suit]}`;
}

/** A card face: a button in the hand, a picture elsewhere. */
export function cardElement(code, { button = false, label = cardLabel(code) } = {}) {
  const { rank, suit } = parseCard(code);
  const el = document.createElement(button ? "button" : "div");
  if (button) el.type = "button";
  else el.setAttribute("role", "img");
  el.className = "hc";
  el.dataset.card = code;
  el.dataset.suit = suit;
  el.setAttribute("aria-label", label);
  const symbol = SUIT_SYMBOL[suit];
  el.innerHTML =
    '<span class="hc-i" aria-hidden="true"><span class="hc-r"></span><span class="hc-s"></span></span>' +
    '<span class="hc-big" aria-hidden="true"></span><span class="hc-badge" aria-hidden="true"></span>';
  el.querySelector(".hc-r").textContent = rank;
  el.querySelector(".hc-s").textContent = symbol;
  el.querySelector(".hc-big").textContent = symbol;
  return el;
}

/** The name shown for a seat (a computer without a name gets "Computer 3"). A person who gave
 * no name (or was named with the word "you" by an older table) is "you" only on a screen that
 * plays that seat alone; anyone else (a friend, a screen whose seat was taken over) reads
 * "Seat 1", never "Waiting for You". */
export function seatName(state, seat) {
  const info = state.table.seats[seat];
  const mine = state.you.length === 1 && state.you[0] === seat;
  if (info && info.name && !(info.name === t("hearts.name.you") && !mine)) return info.name;
  if (info && info.kind === "computer") return t("hearts.computer_n", { n: seat + 1 });
  if (info && info.kind === "human" && mine) return t("hearts.name.you");
  return t("hearts.seat_n", { n: seat + 1 });
}

/** The seat this screen plays for: the private view's seat, else the only seat held. */
export function mySeat(state) {
  if (state.view) return state.view.seat;
  return state.you.length === 1 ? state.you[0] : null;
}

/** Whether ``seat`` is the one this screen shows the hand of (then texts say "you"). */
export function isMe(state, seat) {
  return state.view !== null && state.view !== undefined && state.view.seat === seat;
}

/** A seat's name with "(you)" after it when it is this screen's only seat (and is not already
 * the word "you", as the seat of someone who gave no name is called). */
export function nameWithMark(state, seat) {
  const name = seatName(state, seat);
  if (!state.you.includes(seat) || state.you.length !== 1 || name === t("hearts.name.you")) return name;
  return `${name} ${t("hearts.you_mark")}`;
}

/** How a person's seat is held: "here", "offline" (dropped, the seat kept for them a while)
 * or "away" (a computer plays it until they come back); a computer's or free seat: its kind. */
export function presence(info) {
  if (info.kind !== "human") return info.kind;
  if (info.away) return "away";
  return info.connected ? "here" : "offline";
}

/** The badge of a person's presence, or null while they are here. */
export function presenceBadge(info) {
  const how = presence(info);
  if (how === "away") return badge(`⚠ ${t("hearts.badge.computer_plays")}`, "away");
  if (how === "offline") return badge(`○ ${t("hearts.badge.offline")}`, "offline");
  return null;
}

/** Seats held here that must act now (hotseat: whom to hand the device to). */
export function awaitingHere(state) {
  return state.awaiting.filter((seat) => state.you.includes(seat));
}

function names(state, seats) {
  return seats.map((seat) => seatName(state, seat)).join(", ");
}

/** One line that says whose turn it is, in words. */
export function statusText(state) {
  const { table, public: pub, over } = state;
  if (table.status === "lobby") return t("hearts.status.lobby");
  if (over || table.status === "over") return t("hearts.status.over");
  const me = mySeat(state);
  if (pub.phase === "pass") {
    if (state.view && state.view.must_pass) return t("hearts.status.pass_you", { n: state.view.rules.pass_count });
    const waiting = state.awaiting.length ? state.awaiting : pub.passed.flatMap((done, seat) => (done ? [] : [seat]));
    return t("hearts.status.pass_wait", { names: names(state, waiting) });
  }
  if (pub.phase === "play" && pub.to_play !== null) {
    if (pub.to_play === me && state.view) return t(leading(pub) ? "hearts.status.you_lead" : "hearts.status.you");
    return t("hearts.status.other", { name: seatName(state, pub.to_play) });
  }
  if (pub.phase === "moon" && pub.shooter !== null && pub.shooter !== undefined) {
    if (isMe(state, pub.shooter)) return t("hearts.status.moon_you");
    return t("hearts.status.moon_wait", { name: seatName(state, pub.shooter) });
  }
  return t("hearts.status.hand_done");
}

/** What a moon is worth at this table (26; 52 with two packs). */
export function moonPoints(state) {
  return (state.sheet && state.sheet.moon_points) || 26;
}

/** "everyone else +26" / "the shooter −26": how a moon was scored, in words. */
export function moonChoiceText(state, choice) {
  return t(`hearts.moon.choice.${choice}`, { n: moonPoints(state) });
}

function leading(pub) {
  return !pub.trick || pub.trick.plays.length === 0;
}

/** The pass instruction: how many cards, which way, to whom. */
export function passText(state) {
  const view = state.view;
  const dir = view.pass_direction;
  // the server says who receives the pass: the page never works out a rule itself
  const target = state.pass_to ?? view.seat;
  const key = ["left", "right", "across"].includes(dir) ? `hearts.pass.${dir}` : "hearts.pass.other";
  return t(key, { n: view.rules.pass_count, name: seatName(state, target) });
}

function badge(text, kind) {
  const el = document.createElement("span");
  el.className = `ht-badge ${kind}`;
  el.textContent = text;
  return el;
}

/** A seat's name plate at the table: name, whose turn (a tab on its top edge), the
 * computer's level or the person's connection, who led the trick, who has passed, and the
 * points this hand, the total and the cards left (bare numbers under a legend where space is
 * short; the words stay for screen readers). */
export function seatChip(state, seat, { host = false, onFree = null } = {}) {
  const pub = state.public;
  const info = state.table.seats[seat];
  const li = document.createElement("li");
  li.className = "ht-seat";
  li.dataset.seat = String(seat);
  const choosing = pub.phase === "pass" || pub.phase === "moon";
  const turn = state.table.status === "playing" && (choosing ? state.awaiting.includes(seat) : pub.to_play === seat);
  li.classList.toggle("turn", turn);
  li.dataset.presence = presence(info);
  if (turn) li.append(badge(`▶ ${t(choosing ? "hearts.badge.choosing" : "hearts.badge.turn")}`, "turn"));
  const name = document.createElement("span");
  name.className = "ht-name";
  name.textContent = seatName(state, seat);
  if (nameWithMark(state, seat) !== name.textContent) {
    // "(you)" smaller, so that a short name and it share a line on a narrow plate
    const mark = document.createElement("span");
    mark.className = "ht-you";
    mark.textContent = t("hearts.you_mark");
    name.append(" ", mark);
  }
  li.append(name);
  const tags = document.createElement("span");
  tags.className = "ht-tags";
  if (info.kind === "computer") tags.append(tag(`⚙ ${info.level ? t(`hearts.level.${info.level}`) : t("hearts.kind.computer")}`, "kind"));
  const leads = pub.trick && pub.trick.leader === seat && pub.trick.plays.length;
  li.classList.toggle("leader", Boolean(leads));
  if (leads) {
    // the sign always; the word where the plate has room for it (always for screen readers)
    const lead = tag("◆ ", "leads");
    const word = document.createElement("span");
    word.className = "ht-tag-word";
    word.textContent = t("hearts.badge.leads");
    lead.append(word);
    tags.append(lead);
  }
  if (pub.phase === "pass" && pub.passed[seat] && pub.pass_direction !== "hold") tags.append(tag(`✓ ${t("hearts.badge.passed")}`, "passed"));
  const here = presenceBadge(info);
  if (here) tags.append(here);
  if (tags.childElementCount) li.append(tags);
  const nums = document.createElement("span");
  nums.className = "ht-nums";
  const values = { points: pub.points_taken[seat], total: pub.scores[seat], cards: pub.cards_left[seat] };
  nums.innerHTML = '<span class="ht-nums-full"></span><span class="ht-nums-short" aria-hidden="true"></span>';
  nums.querySelector(".ht-nums-full").textContent = t("hearts.seat_numbers", values);
  nums.querySelector(".ht-nums-short").textContent = `${values.points} · ${values.total} · ${values.cards}`;
  li.append(nums);
  if (host && onFree && info.kind === "human" && !state.you.includes(seat) && (info.away || !info.connected)) {
    const free = document.createElement("button");
    free.type = "button";
    free.className = "btn small";
    free.dataset.free = String(seat);
    // during a match a freed seat goes to a computer (in the lobby it becomes empty instead)
    free.textContent = t("hearts.free_seat_playing");
    li.append(free);
  }
  return li;
}

/** A plain label on a plate (not a button, not a pill): icon and word. */
function tag(text, kind) {
  const el = document.createElement("span");
  el.className = `ht-tag ${kind}`;
  el.textContent = text;
  return el;
}

/** The cards of a trick, each in a figure that names who played it (``captions``: the name
 * shown under the card, as in the last-trick view; on the felt the place says it). */
export function trickFigures(state, trick, { finished, captions = false }) {
  const cancelled = new Set(trick.cancelled || []);
  return trick.plays.map(([seat, code], index) => {
    const figure = document.createElement("figure");
    figure.className = "ht-play";
    figure.dataset.seat = String(seat);
    figure.dataset.play = `${index}:${seat}:${code}`;
    let label = t("hearts.played_by", { card: cardLabel(code), name: seatName(state, seat) });
    if (cancelled.has(index)) {
      figure.classList.add("cancelled");
      label += `, ${t("hearts.cancelled")}`;
    }
    const won = finished && trick.winner === seat;
    if (won) {
      figure.classList.add("winner");
      label += `, ${t("hearts.takes_it")}`;
    }
    figure.append(cardElement(code, { label }));
    const marks = document.createElement("span");
    marks.className = "ht-marks";
    marks.setAttribute("aria-hidden", "true");
    if (cancelled.has(index)) marks.append(badge("✕", "x"));
    if (won) marks.append(badge("★", "star"));
    if (marks.childElementCount) figure.append(marks);
    if (captions) {
      const caption = document.createElement("figcaption");
      caption.textContent = seatName(state, seat);
      figure.append(caption);
    }
    return figure;
  });
}

/** The trick on the felt: the one in play, else the one just taken (its winner starred). */
export function trickElement(state) {
  const pub = state.public;
  const current = pub.trick && pub.trick.plays.length ? pub.trick : null;
  const trick = current || pub.last_trick;
  if (!trick) return { figures: [], note: "", winner: null, finished: false };
  const figures = trickFigures(state, trick, { finished: !current });
  let note;
  if (current) note = isMe(state, trick.leader) ? t("hearts.trick.leads_you") : t("hearts.trick.leads", { name: seatName(state, trick.leader) });
  else note = trickNote(state, trick);
  return { figures, note, winner: current ? null : trick.winner, finished: !current };
}

/** Who took a finished trick and its points (or that it is held over). */
export function trickNote(state, trick) {
  return trick.winner === null ? t("hearts.trick.held") : wonText(state, trick.winner, trick.points);
}

function wonText(state, seat, points) {
  return isMe(state, seat) ? t("hearts.trick.won_you", { points }) : t("hearts.trick.won", { name: seatName(state, seat), points });
}

/** The facts line: hand number, passing, hearts broken, kitty. */
export function infoText(state) {
  const pub = state.public;
  const parts = [t("hearts.info.hand", { n: pub.hand_number + 1 })];
  parts.push(t(pub.hearts_broken ? "hearts.info.broken" : "hearts.info.not_broken"));
  if (pub.kitty_size) parts.push(t("hearts.info.kitty", { n: pub.kitty_size }));
  const held = state.view && state.view.held_over ? state.view.held_over.length : 0;
  if (held) parts.push(t("hearts.info.held", { n: held }));
  return parts.join(" · ");
}

/** The score sheet: a row per finished hand (points, running total under them), then totals. */
export function sheetTable(state) {
  const sheet = state.sheet || { hands: [], totals: [], shooters: [] };
  const seats = state.table.seats.map((_, seat) => seat);
  const table = document.createElement("table");
  table.className = "ht-sheet-table";
  const caption = document.createElement("caption");
  caption.className = "visually-hidden";
  caption.textContent = t("hearts.sheet.title");
  const head = table.createTHead().insertRow();
  const corner = document.createElement("th");
  corner.scope = "col";
  corner.textContent = t("hearts.sheet.hand");
  head.append(corner);
  for (const seat of seats) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = seatName(state, seat);
    head.append(th);
  }
  const body = table.createTBody();
  sheet.hands.forEach((points, hand) => {
    const row = body.insertRow();
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = String(hand + 1);
    row.append(th);
    for (const seat of seats) {
      const cell = row.insertCell();
      const moon = sheet.shooters[hand] === seat;
      cell.innerHTML = '<span class="pts"></span><span class="run"></span>';
      cell.querySelector(".pts").textContent = (moon ? "☾ " : "") + (points[seat] > 0 ? `+${points[seat]}` : String(points[seat]));
      cell.querySelector(".run").textContent = String(sheet.totals[hand][seat]);
      if (moon) {
        const how = (sheet.moons || [])[hand];
        const words = how ? t("hearts.sheet.moon_how", { choice: moonChoiceText(state, how) }) : t("hearts.sheet.moon");
        cell.title = words;
        cell.setAttribute("aria-label", `${points[seat]}, ${words}, ${t("hearts.sheet.total")} ${sheet.totals[hand][seat]}`);
      }
    }
  });
  table.append(caption);
  const foot = table.createTFoot().insertRow();
  const th = document.createElement("th");
  th.scope = "row";
  th.textContent = t("hearts.sheet.total");
  foot.append(th);
  // before the match (an online lobby) the server sends no public part: no scores yet
  const totals = sheet.totals.length ? sheet.totals[sheet.totals.length - 1] : state.public.scores || seats.map(() => 0);
  const winners = new Set(state.over ? state.over.winners : []);
  for (const seat of seats) {
    const cell = foot.insertCell();
    cell.textContent = String(totals[seat]);
    if (winners.has(seat)) {
      cell.classList.add("winner");
      cell.textContent = `★ ${cell.textContent}`;
    }
  }
  return table;
}

/** Words for the events of one state, for the live region (plays, tricks, hands, the end). */
export function eventTexts(state, events) {
  const out = [];
  for (const event of events || []) {
    switch (event.type) {
      case "played":
        out.push(
          isMe(state, event.seat)
            ? t("hearts.ev.played_you", { card: cardLabel(event.card) })
            : t("hearts.ev.played", { name: seatName(state, event.seat), card: cardLabel(event.card) }),
        );
        break;
      case "trick_done":
        out.push(event.winner === null ? t("hearts.trick.held") : wonText(state, event.winner, event.points));
        break;
      case "moon_chosen": {
        const choice = moonChoiceText(state, event.choice);
        out.push(
          isMe(state, event.seat)
            ? t("hearts.ev.moon_chosen_you", { choice })
            : t("hearts.ev.moon_chosen", { name: seatName(state, event.seat), choice }),
        );
        break;
      }
      case "hand_done":
        if (event.shooter !== null && event.shooter !== undefined) out.push(t("hearts.ev.moon", { name: seatName(state, event.shooter) }));
        out.push(t("hearts.ev.hand_done", { n: event.hand_number + 1 }));
        break;
      case "hand_dealt":
        out.push(t("hearts.ev.dealt", { n: event.hand_number + 1 }));
        break;
      case "passes_exchanged":
        out.push(t("hearts.ev.exchanged"));
        break;
      case "match_over":
        out.push(t("hearts.ev.over", { names: names(state, event.winners) }));
        break;
      default:
        break;
    }
  }
  return out;
}
