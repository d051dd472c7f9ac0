// Home: offer "Continue" when the server holds an unfinished Heart to Heart game.

import { lang, t } from "./i18n.js";
import { Connection } from "./ws.js";

const tile = document.querySelector('[data-tile="heart-to-heart"]');
const continueLink = tile.querySelector("[data-continue]");
const playLink = tile.querySelector("[data-play]");
const newLink = tile.querySelector("[data-new]");
const hint = tile.querySelector("[data-continue-hint]");
let asked = false;

const conn = new Connection({
  lang,
  onReady: async () => {
    if (asked) return;
    asked = true;
    const reply = await conn.request({ type: "solitaire.resume" });
    const game = reply.type === "solitaire.state" ? reply.game : null;
    const unfinished = game !== null && game.outcome === "playing";
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
  },
});
