// The Heart to Heart page: sends taps, undo, new game and settings to the server over /ws and
// draws the game view it gets back. All rules, outlines and dimming come from the server; a tap
// is shown at once from what the server's last state says it would do (taps.js), and confirmed
// or rolled back by the server's answer. Offline, taps wait in order until the connection is
// back.

import { Board } from "./board.js";
import { closeDialog, openDialog, toast, wireCloseButtons } from "./dialogs.js";
import { cardName, formatTime, lang, t } from "./i18n.js";
import { PlayClock } from "./playclock.js";
import { Taps } from "./taps.js";
import { Connection } from "./ws.js";

const root = document.querySelector("[data-game]");
const status = root.querySelector("[data-status]");
const info = (name) => root.querySelector(`[data-info="${name}"]`);
const dialogs = {
  code: document.querySelector('[data-dialog="code"]'),
  settings: document.querySelector('[data-dialog="settings"]'),
  dead_end: document.querySelector('[data-dialog="dead_end"]'),
  won: document.querySelector('[data-dialog="won"]'),
  confirm_new: document.querySelector('[data-dialog="confirm_new"]'),
  confirm_restart: document.querySelector('[data-dialog="confirm_restart"]'),
  dead_deal: document.querySelector('[data-dialog="dead_deal"]'),
};
const confirmNewBody = dialogs.confirm_new.querySelector("#confirm-new-body");
const confirmNewText = confirmNewBody.textContent;
const undoButtons = document.querySelectorAll('[data-action="undo"]');
const undoLeft = root.querySelector("[data-undo-left]");
const announcer = root.querySelector("[data-announce]");
const offlineNote = root.querySelector("[data-offline-note]");
const offlineWaiting = root.querySelector("[data-offline-waiting]");
const dailyBadge = root.querySelector("[data-daily-badge]");

let game = null;
let settings = { move_errors: false, placement_help: true, winnable_only: false };
let started = false;
let shown = 0; // states drawn so far, exposed as data-seq for tests and tools
// a request that would leave the game under way, waiting for the player's yes: {send, id}
let pendingLeave = null;
// the player's statistics as they were when this game began: a win is a new best only when it
// beats them (once it is won, the server's figures include it)
let before = null;

const board = new Board(root, { interactive: true, onTap: (target) => tap(target) });
const conn = new Connection({
  lang,
  followNetwork: true,
  onReady: (welcome) => ready(welcome),
  // the note over the board says it (the status line would only repeat it); the clock stops
  onStatus: (online) => {
    setOffline(!online);
    if (!online) clock.disconnected();
  },
  onPush: (message) => {
    // another tab of this player moved, started a game or changed a setting
    if (message.type === "solitaire.state" && game) show({ ...message, event: {} });
    else if (message.type === "settings") settings = pickSettings(message);
  },
});

// taps and undos as intents: shown at once, sent in order, confirmed or rolled back
const taps = new Taps({
  conn,
  helped: () => settings.placement_help,
  draw: (view, { kind, pending }) => {
    const previous = drawn;
    paint(view, pending);
    if (kind && SAID_AT_ONCE.has(kind)) announce(describeEvent(previous, view, { kind }));
  },
  answer: (reply, { guess, quiet }) => {
    const kind = reply.event && reply.event.kind;
    show(reply, { said: quiet || (kind === guess && SAID_AT_ONCE.has(guess)) });
  },
  refused: (error, { guessed, fresh }) => rollBack(error, guessed, fresh),
  waiting: (n) => queueChanged(n),
});
// what a guessed tap says at once (a pair's points and a flip's card come with the answer)
const SAID_AT_ONCE = new Set(["selected", "reselected", "deselected"]);
// the view last drawn (the server's state, or a guess on top of it)
let drawn = null;
// intents were waiting when the connection came back: say when they are all through
let resending = false;

function setOffline(offline) {
  root.dataset.offline = String(offline);
  offlineNote.hidden = !offline;
  queueChanged(taps.queue.length);
}

