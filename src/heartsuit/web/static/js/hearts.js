// The Hearts table (/hearts/table/<id>): the conversation with the server over /ws and what the
// player does. Every intent carries the version last drawn; a `stale` error brings the fresh
// state, which is drawn instead. Drawing itself is in hearts-render.js.
//
// A seat has one screen at a time. A seat link (/hearts/table/<id>#seat=<token>) brings it to
// another device: the token travels in the fragment, which no server ever logs, and leaves the
// address bar at once. A screen whose seat is open elsewhere is told so and offers "Play here";
// a tab that played the seat before (a reload, a lost connection) takes it back by itself.

import { lang, t } from "./i18n.js";
import {
  awaitingHere,
  cardElement,
  cardLabel,
  eventTexts,
  infoText,
  moonPoints,
  mySeat,
  nameWithMark,
  passText,
  presence,
  seatChip,
  seatName,
  sheetTable,
  statusText,
  trickElement,
  trickFigures,
  trickNote,
} from "./hearts-render.js";
import { gather, place, pointArrow, receiveCards, seatAngle, sendCards, slideIn } from "./hearts-felt.js";
import { hasSummary, moonLine, summaryOnOpen, summaryTable } from "./hearts-summary.js";
import { forgetTable, fourColour, keepTokens, saveFourColour, saveSetting, setTabHeld, setting, tabHeld, tableTokens } from "./hearts-store.js";
import { sound } from "./hearts-sound.js";
import { Connection } from "./ws.js";

const root = document.querySelector("[data-hearts]");
const tableId = root.dataset.table;
const $ = (name) => document.querySelector(`[data-${name}]`);
const el = {
  status: $("status"),
  live: $("live"),
  error: $("error"),
  notice: $("notice"),
  elsewhere: $("elsewhere"),
  seatLinks: $("seat-links"),
  leave: $("leave"),
  lobby: $("lobby"),
  board: $("board"),
  felt: $("felt"),
  seats: $("seats"),
  info: $("info"),
  trick: $("trick"),
  trickNote: $("trick-note"),
  ghosts: $("ghosts"),
  arrow: $("arrow"),
  arrowName: $("arrow-name"),
  last: $("last"),
  lastCards: $("last-cards"),
  lastNote: $("last-note"),
  lastOpen: $("last-open"),
  lastClose: $("last-close"),
  summary: $("summary"),
  summaryTitle: $("summary-title"),
  summaryMoon: $("summary-moon"),
  summaryRows: $("summary-rows"),
  summaryNext: $("summary-next"),
  summaryWait: $("summary-wait"),
  waitLine: $("wait-line"),
  autoplay: $("autoplay"),
  sounds: $("sounds"),
  order: $("order"),
  rank: $("rank"),
  pace: $("pace"),
  paceNote: $("pace-note"),
  hint: $("hint"),
  prompt: $("prompt"),
  moon: $("moon"),
  reason: $("reason"),
  hand: $("hand"),
  pass: $("pass"),
  over: $("over"),
  sheet: $("sheet"),
  sheetBox: $("sheet-box"),
  cover: $("cover"),
  look: $("look"),
  four: $("four-colour"),
  code: $("code"),
  codeLine: $("code-line"),
  replay: $("replay"),
};
// a finished trick stays in view this long before the next pushed state is drawn (long enough
// to read who took what; a tap of the player's own draws at once), at the table's pace
const TRICK_PAUSE_MS = { slow: 2200, normal: 1400, fast: 900 };
// the only legal card plays itself after this long, so the player sees which it was
const AUTOPLAY_MS = 700;
// the suits' order in the hand for each choice, and the ranks low to high
const SUIT_ORDERS = { cdsh: "CDSH", shcd: "SHCD", hcds: "HCDS" };
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
// the narrowest strip of an overlapped hand card still easy to tap; below it the hand wraps
const CARD_STRIP_PX = 18;
// the fields of a seat's view that are its own (a patch sets them from its `view` only)
const OWN_FIELDS = new Set(["seat", "hand", "legal", "must_pass", "passed", "received"]);

let state = null; // the state drawn now
let playing = null; // a card tapped and drawn in the trick at once, until the server answers
let shown = 0; // states drawn, exposed as data-seq for tests
let selected = new Set(); // cards chosen for the pass
let focusCard = null; // the hand card that had the focus, kept across redraws
let queue = []; // pushed states waiting for the trick pause to end
let pausedUntil = 0;
let timer = 0;
let opened = false;
let lastShown = false; // the last-trick view is open
let summaryHand = null; // the finished hand whose summary is shown, until "next hand"
let autoTimer = 0; // the only legal card, about to play itself
let hinted = null; // {turn, cards}: the normal computer's choice for this turn, marked
let waitTimer = 0; // the seconds of the online wait between hands, counting down
let linked = takeSeatLink(); // a seat token brought by a seat link, until the server took it

