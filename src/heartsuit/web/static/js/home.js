// Home: offer "Continue" when the server holds a Heart to Heart game under way, and the deal of
// the day with how it goes today. Its "New game" link opens the game page with ?new=1, where the
// server refuses to drop that game unasked and the page asks the player first.

import { lang, t } from "./i18n.js";
import { Connection } from "./ws.js";

const tile = document.querySelector('[data-tile="heart-to-heart"]');
const continueLink = tile.querySelector("[data-continue]");
const playLink = tile.querySelector("[data-play]");
const newLink = tile.querySelector("[data-new]");
const hint = tile.querySelector("[data-continue-hint]");
const dailyHint = tile.querySelector("[data-daily-hint]");
let asked = false;

const conn = new Connection({
  lang,
  onReady: async () => {
    if (asked) return;
    asked = true;
    const reply = await conn.request({ type: "solitaire.resume" });
    const game = reply.type === "solitaire.state" ? reply.game : null;
    // the server's verdict: moves made and not over (leaving it would count as a loss)
    const unfinished = game !== null && game.under_way === true;
    continueLink.hidden = !unfinished;
    newLink.hidden = !unfinished;
    playLink.hidden = unfinished;
    hint.hidden = !unfinished;
    if (unfinished) {
      hint.textContent = t("home.continue_hint", {
        code: game.code,
        moves: game.moves,
        score: game.score,
      });
    }
    // the deal of the day: how everyone fares with it today, and the player's daily streak (a
    // nicety: if the figures cannot be had now, the daily button stands on its own)
    let daily = null;
    try {
      daily = (await conn.request({ type: "stats", limit: 1 })).daily;
    } catch (error) {
      console.warn("heartsuit: no figures for the deal of the day", error);
    }
    if (daily) {
      const parts = [t("home.daily_today", { players: daily.players, winners: daily.winners })];
      if (daily.won_today) parts.push(t("home.daily_won"));
      if (daily.streak > 0) parts.push(t("home.daily_streak", { n: daily.streak }));
      // its lines are held from the first paint (site.css): nothing below it moves now
      dailyHint.textContent = parts.join(" ");
    }
  },
});