function queueChanged(n) {
  root.dataset.pending = String(n > 0);
  root.dataset.waiting = String(n);
  offlineWaiting.textContent = n > 0 ? t("game.offline_waiting", { n }) : "";
  if (n === 0 && resending) {
    resending = false;
    status.textContent = t("game.back_online");
    announce(t("game.back_online"));
    setTimeout(() => {
      if (status.textContent === t("game.back_online")) status.textContent = "";
    }, 4000);
  }
}

/** A refused intent: the board goes back to the server's state, and the page says why. */
function rollBack(error, guessed, fresh) {
  if (fresh) show({ game: fresh, event: {} }, { said: true });
  else if (game) paintShown();
  // a tap the page did not guess (a finished game, a card gone) is simply ignored, as before
  if (!guessed && error && ["game_over", "bad_target"].includes(error.code)) return;
  const message = t("game.rolled_back", { message: error && error.message ? error.message : String(error) });
  toast(message);
  announce(message);
  const table = root.querySelector("[data-board]");
  table.classList.remove("rolled-back");
  void table.offsetWidth; // restart the animation
  table.classList.add("rolled-back");
}

// the play clock: the server's, paused while the page is hidden or offline
const clock = new PlayClock({ root, conn, show: (reply) => show(reply), report: (e) => report(e) });

function pickSettings(reply) {
  return {
    move_errors: reply.move_errors,
    placement_help: reply.placement_help,
    winnable_only: reply.winnable_only,
  };
}

function ready(welcome) {
  settings = { ...settings, ...welcome.settings };
  status.textContent = "";
  const first = !started;
  started = true;
  // the server is told first whether this page is looked at: then the game it sends is timed,
  // and the taps that wait here (made offline, or unanswered when the connection dropped) are
  // not taken for a look at a hidden page. They go next, in order and with their ids (the
  // server applies each once, and answers one connection's messages in order).
  const told = clock.connected().catch(() => {});
  if (taps.queue.length > 0) resending = true;
  taps.flush();
  told
    // back after a lost connection or a server restart: the server rebuilds the same game
    .then(() => (first ? start() : resume()))
    .catch(report);
}

async function start() {
  const params = new URLSearchParams(location.search);
  if (params.has("code") || params.has("new") || params.has("daily")) {
    // a reload (or the language link) must continue this game, not deal another one
    history.replaceState(null, "", location.pathname);
    const other = document.querySelector("[data-lang-switch]");
    if (other) other.href = `${location.pathname}?lang=${other.dataset.langSwitch}`;
    const code = params.get("code");
    try {
      // a link never drops a game under way: the server refuses, and the player is asked
      if (params.has("daily") && code === null) await newGame(null, "new", { daily: true });
      else await newGame(code, code === null ? "new" : "code");
      return;
    } catch (error) {
      report(error);
    }
  }
  if (!(await resume())) await newGame(null);
}

async function resume() {
  const reply = await conn.request({ type: "solitaire.resume" });
  if (reply.type !== "solitaire.state") return false;
  show(reply);
  return true;
}

/** New game from the toolbar or the N key (the server asks back if a game is under way). */
function askNewGame() {
  newGame(null).catch(report);
}

/** Deal a new game: of `code`, or a random deal (a winnable one when asked or when the setting
 * says). */
function newGame(code, question = "new", { winnable = false, daily = false } = {}) {
  return leaveWith(
    (leave) =>
      conn.request({
        type: "solitaire.new",
        code,
        winnable_only: winnable || settings.winnable_only,
        leave,
        ...(daily ? { daily: true } : {}),
      }),
    question,
    code,
  );
}

/** Deal the current game's code again, from the start. */
function restart() {
  if (!game) return;
  const id = game.id;
  leaveWith((leave) => conn.request({ type: "solitaire.restart", game: id, leave }), "restart")
    .catch(report);
}

/**
 * Send a request that starts another game. The server decides whether a game is under way: if
 * so it refuses (game_under_way), and the page shows that game and asks the player; only a yes
 * sends the request again, naming the game it leaves. Resolves true once a game was dealt.
 */
