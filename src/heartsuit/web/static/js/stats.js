// Statistics: the player's results from GET /api/stats (same body as the "stats" message): the
// server's running totals, and the per-deal list one page at a time ("Show more deals").

import { formatTime, t } from "./i18n.js";
import { storedPlayer } from "./ws.js";

const root = document.querySelector("[data-stats]");
const status = root.querySelector("[data-stats-status]");
const body = root.querySelector("[data-by-code] tbody");
const more = root.querySelector("[data-by-code-more]");
const shownNote = root.querySelector("[data-by-code-shown]");
const PAGE = 50;
let loaded = 0;
const headings = [...root.querySelectorAll("[data-by-code] thead th")].map((th) => th.textContent);
const dash = t("stats.dash");

const time = (ms) => (ms === null || ms === undefined ? dash : formatTime(ms));
const count = (n) => (n === null || n === undefined ? dash : String(n));
// a daily streak counts days, and says so ("3 hari", "1 day")
const days = (n) => (n === null || n === undefined ? dash : t("daily.days", { n }));

function percent(value) {
  if (value === null || value === undefined) return dash;
  // a percentage, 0..100
  return `${Math.round(value)}%`;
}

function fill(stats) {
  const o = stats.overall;
  const values = {
    games: count(o.games),
    wins: count(o.wins),
    win_pct: o.games ? percent(o.win_pct) : dash,
    current_streak: count(o.current_streak),
    best_streak: count(o.best_streak),
    best_time: time(o.best_time_ms),
    fewest_moves: count(o.fewest_moves),
    dead_deals: count(o.dead_deals ?? 0),
  };
  for (const [key, text] of Object.entries(values)) {
    root.querySelector(`[data-stat="${key}"]`).textContent = text;
  }
  fillDaily(stats.daily);
  body.replaceChildren();
  loaded = 0;
  addRows(stats);
  status.textContent = o.games ? "" : t("stats.none");
}

/** The deal of the day: everyone's figures for today's code, and the player's daily streak. */
function fillDaily(daily) {
  if (!daily) return;
  root.querySelector("[data-daily-code]").textContent = daily.code;
  root.querySelector("[data-daily-won]").hidden = !daily.won_today;
  const values = {
    streak: days(daily.streak),
    best_streak: days(daily.best_streak),
    players: count(daily.players),
    winners: count(daily.winners),
    best_time: time(daily.best_time_ms),
    fewest_moves: count(daily.fewest_moves),
  };
  for (const [key, text] of Object.entries(values)) {
    root.querySelector(`[data-daily-stat="${key}"]`).textContent = text;
  }
}

/** Append one page of the per-deal list and say how much of it is shown. */
function addRows(stats) {
  for (const row of stats.by_code) {
    const tr = document.createElement("tr");
    tr.dataset.code = row.code;
    // explicit roles: the phone layout restyles the cells, which would drop their table roles
    tr.setAttribute("role", "row");
    const cells = [
      row.code,
      count(row.games),
      count(row.wins),
      time(row.best_time_ms),
      count(row.fewest_moves),
    ];
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      td.setAttribute("role", "cell");
      // on a phone the rows stack and each cell shows its column's name (see site.css)
      td.dataset.label = headings[i];
      tr.append(td);
    });
    body.append(tr);
  }
  loaded += stats.by_code.length;
  const total = stats.by_code_total ?? loaded;
  for (const part of root.querySelectorAll("[data-by-code-part]")) part.hidden = loaded === 0;
  more.hidden = loaded >= total;
  shownNote.hidden = loaded === 0 || loaded >= total;
  shownNote.textContent = t("stats.shown", { shown: loaded, total });
}

async function fetchStats(offset) {
  const player = storedPlayer();
  if (!player) return null;
  // the id is the player's credential: in a header, never in a URL that logs keep
  const response = await fetch(`/api/stats?offset=${offset}&limit=${PAGE}`, {
    headers: { "X-Heartsuit-Player": player },
  });
  if (!response.ok) throw new Error(String(response.status));
  return response.json();
}

more.addEventListener("click", async () => {
  more.disabled = true;
  try {
    const stats = await fetchStats(loaded);
    if (stats) addRows(stats);
  } catch {
    status.textContent = t("stats.error");
  } finally {
    more.disabled = false;
  }
});

async function load() {
  const stats = await fetchStats(0);
  fill(stats || { overall: { games: 0 }, by_code: [], by_code_total: 0 });
}

load()
  .catch(() => {
    status.textContent = t("stats.error");
  })
  .finally(() => root.setAttribute("aria-busy", "false"));
