// Statistics: the player's Heart to Heart results from GET /api/stats (same body as the "stats"
// message): the server's running totals, and the per-deal list one page at a time ("Show more
// deals"); and their Hearts results from GET /api/hearts/stats (totals, per variant, best and
// worst match).

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

// --- Hearts ---

const hearts = root.querySelector("[data-hearts-stats]");
const heartsStatus = hearts.querySelector("[data-hearts-status]");
const presetBody = hearts.querySelector("[data-by-preset] tbody");
const presetHeadings = [...hearts.querySelectorAll("[data-by-preset] thead th")].map(
  (th) => th.textContent,
);
const reader = document.documentElement.lang || "id";
// points per hand: a decimal written the reader's way ("3,5" / "3.5")
const perHand = (value) =>
  value === null || value === undefined
    ? dash
    : value.toLocaleString(reader, { maximumFractionDigits: 2 });
const presetName = (preset) => t(`hearts.preset.${preset}`);
// a margin with its sign: + ahead of everyone, − (a real minus) behind the winner
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0");

function matchLine(match) {
  if (!match) return dash;
  return t("hearts.stats.match_line", {
    preset: presetName(match.preset),
    total: match.total,
    others: match.others_best,
    margin: signed(match.margin),
  });
}

function fillHearts(stats) {
  const o = stats.overall;
  const values = {
    matches: count(o.matches),
    won: count(o.won),
    lost: count(o.lost),
    left: count(o.left),
    points_per_hand: perHand(o.points_per_hand),
    moons_shot: count(o.moons_shot),
    moons_suffered: count(o.moons_suffered),
    queens: count(o.queens),
  };
  for (const [key, text] of Object.entries(values)) {
    hearts.querySelector(`[data-hstat="${key}"]`).textContent = text;
  }
  const ends = hearts.querySelector("[data-hearts-ends]");
  ends.hidden = !stats.best;
  hearts.querySelector('[data-hstat-match="best"]').textContent = matchLine(stats.best);
  hearts.querySelector('[data-hstat-match="worst"]').textContent = matchLine(stats.worst);
  presetBody.replaceChildren();
  for (const row of stats.by_preset) {
    const tr = document.createElement("tr");
    tr.dataset.preset = row.preset;
    tr.setAttribute("role", "row");
    const cells = [
      presetName(row.preset),
      count(row.matches),
      count(row.won),
      count(row.left),
      perHand(row.points_per_hand),
    ];
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      td.setAttribute("role", "cell");
      td.dataset.label = presetHeadings[i];
      tr.append(td);
    });
    presetBody.append(tr);
  }
  for (const part of hearts.querySelectorAll("[data-by-preset-part]")) {
    part.hidden = !stats.by_preset.length;
  }
  hearts.querySelector("[data-hearts-play]").hidden = o.matches > 0;
  heartsStatus.textContent = o.matches ? "" : t("hearts.stats.none");
}

async function loadHearts() {
  const player = storedPlayer();
  let stats = null;
  if (player) {
    // the id is the player's credential: in a header, never in a URL that logs keep
    const response = await fetch("/api/hearts/stats", {
      headers: { "X-Heartsuit-Player": player },
    });
    if (!response.ok) throw new Error(String(response.status));
    stats = await response.json();
  }
  fillHearts(stats || { overall: { matches: 0 }, by_preset: [], best: null, worst: null });
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

const both = [
  load().catch(() => {
    status.textContent = t("stats.error");
  }),
  loadHearts()
    .catch(() => {
      heartsStatus.textContent = t("stats.error");
    })
    .finally(() => hearts.setAttribute("aria-busy", "false")),
];
Promise.all(both).finally(() => root.setAttribute("aria-busy", "false"));