async function leaveWith(send, question, code = null) {
  try {
    const reply = await send(null);
    closeEndDialogs();
    show(reply);
    return true;
  } catch (error) {
    if (!error || error.code !== "game_under_way") throw error;
  }
  await resume(); // the game under way may be another tab's: show the one being asked about
  pendingLeave = { send, id: game.id };
  const dialog = question === "restart" ? dialogs.confirm_restart : dialogs.confirm_new;
  confirmNewBody.textContent =
    question === "code" && code ? t("confirm_code.body", { code: code.trim() }) : confirmNewText;
  openDialog(dialog, dialog.querySelector("[data-close]"));
  return false;
}

async function confirmLeave() {
  const pending = pendingLeave;
  pendingLeave = null;
  closeDialog(dialogs.confirm_new);
  closeDialog(dialogs.confirm_restart);
  if (!pending) return;
  closeDialog(dialogs.code);
  closeEndDialogs();
  show(await pending.send(pending.id));
}

function closeEndDialogs() {
  closeDialog(dialogs.dead_end);
  closeDialog(dialogs.dead_deal);
  closeDialog(dialogs.won);
}

function tap(target) {
  if (!game) return;
  taps.act({ type: "tap", target });
}

function undo() {
  if (!game) return;
  taps.act({ type: "undo" });
}

/** Say what a move did, politely (a screen reader reads it after what it is saying). */
function announce(text) {
  // the same words twice in a row (two flips of equal cards) must still be read
  announcer.textContent = announcer.textContent === text ? `${text}\u00a0` : text;
}

/** The words for what just happened, from the event and the two views around it. */
function describeEvent(previous, now, event) {
  const same = previous && previous.id === now.id;
  if (!same) return t("game.announce.new", { code: now.code });
  const chosen = (view) => {
    if (view.waste_top && view.waste_top.selected) return view.waste_top;
    return view.heart.find((card) => card && card.selected) || null;
  };
  switch (event.kind) {
    case "selected":
    case "reselected": {
      const card = chosen(now);
      return card ? t("game.announce.selected", { card: cardName(card.rank) }) : "";
    }
    case "deselected":
      return t("game.announce.deselected");
    case "paired": {
      const card = chosen(previous);
      const rank = card ? cardName(card.rank) : "";
      return t("game.announce.paired", { card: rank, score: now.score });
    }
    case "flipped":
      return t("game.announce.flipped", {
        card: now.waste_top ? cardName(now.waste_top.rank) : "",
        n: now.stock_count,
      });
    case "redealt":
      return t("game.announce.redealt");
    case "undone":
      return t("game.announce.undone");
    default:
      return "";
  }
}

function report(error) {
  // taps on a finished game or a vanished target are simply ignored, as on a real table
  if (error && ["game_over", "bad_target", "offline"].includes(error.code)) return;
  toast(t("game.error", { message: error && error.message ? error.message : String(error) }));
}

/** Draw a view: the server's state, or a guess on top of it (`pending`: targets whose card
 * the server has yet to show). */
function paint(view, pending = new Set()) {
  drawn = view;
  board.render(view);
  for (const el of root.querySelectorAll("[data-pos], [data-pile]")) {
    el.classList.toggle("pending", pending.has(el.dataset.pos || el.dataset.pile));
  }
  // the card a flip turns up is the server's to show: until then the waste says it waits
  if (pending.has("waste")) root.querySelector('[data-pile="waste"]').setAttribute("aria-label", t("game.pending"));
  info("score").textContent = String(view.score);
  info("moves").textContent = String(view.moves);
  info("code").textContent = view.code;
  // a won game is final; a dead end can be undone
  const canUndo = view.undo_left > 0 && view.outcome !== "won";
  for (const button of undoButtons) button.disabled = !canUndo;
  // the count shows only while there is something to undo (no "0" on a disabled button)
  undoLeft.hidden = !canUndo;
  undoLeft.querySelector("[data-undo-n]").textContent = String(view.undo_left);
  undoLeft.querySelector("[data-undo-spoken]").textContent = `, ${t("game.undo_left", { n: view.undo_left })}`;
}

function paintShown() {
  const { view, pending } = taps.shown();
  paint(view, pending);
}

/** A state from the server; `said`: its event was already told (a guessed selection, a
 * repeat, a rollback). */
