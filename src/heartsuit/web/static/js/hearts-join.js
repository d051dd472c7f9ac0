// Joining an online Hearts table from an invite (/hearts/join/<code>): ask the server for the
// table's seats and options (the variant, how many play, whether hints are allowed), pick a
// name and a free seat, sit down, then go to the table.

import { lang, t } from "./i18n.js";
import { keepTokens, saveName, savedName, tableTokens } from "./hearts-store.js";
import { Connection } from "./ws.js";

const form = document.querySelector("[data-hjoin]");
const invite = form.dataset.invite;
const errorBox = form.querySelector("[data-join-error]");
const seatList = form.querySelector("[data-join-seats]");
const nameInput = form.querySelector("[data-join-name]");
const submit = form.querySelector("[data-join-submit]");
let table = null;
let asked = false;

nameInput.value = savedName();

const conn = new Connection({
  lang,
  onReady: () => {
    if (!asked) {
      asked = true;
      lookUp();
    }
  },
  onStatus: (online) => {
    if (!online) showError(t("game.offline"));
  },
});

function showError(text) {
  errorBox.textContent = text;
  errorBox.hidden = false;
}

async function lookUp() {
  try {
    const lobby = await conn.request({ type: "hearts.invite", invite });
    table = lobby.table;
    drawTable(lobby);
    drawSeats(lobby.seats);
    if (Object.keys(tableTokens(table)).length) {
      // this browser already holds a seat here: offer to go back to it
      form.querySelector("[data-join-mine]").hidden = false;
      form.querySelector("[data-join-back]").href = `/hearts/table/${encodeURIComponent(table)}`;
    }
  } catch (error) {
    showError(error.message && error.code !== "offline" ? error.message : t("game.offline"));
  }
  form.setAttribute("aria-busy", "false");
}

function drawTable(lobby) {
  const box = form.querySelector("[data-join-table]");
  box.querySelector("[data-join-variant]").textContent = t(`hearts.preset.${lobby.preset}`);
  box.querySelector("[data-join-players]").textContent = String(lobby.seats.length);
  box.querySelector("[data-join-hints]").textContent = t(lobby.hints ? "hjoin.hints_on" : "hjoin.hints_off");
  box.hidden = false;
}

function drawSeats(seats) {
  seatList.replaceChildren();
  let firstFree = null;
  seats.forEach((info, index) => {
    const seat = info.seat ?? index;
    const item = document.createElement("li");
    const label = document.createElement("label");
    const radio = document.createElement("input");
    radio.type = "radio";
    radio.name = "seat";
    radio.value = String(seat);
    radio.disabled = info.kind !== "open";
    if (!radio.disabled && firstFree === null) {
      firstFree = seat;
      radio.checked = true;
    }
    const who = info.kind === "open" ? t("hjoin.free") : `${info.name || t("hjoin.seat_n", { n: seat + 1 })} · ${t(`hearts.kind.${info.kind}`)}`;
    label.append(radio, document.createTextNode(` ${t("hjoin.seat_n", { n: seat + 1 })}: ${who}`));
    item.append(label);
    seatList.append(item);
  });
  submit.disabled = firstFree === null;
  if (firstFree === null) showError(t("hearts.err.table_full"));
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = nameInput.value.trim();
  if (!name) {
    showError(t("hjoin.need_name"));
    nameInput.focus();
    return;
  }
  const seat = Number(form.elements.seat.value);
  submit.disabled = true;
  try {
    const reply = await conn.request({ type: "hearts.sit", table, seat, name });
    saveName(name);
    keepTokens(reply.table, [{ seat: reply.seat, token: reply.token }]);
    location.assign(`/hearts/table/${encodeURIComponent(reply.table)}`);
  } catch (error) {
    showError(error.message && error.code !== "offline" ? error.message : t("game.offline"));
    submit.disabled = false;
    if (error.code === "seat_taken") lookUp();
  }
});