/** The token of a seat link's fragment (#seat=<token>), taken out of the address bar. */
function takeSeatLink() {
  const match = /(?:^#|&)seat=([^&]+)/.exec(location.hash);
  if (!match) return null;
  history.replaceState(history.state, "", location.pathname + location.search);
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

const tokens = () => tableTokens(tableId);
function tokenFor(seat) {
  return tokens()[seat] || null;
}
/** The token to act with: the seat whose hand is shown, else the first seat held here. */
function actingToken() {
  const seat = state && state.view ? state.view.seat : state && state.you.length ? state.you[0] : null;
  return seat === null ? Object.values(tokens())[0] || null : tokenFor(seat);
}

const conn = new Connection({
  lang,
  table: tableId,
  onReady: () => openTable(),
  onStatus: (online) => {
    if (!online) showError(t("game.offline"));
    else el.error.hidden = true;
  },
  onPush: (message) => {
    if (message.type === "hearts.state" && message.table && message.table.id === tableId) push(message);
    else if (message.type === "hearts.patch" && message.table === tableId) patched(message);
  },
  onPushError: (error) => {
    if (error.code === "taken_over") takenOver(error);
    else if (error.code === "in_use") showNotice(error.message);
    else showError(error.message || t("hearts.err.generic"));
  },
});

/** Another tab or device plays this screen's seat now: show the table without the hand. */
function takenOver(error) {
  setTabHeld(tableId, false); // a reconnect must not take the seat back unasked
  showNotice(error.message);
  if (state) {
    const you = []; // the server let go of every seat this socket held
    draw({ ...state, you, view: null, illegal: {}, awaiting: state.awaiting, events: [] });
  }
}

function showNotice(text) {
  root.setAttribute("aria-busy", "false");
  if (!state) el.status.textContent = "";
  el.notice.querySelector("[data-notice-text]").textContent = text;
  el.notice.hidden = false;
}

function showError(text) {
  el.error.textContent = text;
  el.error.hidden = false;
}

async function openTable(takeOver = tabHeld(tableId)) {
  const kept = tokens();
  const list = Object.values(kept);
  if (linked && !list.includes(linked)) list.push(linked);
  const message = { type: "hearts.open", table: tableId, tokens: list };
  if (takeOver) message.take_over = true;
  if (state) message.version = state.table.version;
  try {
    const reply = await conn.request(message);
    opened = true;
    keepLinked(reply, kept);
    setTabHeld(tableId, reply.you.length > 0);
    el.notice.hidden = true;
    accept(reply, true);
  } catch (error) {
    failed(error);
  }
}

/** Keep a seat link's token like one of this browser's own, once the server accepted it. */
function keepLinked(reply, kept) {
  if (!linked) return;
  const fresh = reply.you.filter((seat) => !(String(seat) in kept));
  if (fresh.length === 1) keepTokens(tableId, [{ seat: fresh[0], token: linked }]);
  linked = null;
}

/** A state from a push: drawn at once unless a finished trick is still being shown. */
function push(message) {
  // an older push (reordered or a duplicate) is never drawn over a newer state; after the end
  // of a match anything new is taken (a rematch)
  if (state && message.table.version < state.table.version && !state.over) return;
  queue.push(message);
  drain();
}

/**
 * A `hearts.patch` (a card played within a trick, or one that ends a trick but not the hand,
 * or a pass but the last): the public fields it names are set in the newest state held, in its
 * public part and in this seat's own view alike (at a trick's end the view's `tricks` gain `last_trick`); when this seat
 * acted, acts next or has still to pass, the patch also brings its own fields (set in its
 * view) and its `illegal` reasons. The result is exactly the whole state the server would have
 * sent. Returns null when the patch does not follow the newest state held (`gap`: a version
 * was missed; else it is already held).
 */
function patchedState(message) {
  const latest = queue.length ? queue[queue.length - 1] : state;
  if (latest && message.version <= latest.table.version) return { next: null, gap: false };
  if (!latest || latest.table.version !== message.version - 1) return { next: null, gap: true };
  const next = structuredClone(latest);
  next.table.version = message.version;
  next.awaiting = message.awaiting;
  for (const [key, value] of Object.entries(message.public)) {
    next.public[key] = value;
    // the public `passed` (who has passed) is not the view's own `passed` (its cards)
    if (next.view && key in next.view && !OWN_FIELDS.has(key)) next.view[key] = structuredClone(value);
  }
  // a trick ended (not the hand): the view's finished tricks end with it
  if (next.view && "tricks_played" in message.public) next.view.tricks.push(structuredClone(message.public.last_trick));
  if (next.view && message.view) Object.assign(next.view, message.view);
  if (message.illegal) next.illegal = message.illegal;
  next.events = message.events;
  next.resync = false;
  return { next, gap: false };
}

/** A pushed patch: taken like a pushed state; one that does not follow the newest state held
 * (something was missed) brings the whole state again instead; an older one is ignored. */
function patched(message) {
  const { next, gap } = patchedState(message);
  if (next) push(next);
  else if (gap) resync();
}

let resyncing = false;
/** Ask for the whole state again (once at a time). */
async function resync() {
  if (resyncing || !opened) return;
  resyncing = true;
  try {
    await openTable();
  } finally {
    resyncing = false;
  }
}

function drain() {
  clearTimeout(timer);
  while (queue.length) {
    const wait = pausedUntil - Date.now();
    if (wait > 0) {
      timer = setTimeout(drain, wait);
      return;
    }
    draw(queue.shift());
  }
}

/** A state (or a patch) that answers this page's request: drawn now, ahead of any queued
 * push. */
function accept(message, fromRequest = false) {
  if (message.type === "hearts.patch" && message.table === tableId) {
    // the answer to this page's pass or card: a patch on the newest state held
    const { next, gap } = patchedState(message);
    if (gap) resync();
    if (!next) return;
    message = next;
  }
  if (message.type !== "hearts.state") return;
  if (fromRequest) {
    queue = queue.filter((m) => m.table.version > message.table.version);
    pausedUntil = 0;
  }
  draw(message);
  drain();
}

/**
 * The state after the last card of a hand already holds the next deal (and the tricks of the
 * hand are gone from it): the trick just taken is shown first, like every other trick, on the
 * hand as it was before, and the state itself waits behind it for the trick pause. Null when
 * ``next`` does not end a hand with a trick (it ends the match, or follows a moon choice).
 */
function lastTrickFirst(previous, next) {
  const events = next.events || [];
  const at = events.map((e) => e.type).lastIndexOf("trick_done");
  if (at < 0 || !previous || !previous.public || previous.table.status !== "playing") return null;
  if (!next.public || previous.public.hand_number === next.public.hand_number) return null;
  const done = events[at];
  const shown = structuredClone(previous);
  const pub = shown.public;
  pub.phase = "done";
  pub.to_play = null;
  pub.trick = null;
  pub.last_trick = { leader: done.plays[0][0], plays: done.plays, winner: done.winner, points: done.points, cancelled: done.cancelled };
  pub.tricks_played = (pub.tricks_played || 0) + 1;
  pub.cards_left = pub.cards_left.map(() => 0);
  if (done.winner !== null) pub.points_taken[done.winner] += done.points;
  shown.awaiting = [];
  shown.illegal = {};
  shown.events = events.slice(0, at + 1);
  if (shown.view) shown.view = { ...shown.view, phase: "done", to_play: null, trick: null, hand: [], legal: [] };
  return { shown, after: { ...next, events: events.slice(at + 1) } };
}

function draw(next) {
  playing = null; // whatever the answer, the table as the server says it is now
  const previous = state;
  const held = lastTrickFirst(previous, next);
  if (held) {
    queue.unshift(held.after);
    next = held.shown;
  }
  state = next;
  shown += 1;
  root.dataset.seq = String(shown);
  root.dataset.version = String(next.table.version);
  root.setAttribute("aria-busy", "false");
  root.dataset.mode = next.table.mode;
  root.dataset.tableStatus = next.table.status;
  el.error.hidden = true;
  const events = next.events || [];
  if (events.some((e) => e.type === "trick_done")) pausedUntil = Date.now() + (TRICK_PAUSE_MS[next.table.pace] || TRICK_PAUSE_MS.normal);
  if (previous) playSounds(next, events);
  if (previous && previous.public.hand_number !== next.public.hand_number) selected = new Set();
  if (!next.view || !next.view.must_pass) selected = new Set();
  const done = events.find((e) => e.type === "hand_done");
  if (done) summaryHand = done.hand_number;
  else if (!previous) summaryHand = summaryOnOpen(next);
  else if (summaryHand !== null && next.public && next.public.hand_number > summaryHand && next.public.tricks_played > 0) summaryHand = null;
  render(previous);
  if (events.some((e) => e.type === "passes_exchanged")) arrive(previous, next);
  announce(previous, next, events);
  autoplaySoon();
}

/** The cards passed to this seat come from the seat that passed them (the one as far on the
 * other side as this seat's own pass went). */
function arrive(previous, next) {
  const view = next.view;
  if (!view || !previous || previous.pass_to === null || previous.pass_to === undefined) return;
  const n = next.table.seats.length;
  const giver = (2 * view.seat - previous.pass_to + 2 * n) % n;
  const received = new Set(view.received || []);
  receiveCards(el.felt, [...el.hand.querySelectorAll("[data-card]")].filter((c) => received.has(c.dataset.card)), giver);
}

/** The sound of what just happened (the biggest of it): a hand done, a trick, a card (this
 * seat's own card sounded when it was tapped). */
function playSounds(next, events) {
  const on = el.sounds.checked;
  const mine = next.view ? next.view.seat : null;
  if (events.some((e) => e.type === "hand_done")) sound("hand", on);
  else if (events.some((e) => e.type === "trick_done")) sound("trick", on);
  else if (events.some((e) => e.type === "played" && e.seat !== mine)) sound("card", on);
}

/** The seats held here that the computers wait for before the next hand (none: no wait). */
function waitedHere(s = state) {
  const between = s && s.public && s.public.next_hand;
  return between ? between.waiting.filter((seat) => s.you.includes(seat)) : [];
}

/** With "play the only card" on, a turn with one legal card plays it after a moment (shown
 * moving like a tapped card); never with two or more, nor under the hand summary. */
function autoplaySoon() {
  clearTimeout(autoTimer);
  const view = state && state.view;
  if (!el.autoplay.checked || !view || view.phase !== "play" || view.to_play !== view.seat) return;
  if (view.legal.length !== 1 || playing !== null || !el.summary.hidden) return;
  const version = state.table.version;
  autoTimer = setTimeout(() => {
    const now = state && state.view;
    if (!now || state.table.version !== version || now.legal.length !== 1 || playing !== null) return;
    const card = el.hand.querySelector(`[data-card="${now.legal[0]}"]`);
    if (card) tapCard(card);
  }, AUTOPLAY_MS);
}

/** This seat's turn, as a hint is valid for it: the hand, its phase, the tricks played (other
 * seats' passes meanwhile change nothing of it). */
function turnKey(s) {
  const pub = s.public;
  return `${s.table.version === undefined ? "" : pub.hand_number}:${pub.phase}:${pub.tricks_played}:${pub.trick ? pub.trick.plays.length : 0}`;
}

/** The hand in the order the player chose (suits, then ranks up or down). */
function sortedHand(hand) {
  const suits = SUIT_ORDERS[el.order.value] || SUIT_ORDERS.cdsh;
  const down = el.rank.value === "down";
  const key = (code) => suits.indexOf(code.slice(-1)) * 20 + (down ? 12 - RANKS.indexOf(code.slice(0, -1)) : RANKS.indexOf(code.slice(0, -1)));
  return [...hand].sort((a, b) => key(a) - key(b));
}

function announce(previous, next, events) {
  const lines = eventTexts(next, events);
  const turn = statusText(next);
  const before = previous ? statusText(previous) : "";
  if (turn !== before) lines.push(turn);
  if (lines.length) el.live.textContent = lines.join(". ");
}

function render(previous = state) {
  const s = state;
  el.status.textContent = statusText(s);
  // a match's code deals every hand: the server sends it only once the match is over
  el.code.textContent = s.table.code || "";
  el.codeLine.hidden = !s.table.code;
  const lobby = s.table.status === "lobby";
  el.lobby.hidden = !lobby;
  if (lobby) renderLobby();
  // (a shared device between hands: the next person's cover first; behind it the summary, whose
  // "next hand" the person's pass also says)
  const coverSeats = !s.view && s.table.status === "playing" ? awaitingHere(s) : [];
  renderCover(coverSeats);
  el.board.hidden = lobby;
  if (!lobby) renderBoard(previous);
  renderOver();
  el.sheet.replaceChildren(sheetTable(s));
  renderElsewhere();
  renderPace();
  el.leave.hidden = !s.you.length || s.table.status === "over";
}

/** The table's pace: anyone here may change it, online only the host (the others see it). */
function renderPace() {
  const s = state;
  const mayChange = s.you.length > 0 && (s.table.mode !== "online" || s.table.host);
  el.pace.value = s.table.pace || "normal";
  el.pace.disabled = !mayChange;
  el.paceNote.hidden = mayChange || s.table.mode !== "online";
}

/** The link of each seat held here, to play it on another device. */
function renderElsewhere() {
  const s = state;
  const held = s.table.status === "over" ? [] : s.you.filter((seat) => tokenFor(seat));
  el.elsewhere.hidden = held.length === 0;
  const key = JSON.stringify(held.map((seat) => [seat, tokenFor(seat), seatName(s, seat)]));
  if (el.seatLinks.dataset.key === key) return; // keep a selection the person is making
  el.seatLinks.dataset.key = key;
  el.seatLinks.replaceChildren(
    ...held.map((seat) => {
      const id = `seat-link-${seat}`;
      const label = document.createElement("label");
      label.htmlFor = id;
      label.textContent = held.length === 1 ? t("hearts.elsewhere.link_one") : t("hearts.elsewhere.link", { name: seatName(s, seat) });
      const row = document.createElement("div");
      row.className = "ht-copy";
      const input = document.createElement("input");
      input.id = id;
      input.readOnly = true;
      input.dataset.seatLink = String(seat);
      input.value = `${location.origin}/hearts/table/${encodeURIComponent(tableId)}#seat=${encodeURIComponent(tokenFor(seat))}`;
      const copy = document.createElement("button");
      copy.type = "button";
      copy.className = "btn small";
      copy.dataset.copy = id;
      copy.textContent = t("hearts.lobby.copy");
      row.append(input, copy);
      const item = document.createElement("div");
      item.append(label, row);
      return item;
    }),
  );
}

function renderCover(seats) {
  if (!seats.length) {
    el.cover.hidden = true;
    root.inert = false;
    document.body.classList.remove("covered");
    return;
  }
  const seat = seats[0];
  const name = seatName(state, seat);
  el.cover.dataset.seat = String(seat);
  el.cover.querySelector("[data-cover-title]").textContent = t("hearts.cover.title", { name });
  el.look.textContent = t("hearts.cover.show", { name });
  const wasHidden = el.cover.hidden;
  el.cover.hidden = false;
  root.inert = true; // nothing behind the cover can be reached, by touch or by keyboard
  document.body.classList.add("covered");
  if (wasHidden) el.look.focus();
}

function renderLobby() {
  const s = state;
  const base = location.origin;
  el.lobby.querySelector("[data-invite-url]").value = s.table.invite_url ? base + s.table.invite_url : "";
  el.lobby.querySelector("[data-invite-code]").value = s.table.invite || "";
  el.lobby.querySelector("[data-lobby-hints]").textContent = t(s.table.hints ? "hearts.lobby.hints_on" : "hearts.lobby.hints_off");
  const list = el.lobby.querySelector("[data-lobby-seats]");
  list.replaceChildren();
  s.table.seats.forEach((info, seat) => {
    const li = document.createElement("li");
    li.dataset.seat = String(seat);
    li.dataset.kind = info.kind;
    const name = document.createElement("span");
    name.className = "ht-name";
    if (info.kind === "open") name.textContent = t("hearts.lobby.open");
    else name.textContent = nameWithMark(s, seat);
    const what = document.createElement("span");
    what.className = "ht-tags";
    if (info.kind === "computer") what.textContent = `⚙ ${t("hearts.kind.computer")}${info.level ? ` · ${t(`hearts.level.${info.level}`)}` : ""}`;
    else if (info.kind === "open") what.textContent = t("hearts.lobby.open_help");
    else what.textContent = presence(info) === "here" ? `● ${t("hearts.lobby.here")}` : `○ ${t("hearts.badge.offline")}`;
    li.append(name, what);
    if (s.table.host && info.kind === "human" && !s.you.includes(seat) && (!info.connected || info.away)) {
      const free = document.createElement("button");
      free.type = "button";
      free.className = "btn small";
      free.dataset.free = String(seat);
      // before the start a freed seat becomes empty (during a match a computer takes it)
      free.textContent = t("hearts.free_seat");
      li.append(free);
    }
    list.append(li);
  });
  el.lobby.querySelector("[data-start]").hidden = !s.table.host;
  el.lobby.querySelector("[data-lobby-wait]").hidden = Boolean(s.table.host);
}

function renderBoard(previous) {
  const s = state;
  const n = s.table.seats.length;
  const me = mySeat(s);
  // this screen's seat at the bottom (a screen without one: seat 1 there); the others clockwise
  const bottom = me === null ? 0 : me;
  root.style.setProperty("--players", String(n));
  root.classList.toggle("many", n > 5);
  el.felt.dataset.players = String(n);
  const chipOptions = { host: Boolean(s.table.host), onFree: true };
  const plates = [];
  // in playing order from the seat after the bottom one (left, across, right), the bottom last
  for (let i = 1; i <= n; i++) {
    const seat = (bottom + i) % n;
    const plate = seatChip(s, seat, seat === me ? {} : chipOptions);
    plate.classList.toggle("mine", seat === me);
    plate.classList.toggle("bottom", seat === bottom);
    place(plate, seatAngle(seat, bottom, n));
    plates.push(plate);
  }
  el.seats.replaceChildren(...plates);
  layoutFelt();
  el.info.textContent = infoText(s);
  renderTrick(bottom, n, Boolean(previous && previous !== s));
  renderArrow(bottom, n);
  renderLast();
  renderSummary();
  renderWait();
  renderHand();
}

/** Where the board starts (it fills the window below, so the hand ends on the first screen)
 * and how tall the tallest plate is and how wide the widest (the plates are placed so that
 * none reaches past the felt's edge; on a short, wide felt the trick keeps clear of them). */
function layoutFelt() {
  if (el.board.hidden) return;
  // every size is read before anything is written, so the page lays out once, not per write
  const top = el.board.getBoundingClientRect().top + window.scrollY;
  const onEdge = (plate, axis) => Math.abs(Number(plate.style.getPropertyValue(axis))) > 0.999;
  const plates = [...el.seats.children].map((plate) => ({
    width: plate.offsetWidth,
    height: plate.offsetHeight,
    side: onEdge(plate, "--bx"),
    end: onEdge(plate, "--by"),
  }));
  root.style.setProperty("--board-top", `${Math.round(top)}px`);
  const tallest = Math.max(0, ...plates.map((plate) => plate.height));
  if (tallest) el.felt.style.setProperty("--ph", `${tallest}px`);
  // the bands the plates keep to on a short, wide felt (place() in hearts-felt.js): as wide as
  // the widest plate at the left and right edges, as tall as the tallest at the top and bottom
  const sides = plates.filter((plate) => plate.side).map((plate) => plate.width);
  const ends = plates.filter((plate) => plate.end).map((plate) => plate.height);
  el.felt.style.setProperty("--band-w", `${Math.max(0, ...sides)}px`);
  el.felt.style.setProperty("--band-h", `${Math.max(0, ...ends)}px`);
}
window.addEventListener("resize", () => {
  if (state) layoutFelt();
});

/** The trick on the felt, each card in front of its player; new cards slide in from their
 * player, and a taken trick gathers to its winner when the felt moves on from it. */
function renderTrick(bottom, n, moving) {
  const { figures, note, winner, finished } = trickElement(state);
  for (const figure of figures) place(figure, seatAngle(Number(figure.dataset.seat), bottom, n));
  const key = `${bottom}/${finished ? "done" : "open"}/${figures.map((f) => f.dataset.play + f.firstChild.getAttribute("aria-label")).join("|")}`;
  el.trickNote.textContent = note;
  if (key === el.trick.dataset.key) return; // the same cards: a running slide is left alone
  const old = [...el.trick.querySelectorAll(".ht-play")];
  const seen = new Set(old.map((f) => f.dataset.play));
  if (moving && el.trick.dataset.finished === "1") gather(el.felt, el.ghosts, old, el.trick.dataset.winner === "" ? null : Number(el.trick.dataset.winner));
  el.trick.replaceChildren(...figures);
  el.trick.dataset.key = key;
  el.trick.dataset.finished = finished ? "1" : "0";
  el.trick.dataset.winner = winner === null || winner === undefined ? "" : String(winner);
  if (moving) slideIn(el.felt, figures.filter((f) => !seen.has(f.dataset.play)));
}

/** During the pass: an arrow in the middle of the felt towards the seat that receives it. */
function renderArrow(bottom, n) {
  const s = state;
  const target = s.view && s.view.phase === "pass" && s.public.pass_direction !== "hold" ? s.pass_to : null;
  const show = target !== null && target !== undefined;
  el.arrow.hidden = !show;
  if (!show) return;
  pointArrow(el.arrow, seatAngle(target, bottom, n));
  el.arrowName.textContent = seatName(s, target);
}

/** The "last trick" button (while a trick of this hand has been taken) and its view. */
function renderLast() {
  const s = state;
  const last = s.table.status === "playing" ? s.public.last_trick : null;
  el.lastOpen.hidden = !last;
  if (!last) lastShown = false;
  el.lastOpen.setAttribute("aria-expanded", String(lastShown));
  el.last.hidden = !lastShown;
  if (!lastShown) return;
  el.lastCards.replaceChildren(...trickFigures(s, last, { finished: true, captions: true }));
  el.lastNote.textContent = trickNote(s, last);
}

/** Between hands: the summary of the hand just finished, over the felt, until "next hand". */
function renderSummary() {
  const s = state;
  const show = hasSummary(s, summaryHand);
  el.summary.hidden = !show;
  el.felt.classList.toggle("covered-by-summary", show);
  if (!show) return;
  el.summaryTitle.textContent = t("hearts.summary.title", { n: summaryHand + 1 });
  const moon = moonLine(s, summaryHand);
  el.summaryMoon.textContent = moon;
  el.summaryMoon.hidden = !moon;
  const parts = [summaryTable(s, summaryHand)];
  if (s.public.kitty_size) {
    const note = document.createElement("p");
    note.className = "ht-summary-note";
    note.textContent = t("hearts.summary.kitty");
    parts.push(note);
  }
  el.summaryRows.replaceChildren(...parts);
  el.summaryNext.textContent = t(s.over ? "hearts.summary.close" : "hearts.summary.next");
}

/** Who the computers wait for between hands, in words (online with the seconds left), in the
 * summary and, once this screen said "next hand", on the line under the table. */
function renderWait() {
  clearTimeout(waitTimer);
  const s = state;
  const between = s && s.table.status === "playing" && s.public ? s.public.next_hand : null;
  const text = between ? waitText(s, between) : "";
  const inSummary = !el.summary.hidden;
  el.summaryWait.textContent = inSummary ? text : "";
  el.summaryWait.hidden = !inSummary || !text;
  el.waitLine.textContent = inSummary ? "" : text;
  el.waitLine.hidden = inSummary || !text;
  if (text && between.deadline_ms) waitTimer = setTimeout(renderWait, 1000);
}

function waitText(s, between) {
  const mine = waitedHere(s);
  // a person who dropped out is not waited for (a computer plays for them)
  const others = between.waiting.filter((seat) => !s.you.includes(seat) && !s.table.seats[seat].away);
  if (!between.deadline_ms) return mine.length ? t("hearts.summary.wait_you") : "";
  const names = [...mine, ...others].map((seat) => seatName(s, seat)).join(", ");
  // the server's deadline, read on this clock: never more than the whole wait, never below 0
  const left = Math.max(0, Math.min(between.timer_ms, between.deadline_ms - Date.now()));
  if (!mine.length) return others.length ? t("hearts.summary.ready", { names: others.map((seat) => seatName(s, seat)).join(", ") }) : "";
  return t("hearts.summary.wait_timer", { names, s: Math.ceil(left / 1000) });
}

function renderHand() {
  const s = state;
  const view = s.view;
  const hadFocus = el.hand.contains(document.activeElement);
  el.hand.replaceChildren(); // a seat's cards never stay in the page once its view is gone
  el.reason.hidden = true;
  el.pass.hidden = true;
  el.hint.hidden = true;
  el.prompt.textContent = "";
  el.hand.classList.remove("passing");
  renderMoon();
  if (!view) return;
  const passing = view.phase === "pass" && view.must_pass;
  const myTurn = view.phase === "play" && view.to_play === view.seat;
  const legal = new Set(view.legal);
  const illegal = s.illegal || {};
  const received = view.tricks.length === 0 ? new Set(view.received) : new Set();
  // the cards passed stay in the view until everyone has passed: marked, so the pass shows
  const passedOut = view.phase === "pass" && !view.must_pass ? new Set(view.passed || []) : new Set();
  const hint = new Set(hinted && hinted.turn === turnKey(s) ? hinted.cards : []);
  el.hint.hidden = !s.table.hints || !(passing || myTurn);
  el.hand.style.setProperty("--n", String(view.hand.length));
  el.hand.classList.toggle("passing", passing);
  const rows = handRows(view.hand.length);
  const perRow = Math.ceil(view.hand.length / rows);
  el.hand.classList.toggle("rows", rows > 1);
  el.hand.dataset.rows = String(rows);
  let row = el.hand;
  sortedHand(view.hand).forEach((code, index) => {
    if (rows > 1 && index % perRow === 0) {
      row = document.createElement("div");
      row.className = "ht-hand-row";
      row.style.setProperty("--n", String(Math.min(perRow, view.hand.length - index)));
      el.hand.append(row);
    }
    const labelParts = [cardLabel(code)];
    const card = cardElement(code, { button: true });
    if (received.has(code)) {
      card.classList.add("received");
      labelParts.push(t("hearts.card.received"));
    }
    if (passedOut.has(code)) {
      card.classList.add("passed-out");
      labelParts.push(t("hearts.card.passed"));
    }
    if (hint.has(code)) {
      card.classList.add("hinted");
      labelParts.push(t("hearts.card.hint"));
    }
    if (passing) {
      const on = selected.has(code);
      card.classList.toggle("selected", on);
      card.setAttribute("aria-pressed", String(on));
    } else if (myTurn && !legal.has(code)) {
      card.classList.add("illegal");
      card.setAttribute("aria-disabled", "true");
      labelParts.push(t("hearts.card.illegal"));
    } else if (myTurn) {
      card.classList.add("legal");
    }
    card.setAttribute("aria-label", labelParts.join(", "));
    card.tabIndex = -1;
    row.append(card);
  });
  // one tab stop for the whole hand; arrows move inside it
  const cards = [...el.hand.querySelectorAll("[data-card]")];
  const keep = cards.find((c) => c.dataset.card === focusCard) || cards.find((c) => c.classList.contains("legal")) || cards[0];
  if (keep) keep.tabIndex = 0;
  if (hadFocus && keep) keep.focus();
  if (passing) {
    el.prompt.textContent = passText(s);
    updatePassButton();
  } else if (view.phase === "pass") {
    el.prompt.textContent = t("hearts.prompt.passed");
  } else if (myTurn) {
    el.prompt.textContent = t("hearts.prompt.play");
  }
}

/** The shooter's choice of how the moon scores (only on the shooter's own screen). */
function renderMoon() {
  const s = state;
  const view = s.view;
  const asked = Boolean(view && view.phase === "moon" && view.shooter === view.seat && s.awaiting.includes(view.seat));
  const wasHidden = el.moon.hidden;
  el.moon.hidden = !asked;
  if (!asked) return;
  const n = moonPoints(s);
  const me = view.seat;
  for (const button of el.moon.querySelectorAll("[data-moon-choice]")) {
    const choice = button.dataset.moonChoice;
    const points = view.moon_options[choice] || [];
    const rules = view.rules;
    // the engine's exactly-100 reset: a total landing on the target drops to half of it
    const add = (before, seat) => before + (points[seat] || 0);
    const totals = view.scores.map(add).map((total) => (rules.exactly_100_reset && total === rules.target ? Math.floor(rules.target / 2) : total));
    const other = Math.min(...totals.filter((_, seat) => seat !== me));
    button.querySelector(".ht-moon-main").textContent = t(choice === "self_minus_26" ? "hearts.moon.self" : "hearts.moon.others", { n });
    button.querySelector(".ht-moon-after").textContent = t("hearts.moon.after", { you: totals[me], other });
  }
  if (wasHidden) el.moon.querySelector("[data-moon-choice]").focus();
}

/** How many rows the hand needs so that every overlapped card shows a strip to tap. */
function handRows(count) {
  const width = el.hand.clientWidth;
  // a card's width is the stylesheet's (--cw, which depends on the window): measured
  const probe = document.createElement("span");
  probe.style.cssText = "position:absolute;visibility:hidden;width:var(--cw)";
  el.hand.append(probe);
  const card = probe.getBoundingClientRect().width;
  probe.remove();
  if (!width || !card || count < 2) return 1;
  const fits = Math.max(1, Math.floor((width - card) / CARD_STRIP_PX) + 1);
  return Math.min(4, Math.ceil(count / fits));
}

// a change of width (a turned phone, zoom) redraws the hand when it needs other rows
new ResizeObserver(() => {
  if (!state || !state.view || !el.hand.childElementCount) return;
  if (handRows(state.view.hand.length) !== Number(el.hand.dataset.rows || 1)) renderHand();
}).observe(el.hand);

function updatePassButton() {
  const n = state.view.rules.pass_count;
  el.pass.hidden = false;
  el.pass.disabled = selected.size !== n;
  el.pass.textContent = t("hearts.pass_button", { n: selected.size, total: n });
}

function renderOver() {
  const over = state.over;
  el.over.hidden = !over;
  if (!over) return;
  const names = over.winners.map((seat) => seatName(state, seat));
  el.over.querySelector("[data-over-title]").textContent =
    over.winners.length === 1 ? t("hearts.over.one", { name: names[0] }) : t("hearts.over.many", { names: names.join(", ") });
  el.over.querySelector("[data-rematch]").hidden = !actingToken();
  el.replay.href = state.table.replay_url || "";
  el.replay.closest("p").hidden = !state.table.replay_url;
  el.sheetBox.open = true;
}

function say(text) {
  el.reason.textContent = text;
  el.reason.hidden = false;
}

/** Send an intent for this table with the version drawn; draw what comes back. */
async function send(message) {
  if (!state) return;
  const token = actingToken();
  pausedUntil = 0; // the player acts: no reason to hold back newer states
  drain();
  try {
    const reply = await conn.request({ ...message, table: tableId, token, version: state.table.version });
    accept(reply, true);
  } catch (error) {
    failed(error);
  }
}

function failed(error) {
  const reply = error.reply || {};
  if (playing !== null) {
    // the card drawn in the trick goes back to the hand (a stale intent redraws below)
    playing = null;
    if (state) render(state);
  }
  if (error.code === "stale" && reply.state) {
    accept(reply.state, true);
    say(t("hearts.err.stale"));
    return;
  }
  if (error.code === "illegal" && reply.reason) {
    say(t(`hearts.reason.${reply.reason}`));
    return;
  }
  if (error.code === "in_use") {
    showNotice(error.message || t("hearts.err.in_use"));
    return;
  }
  const text = error.code === "offline" ? t("game.offline") : error.message || t("hearts.err.generic");
  if (!opened) {
    root.setAttribute("aria-busy", "false");
    el.status.textContent = "";
    showError(text);
    const link = document.createElement("a");
    link.href = "/hearts";
    link.textContent = ` ${t("hearts.new_table")}`;
    if (error.code !== "offline") el.error.append(link);
  } else say(text);
}

function tapCard(card) {
  const code = card.dataset.card;
  focusCard = code;
  const view = state.view;
  if (view.phase === "pass" && view.must_pass) {
    if (selected.has(code)) selected.delete(code);
    else if (selected.size < view.rules.pass_count) selected.add(code);
    else {
      say(t("hearts.reason.pass_full", { n: view.rules.pass_count }));
      return;
    }
    card.classList.toggle("selected", selected.has(code));
    card.setAttribute("aria-pressed", String(selected.has(code)));
    el.reason.hidden = true;
    updatePassButton();
    return;
  }
  if (playing !== null) return; // a card is on its way: the answer decides what comes next
  if (view.phase !== "play" || view.to_play !== view.seat) {
    say(t(view.phase === "play" ? "hearts.reason.not_your_turn" : "hearts.reason.wrong_phase"));
    return;
  }
  if (!view.legal.includes(code)) {
    const reason = (state.illegal || {})[code];
    say(t(`hearts.reason.${reason || "must_follow_suit"}`));
    return;
  }
  el.reason.hidden = true;
  clearTimeout(autoTimer);
  sound("card", el.sounds.checked);
  showPlayed(code);
  send({ type: "hearts.play", card: code });
}

/** A legal card goes into the trick at once, before the server's answer (a round trip on a
 * phone is 150 ms or more): the card moves from the hand to its place in front of this seat,
 * and nothing else is decided here — who plays next and who takes the trick come with the
 * answer, which redraws the table (or, refused, puts the card back with its reason). */
function showPlayed(code) {
  const real = state;
  const seat = real.view.seat;
  const pub = real.public;
  const open = pub.trick && pub.trick.plays.length ? pub.trick : { leader: seat, plays: [], winner: null, points: 0, cancelled: [] };
  const trick = { ...open, plays: [...open.plays, [seat, code]] };
  playing = code;
  state = {
    ...real,
    public: { ...pub, trick },
    view: { ...real.view, hand: real.view.hand.filter((card) => card !== code), legal: [], trick },
  };
  try {
    render(real);
  } finally {
    state = real; // the state the server sent stays the base of its patches and of every intent
  }
}

el.hand.addEventListener("click", (event) => {
  const card = event.target.closest("[data-card]");
  if (card && state && state.view) tapCard(card);
});
el.hand.addEventListener("keydown", (event) => {
  const cards = [...el.hand.querySelectorAll("[data-card]")];
  const index = cards.indexOf(document.activeElement);
  if (index < 0) return;
  const moves = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
  let next = null;
  if (event.key in moves) next = (index + moves[event.key] + cards.length) % cards.length;
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = cards.length - 1;
  if (next === null) return;
  event.preventDefault();
  cards[index].tabIndex = -1;
  cards[next].tabIndex = 0;
  cards[next].focus();
  focusCard = cards[next].dataset.card;
});
el.moon.addEventListener("click", (event) => {
  const button = event.target.closest("[data-moon-choice]");
  if (button && state && state.view && state.view.phase === "moon") send({ type: "hearts.moon", choice: button.dataset.moonChoice });
});
el.hint.addEventListener("click", () => {
  if (!state || !state.view) return;
  const turn = turnKey(state);
  conn
    .request({ type: "hearts.hint", table: tableId, token: actingToken(), version: state.table.version })
    .then((reply) => {
      if (!state || turnKey(state) !== turn) return; // this turn is over meanwhile
      hinted = { turn, cards: reply.cards };
      renderHand();
      const cards = reply.cards.map(cardLabel).join(", ");
      say(t(state.view.phase === "pass" ? "hearts.hint_pass" : "hearts.hint_says", { cards }));
    })
    .catch(failed);
});
el.pass.addEventListener("click", () => {
  if (selected.size !== state.view.rules.pass_count) return;
  const leaving = [...el.hand.querySelectorAll("[data-card]")].filter((c) => selected.has(c.dataset.card));
  sendCards(el.felt, leaving, state.pass_to);
  send({ type: "hearts.pass", cards: [...selected] });
});
el.look.addEventListener("click", () => {
  const seat = Number(el.cover.dataset.seat);
  const token = tokenFor(seat);
  conn
    .request({ type: "hearts.look", table: tableId, token })
    .then((reply) => accept(reply, true))
    .catch(failed);
});
root.addEventListener("click", (event) => {
  const free = event.target.closest("[data-free]");
  if (free) send({ type: "hearts.free", seat: Number(free.dataset.free) });
  const copy = event.target.closest("[data-copy]");
  if (copy) copyField(document.getElementById(copy.dataset.copy));
});
$("start").addEventListener("click", () => send({ type: "hearts.start" }));
$("rematch").addEventListener("click", () => {
  summaryHand = null;
  send({ type: "hearts.rematch" });
});
el.lastOpen.addEventListener("click", () => {
  lastShown = !lastShown;
  renderLast();
  if (lastShown) el.lastClose.focus();
});
el.last.addEventListener("keydown", (event) => {
  if (event.key === "Escape") el.lastClose.click();
});
el.lastClose.addEventListener("click", () => {
  lastShown = false;
  renderLast();
  el.lastOpen.focus();
});
el.summaryNext.addEventListener("click", () => {
  summaryHand = null;
  renderSummary();
  renderWait();
  // the computers wait for this: the server hears it (and the table goes on)
  if (waitedHere().length) {
    conn
      .request({ type: "hearts.next", table: tableId, token: tokenFor(waitedHere()[0]) })
      .then((reply) => accept(reply, true))
      .catch(failed);
  }
  autoplaySoon();
  // on to the next hand: the focus goes to the hand when there is one to choose from
  const card = el.hand.querySelector('[tabindex="0"]');
  if (card) card.focus();
  else el.status.focus({ preventScroll: true });
});

el.notice.querySelector("[data-play-here]").addEventListener("click", () => openTable(true));
el.leave.addEventListener("click", () => leave());

/** Leave the table after asking: a computer plays the seats held here from now on (in a
 * lobby they are free again); this browser forgets them. */
async function leave() {
  if (!state) return;
  const lobby = state.table.status === "lobby";
  if (!window.confirm(t(lobby ? "hearts.leave_confirm_lobby" : "hearts.leave_confirm"))) return;
  const held = state.you.map((seat) => tokenFor(seat)).filter(Boolean);
  try {
    for (const token of held) await conn.request({ type: "hearts.leave", table: tableId, token });
  } catch (error) {
    failed(error);
    return;
  }
  forgetTable(tableId);
  setTabHeld(tableId, false);
  location.assign("/hearts");
}

async function copyField(input) {
  const done = input.closest("[data-copy-box]").querySelector("[data-copied]");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select(); // no clipboard permission: leave it selected for the person to copy
  }
  done.textContent = t("hearts.lobby.copied");
}

// a shared device: a page put away (the back button, a closed tab) keeps no hand in its DOM, and
// its connection goes too, so a page the browser brings back from its cache asks for the table
// afresh and shows the cover, never the last person's cards
window.addEventListener("pagehide", () => {
  if (!state || state.table.mode !== "hotseat") return;
  if (state.view) draw({ ...state, view: null, illegal: {}, events: [] });
  if (conn.socket) conn.socket.close();
});

// the table's settings: remembered in this browser (the pace is the table's: its host's online)
el.autoplay.checked = setting("autoplay", "1") === "1";
el.sounds.checked = setting("sounds", "0") === "1";
el.order.value = setting("order", "cdsh");
el.rank.value = setting("rank", "up");
if (!el.order.value) el.order.value = "cdsh";
if (!el.rank.value) el.rank.value = "up";
el.autoplay.addEventListener("change", () => {
  saveSetting("autoplay", el.autoplay.checked ? "1" : "0");
  autoplaySoon();
});
el.sounds.addEventListener("change", () => {
  saveSetting("sounds", el.sounds.checked ? "1" : "0");
  sound("card", el.sounds.checked); // heard at once: the sounds are on (and allowed to play)
});
for (const select of [el.order, el.rank]) {
  select.addEventListener("change", () => {
    saveSetting(select === el.order ? "order" : "rank", select.value);
    if (state) renderHand();
  });
}
el.pace.addEventListener("change", () => {
  saveSetting("pace", el.pace.value);
  if (state && el.pace.value !== state.table.pace) send({ type: "hearts.pace", pace: el.pace.value });
});

el.status.tabIndex = -1; // where the focus goes when what held it goes away
el.four.checked = fourColour();
document.body.classList.toggle("four-colour", el.four.checked);
el.four.addEventListener("change", () => {
  saveFourColour(el.four.checked);
  document.body.classList.toggle("four-colour", el.four.checked);
});