function show(reply, { said = false } = {}) {
  const previous = game;
  game = reply.game;
  taps.setConfirmed(game);
  clock.update(game);
  root.setAttribute("aria-busy", "false");
  root.dataset.outcome = game.outcome;
  root.dataset.gameId = game.id;
  root.dataset.seq = String(++shown);
  root.dataset.daily = String(Boolean(game.daily));
  dailyBadge.hidden = !game.daily;
  paintShown();
  tick();

  const event = reply.event || {};
  if (event.message && !event.repeat) toast(event.message);
  else if (event.kind === "nothing_to_undo" && !event.repeat) toast(t("game.nothing_to_undo"));
  if (reply.event && !said) announce(event.message || describeEvent(previous, game, event));

  const changed = !previous || previous.id !== game.id || previous.outcome !== game.outcome;
  if (game.outcome === "playing" && (!before || before.id !== game.id)) {
    const id = game.id;
    before = { id, overall: null };
    conn.request({ type: "stats" }).then(
      (stats) => {
        if (before && before.id === id) before.overall = stats.overall;
      },
      () => {},
    );
  }
  root.dataset.underWay = String(Boolean(game.under_way));
  root.dataset.deadDeal = String(Boolean(game.dead_deal));
  if (game.dead_deal && changed) {
    // dead from the deal: nothing to undo, and it does not count
    openDialog(dialogs.dead_deal, dialogs.dead_deal.querySelector("[data-dialog-new]"));
  } else if (game.outcome === "dead_end" && !game.dead_deal && changed) {
    openDialog(dialogs.dead_end, dialogs.dead_end.querySelector("[data-dialog-undo]"));
  } else if (game.outcome !== "dead_end") {
    closeDialog(dialogs.dead_end);
    closeDialog(dialogs.dead_deal);
  }
  if (game.outcome === "won" && changed) {
    dialogs.won.querySelector('[data-win="time"]').textContent = formatTime(game.elapsed_ms);
    dialogs.won.querySelector('[data-win="moves"]').textContent = String(game.moves);
    dialogs.won.querySelector('[data-win="score"]').textContent = String(game.score);
    dialogs.won.querySelector("[data-win-best]").hidden = true;
    openDialog(dialogs.won, dialogs.won.querySelector("[data-dialog-new]"));
    showBest(game).catch(() => {
      // without the statistics the dialog still shows this game's figures
    });
  } else if (game.outcome !== "won") {
    closeDialog(dialogs.won);
  }
  // the first playable state is on the page (read by bench/site_first_frame.py)
  if (shown === 1) performance.mark("heartsuit:first-frame");
}

/** The player's best time, fewest moves and winning streak, from the server's statistics. */
async function showBest(won) {
  const reply = await conn.request({ type: "stats" });
  const overall = reply.overall;
  if (!game || game.id !== won.id || !overall) return;
  const box = dialogs.won.querySelector("[data-win-best]");
  const set = (selector, text) => {
    const el = box.querySelector(selector);
    el.textContent = text;
    el.hidden = !text;
  };
  const hasTime = overall.best_time_ms !== null && overall.best_time_ms !== undefined;
  const hasMoves = overall.fewest_moves !== null && overall.fewest_moves !== undefined;
  set("[data-win-best-time]", hasTime ? t("win.best_time", { time: formatTime(overall.best_time_ms) }) : "");
  set("[data-win-fewest]", hasMoves ? t("win.fewest", { n: overall.fewest_moves }) : "");
  set("[data-win-streak]", overall.current_streak > 0 ? t("win.streak", { n: overall.current_streak }) : "");
  const daily = won.daily && reply.daily && reply.daily.streak > 0 ? reply.daily.streak : 0;
  set("[data-win-daily]", daily ? t("win.daily_streak", { n: daily }) : "");
  // a new best beats the figures from before this game (a first win sets no record yet)
  const old = before && before.id === won.id ? before.overall : null;
  const beats = (value, record) => record !== null && record !== undefined && value < record;
  const best = Boolean(
    old && old.wins > 0 && (beats(won.elapsed_ms, old.best_time_ms) || beats(won.moves, old.fewest_moves)),
  );
  box.querySelector("[data-win-new-best]").hidden = !best;
  box.hidden = false;
}

