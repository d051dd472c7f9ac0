// The Hearts start page: first the variant (and, folded, its rule options), with an intro
// that describes the variant chosen; then how to play: "Against the computer" creates the
// table at once (untouched, the standard game: two taps from the home page); "Same device"
// and "Online" first ask for the players; "More options" holds each computer's level and a
// game code to replay.

import { lang, t } from "./i18n.js";
import { keepTokens, saveName, savedName, setting } from "./hearts-store.js";
import { Connection } from "./ws.js";

const config = JSON.parse(document.getElementById("hearts-config").textContent);
const LEVELS = config.levels;
const DEFAULT_LEVEL = LEVELS.includes("normal") ? "normal" : LEVELS[LEVELS.length - 1];
const PRESET_PLAYERS = Object.fromEntries(config.presets);
// the preset letter of a game code (docs/hearts-rules.md "Game codes")
const CODE_PRESETS = { S: "standard", T: "three", F: "five", O: "omnibus", B: "black-maria" };
const CODE = /^HE1-(S|T|F|O|B|C(?:[6-9]|10))-[A-Z]{7}$/;

const form = document.querySelector("[data-hsetup]");
const errorBox = form.querySelector("[data-setup-error]");
const panel = form.querySelector("[data-panel]");
const seatList = panel.querySelector("[data-seats]");
const levelList = form.querySelector("[data-levels]");
const playersSelect = form.querySelector("[data-players-select]");
const codeInput = form.querySelector("[data-code]");
const intro = form.querySelector("[data-intro]");
const playersField = form.querySelector("[data-players-field]");
let mode = null; // the open panel: "hotseat" | "online" | null
let busy = false;

const conn = new Connection({
  lang,
  onStatus: (online) => {
    if (!online) showError(t("game.offline"));
    else errorBox.hidden = true;
  },
});

function showError(text) {
  errorBox.textContent = text;
  errorBox.hidden = false;
}

/** The preset and player count chosen, or the ones a valid game code implies. */
function chosen() {
  const code = codeInput.value.trim().toUpperCase();
  const match = CODE.exec(code);
  if (match) {
    const letter = match[1];
    if (letter.startsWith("C")) return { preset: "cancellation", players: Number(letter.slice(1)), code };
    return { preset: CODE_PRESETS[letter], players: PRESET_PLAYERS[CODE_PRESETS[letter]], code };
  }
  const preset = form.elements.preset.value;
  const players = preset === "cancellation" ? Number(playersSelect.value) : PRESET_PLAYERS[preset];
  return { preset, players, code: code ? null : "" };
}

function setWhy(name, text) {
  form.querySelector(`[data-why="${name}"]`).textContent = text;
}

/** Disable what the chosen preset or code decides, and say why next to it. */
function syncOptions() {
  const { preset, players, code } = chosen();
  const fromCode = Boolean(code);
  for (const radio of form.elements.preset) {
    radio.disabled = fromCode;
    radio.checked = radio.value === preset;
  }
  playersSelect.disabled = fromCode || preset !== "cancellation";
  if (preset === "cancellation") {
    for (const option of playersSelect.options) option.disabled = Number(option.value) < 6;
    if (Number(playersSelect.value) < 6) playersSelect.value = "6";
  }
  if (fromCode || preset !== "cancellation") playersSelect.value = String(players);
  // the player count is a choice only in Cancellation: elsewhere the intro says it
  playersField.hidden = preset !== "cancellation";
  describe();
  setWhy("players", fromCode ? t("hsetup.why.code") : preset === "cancellation" ? t("hsetup.why.players_cancellation") : t("hsetup.why.players_fixed"));
  const jack = form.elements.jack_of_diamonds;
  jack.disabled = preset === "omnibus";
  if (preset === "omnibus") jack.checked = true;
  setWhy("jack_of_diamonds", preset === "omnibus" ? t("hsetup.why.jack_omnibus") : "");
  const passing = form.elements.passing;
  passing.disabled = preset === "cancellation";
  if (preset === "cancellation") passing.checked = false;
  else if (passing.dataset.touched !== "1") passing.checked = true;
  setWhy("passing", preset === "cancellation" ? t("hsetup.why.passing_cancellation") : "");
  const spades = form.elements.spade_penalties;
  spades.disabled = preset !== "black-maria";
  if (preset !== "black-maria") spades.checked = false;
  setWhy("spade_penalties", preset === "black-maria" ? "" : t("hsetup.why.spades_black_maria"));
  setWhy("exactly_100_reset", "");
  setWhy("code", code === null ? t("hsetup.why.code_bad") : fromCode ? t("hsetup.why.code") : t("hsetup.code_help"));
  codeInput.setAttribute("aria-invalid", code === null ? "true" : "false");
  drawLevels(players);
  if (mode) drawSeats(players);
}

