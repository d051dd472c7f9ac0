// Statistics: the player's results from GET /api/stats (same body as the "stats" message).

import { formatTime, t } from "./i18n.js";
import { storedPlayer } from "./ws.js";

const root = document.querySelector("[data-stats]");
const status = root.querySelector("[data-stats-status]");
const body = root.querySelector("[data-by-code] tbody");
const headings = [...root.querySelectorAll("[data-by-code] thead th")].map((th) => th.textContent);
const dash = t("stats.dash");

const time = (ms) => (ms === null || ms === undefined ? dash : formatTime(ms));
const count = (n) => (n === null || n === undefined ? dash : String(n));

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
  };
  for (const [key, text] of Object.entries(values)) {
    root.querySelector(`[data-stat="${key}"]`).textContent = text;
  }
  body.replaceChildren();
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
  for (const part of root.querySelectorAll("[data-by-code-part]")) {
    part.hidden = stats.by_code.length === 0;
  }
  status.textContent = o.games ? "" : t("stats.none");
}

async function load() {
  const player = storedPlayer();
  if (!player) {
    fill({ overall: { games: 0 }, by_code: [] });
    return;
  }
  // the id is the player's credential: in a header, never in a URL that logs keep
  const response = await fetch("/api/stats", { headers: { "X-Heartsuit-Player": player } });
  if (!response.ok) throw new Error(String(response.status));
  fill(await response.json());
}

load()
  .catch(() => {
    status.textContent = t("stats.error");
  })
  .finally(() => root.setAttribute("aria-busy", "false"));