function tick() {
  if (game) clock.draw();
}
setInterval(tick, 250);

// ---- buttons ----

for (const button of document.querySelectorAll('[data-action="undo"]')) {
  button.addEventListener("click", undo);
}
for (const button of document.querySelectorAll('[data-action="new"]')) {
  button.addEventListener("click", askNewGame);
}
for (const button of document.querySelectorAll('[data-action="restart"]')) {
  button.addEventListener("click", restart);
}
for (const button of document.querySelectorAll("[data-confirm-leave]")) {
  button.addEventListener("click", () => confirmLeave().catch(report));
}
dialogs.dead_deal
  .querySelector("[data-dialog-winnable]")
  .addEventListener("click", () => newGame(null, "new", { winnable: true }).catch(report));
root.querySelector('[data-action="share"]').addEventListener("click", share);
root.querySelector('[data-action="settings"]').addEventListener("click", openSettings);
dialogs.code.querySelector("[data-daily]").addEventListener("click", async () => {
  try {
    if (await newGame(null, "new", { daily: true })) closeDialog(dialogs.code);
  } catch (error) {
    report(error);
  }
});
root.querySelector('[data-action="code"]').addEventListener("click", () => {
  const input = dialogs.code.querySelector("[data-code-input]");
  input.value = "";
  setCodeError(null);
  openDialog(dialogs.code, input);
});
wireCloseButtons();

// ---- enter a code ----

function setCodeError(message) {
  const error = dialogs.code.querySelector("[data-code-error]");
  const input = dialogs.code.querySelector("[data-code-input]");
  error.hidden = !message;
  error.textContent = message || "";
  input.setAttribute("aria-invalid", message ? "true" : "false");
}

dialogs.code.querySelector("[data-code-form]").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = dialogs.code.querySelector("[data-code-input]");
  setCodeError(null);
  try {
    // the text as typed: an empty code is refused by the server, with its reason
    if (await newGame(input.value, "code")) closeDialog(dialogs.code);
  } catch (error) {
    setCodeError(error.message || String(error));
    input.focus();
    input.select();
  }
});

// ---- share ----

/** The link that opens this deal (in the reader's own language, so without ?lang=). */
function dealLink(code) {
  return `${location.origin}/heart-to-heart?code=${encodeURIComponent(code)}`;
}

async function share() {
  if (!game) return;
  const code = game.code;
  const url = dealLink(code);
  try {
    await navigator.clipboard.writeText(url);
    toast(t("share.copied", { code }), code);
    return;
  } catch {
    // no clipboard permission: fall back to the system share sheet, then to showing the link
  }
  try {
    if (navigator.share) {
      await navigator.share({ text: t("share.text", { code }), url });
      return;
    }
  } catch {
    // share sheet dismissed
  }
  toast(t("share.manual", { url }), code);
}

// ---- settings ----

function openSettings() {
  for (const box of dialogs.settings.querySelectorAll("[data-setting]")) {
    box.checked = Boolean(settings[box.dataset.setting]);
  }
  openDialog(dialogs.settings);
}

dialogs.settings.addEventListener("change", async (event) => {
  const box = event.target.closest("[data-setting]");
  if (!box) return;
  const wanted = { ...settings, [box.dataset.setting]: box.checked };
  try {
    const reply = await conn.request({ type: "settings", ...wanted });
    settings = pickSettings(reply);
    // the server applies placement help to the current game: fetch its new view
    if (game) await resume();
  } catch (error) {
    box.checked = !box.checked;
    report(error);
  }
});

// ---- keyboard shortcuts ----

document.addEventListener("keydown", (event) => {
  if (document.querySelector("dialog[open]")) return;
  if (event.target.closest("input, textarea, select")) return;
  if (clock.paused) return; // the board waits under the pause cover for "Resume"
  const key = event.key.toLowerCase();
  if ((event.ctrlKey || event.metaKey) && key === "z" && !event.shiftKey) {
    event.preventDefault();
    undo();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (key === "s") tap("stock");
  else if (key === "w" && game && game.waste_top) tap("waste");
  else if (key === "n") askNewGame();
  else if (key === "r") restart();
});