/** The intro: what the chosen variant is, and the score it is played to. */
function describe() {
  const { preset, players } = chosen();
  const target = Math.max(1, Math.round(Number(form.elements.target.value) || 100));
  intro.textContent = `${t(`hsetup.intro.${preset}`, { n: players })} ${t("hsetup.intro.target", { target })}`;
}

function levelSelect(seat, value) {
  const select = document.createElement("select");
  select.dataset.level = String(seat);
  select.setAttribute("aria-label", t("hsetup.level_for", { n: seat + 1 }));
  for (const level of LEVELS) {
    const option = new Option(t(`hearts.level.${level}`), level);
    option.selected = level === value;
    select.append(option);
  }
  return select;
}

function drawLevels(players) {
  const kept = new Map([...levelList.querySelectorAll("select")].map((s) => [s.dataset.level, s.value]));
  levelList.replaceChildren();
  for (let seat = 1; seat < players; seat++) {
    const item = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = t("hsetup.seat", { n: seat + 1 });
    item.append(label, levelSelect(seat, kept.get(String(seat)) || DEFAULT_LEVEL));
    levelList.append(item);
  }
}

/** The seat rows of the open panel: a name for each person, or "computer". */
function drawSeats(players) {
  const kept = new Map(
    [...seatList.querySelectorAll("li")].map((li) => [
      li.dataset.seat,
      { name: li.querySelector("input[type=text]").value, computer: li.querySelector("input[type=checkbox]")?.checked },
    ]),
  );
  seatList.replaceChildren();
  for (let seat = 0; seat < players; seat++) {
    const was = kept.get(String(seat));
    const item = document.createElement("li");
    item.dataset.seat = String(seat);
    const id = `hs-name-${seat}`;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = seat === 0 ? t("hsetup.your_name") : t("hsetup.seat", { n: seat + 1 });
    const name = document.createElement("input");
    name.type = "text";
    name.id = id;
    name.maxLength = 24;
    name.autocomplete = "off";
    name.value = was ? was.name : seat === 0 ? savedName() : "";
    name.placeholder = mode === "online" && seat > 0 ? t("hsetup.open_seat") : t("hsetup.player_n", { n: seat + 1 });
    if (mode === "online" && seat > 0) name.hidden = true;
    item.append(label, name);
    if (seat > 0) {
      const box = document.createElement("label");
      box.className = "hs-computer";
      const check = document.createElement("input");
      check.type = "checkbox";
      // same device: two people by default; online: every other seat open for a friend
      check.checked = was ? Boolean(was.computer) : mode === "hotseat" && seat > 1;
      check.addEventListener("change", () => {
        name.disabled = check.checked;
      });
      name.disabled = check.checked;
      box.append(check, document.createTextNode(` ${t("hsetup.computer_plays")}`));
      item.append(box);
      if (mode === "online" && seat > 0) {
        const open = document.createElement("span");
        open.className = "hs-open";
        open.textContent = t("hsetup.open_seat");
        item.insertBefore(open, box);
      }
    }
    seatList.append(item);
  }
}

function openPanel(which) {
  mode = which;
  panel.hidden = false;
  for (const button of form.querySelectorAll("[aria-controls=hs-panel]")) {
    button.setAttribute("aria-expanded", String(button.dataset.mode === which));
  }
  form.querySelector("[data-panel-title]").textContent = t(`hsetup.panel.${which}`);
  form.querySelector("[data-panel-help]").textContent = t(`hsetup.panel.${which}_help`);
  // hints are always there against the computer and on one device; online the table says
  form.querySelector("[data-hints-box]").hidden = which !== "online";
  form.querySelector("[data-start]").textContent = t(`hsetup.start.${which}`);
  seatList.replaceChildren();
  drawSeats(chosen().players);
  seatList.querySelector("input")?.focus();
}

function options(preset) {
  const el = form.elements;
  const out = {
    moon: el.moon.value,
    hearts_broken_by: el.hearts_broken_by.value,
    jack_of_diamonds: el.jack_of_diamonds.checked,
    exactly_100_reset: el.exactly_100_reset.checked,
    target: Math.max(1, Math.round(Number(el.target.value) || 100)),
  };
  if (preset !== "cancellation") out.passing = el.passing.checked;
  if (preset === "black-maria") out.spade_penalties = el.spade_penalties.checked;
  return out;
}

function levelOf(seat) {
  return levelList.querySelector(`[data-level="${seat}"]`)?.value || DEFAULT_LEVEL;
}

/** The computers' pace this player chose last at a table (remembered by the table page). */
function chosenPace() {
  const pace = setting("pace", "normal");
  return ["slow", "normal", "fast"].includes(pace) ? pace : "normal";
}

/** The hearts.create message for a mode, or a reason to refuse (a string). */
function createMessage(which) {
  const { preset, players, code } = chosen();
  if (code === null) return t("hsetup.why.code_bad");
  // a code anyone at the table may know would give every hand away: people play new cards
  if (code && which !== "computer") return t("hsetup.why.code_people");
  const rows = [...seatList.querySelectorAll("li")];
  const myName = (rows[0]?.querySelector("input").value || savedName()).trim();
  const seats = [{ kind: "human", name: myName || t("hsetup.you") }];
  for (let seat = 1; seat < players; seat++) {
    const row = rows[seat];
    const computer = which === "computer" || !row || row.querySelector("input[type=checkbox]").checked;
    if (computer) seats.push({ kind: "computer", level: levelOf(seat) });
    else if (which === "online") seats.push({ kind: "human" });
    else {
      const name = row.querySelector("input[type=text]").value.trim();
      seats.push({ kind: "human", name: name || t("hsetup.player_n", { n: seat + 1 }) });
    }
  }
  if (which === "hotseat" && seats.filter((s) => s.kind === "human").length < 2) return t("hsetup.why.two_people");
  if (myName) saveName(myName);
  const message = { type: "hearts.create", mode: which, preset, options: options(preset), seats, name: seats[0].name, pace: chosenPace() };
  if (preset === "cancellation") message.players = players;
  if (code) message.code = code;
  if (which === "online") message.hints = form.elements.hints.checked;
  return message;
}

async function create(which) {
  if (busy) return;
  const message = createMessage(which);
  if (typeof message === "string") {
    showError(message);
    return;
  }
  busy = true;
  errorBox.hidden = true;
  form.setAttribute("aria-busy", "true");
  try {
    await conn.ready;
    const reply = await conn.request(message);
    keepTokens(reply.table, reply.tokens || []);
    location.assign(`/hearts/table/${encodeURIComponent(reply.table)}`);
  } catch (error) {
    showError(error.message && error.code !== "offline" ? error.message : t("game.offline"));
    busy = false;
    form.setAttribute("aria-busy", "false");
  }
}

form.addEventListener("click", (event) => {
  const button = event.target.closest("[data-mode]");
  if (!button) return;
  if (button.dataset.mode === "computer") create("computer");
  else openPanel(button.dataset.mode);
});
form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (mode) create(mode);
});
form.addEventListener("change", (event) => {
  if (event.target.name === "passing") event.target.dataset.touched = "1";
  if (["preset", "players", "code"].includes(event.target.name)) syncOptions();
  if (event.target.name === "target") describe();
});
form.elements.target.addEventListener("input", describe);
codeInput.addEventListener("input", syncOptions);
syncOptions();
