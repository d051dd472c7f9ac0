// The catalog strings a page embeds (<script type="application/json" id="i18n">) and the
// labels built from them. Placeholders are {name} and {name|one|other} (the word that goes with
// a number), filled exactly as the server fills them.

const element = document.getElementById("i18n");
const messages = element ? JSON.parse(element.textContent || "{}") : {};

export const lang = document.documentElement.lang || "id";

/** The message `key` with its {name} placeholders filled from `values`. */
export function t(key, values = {}) {
  const text = messages[key];
  if (text === undefined) {
    console.warn(`heartsuit: no message ${key}`);
    return key;
  }
  // {name|one|other}: the word for one when the value of name is 1 (as the server does)
  return text
    .replace(/\{([a-z_]+)\|([^|{}]*)\|([^|{}]*)\}/g, (whole, name, one, other) =>
      name in values ? (String(values[name]) === "1" ? one : other) : whole,
    )
    .replace(/\{([a-z_]+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** "4 hati" / "Queen of hearts" for a card view's rank ("4", "10", "Q", "A"). */
export function cardName(rank) {
  const spoken = ["A", "J", "Q", "K"].includes(rank) ? t(`card.rank.${rank}`) : rank;
  return t("card.name", { rank: spoken });
}

/** A card's name as a control speaks it: starting with the rank the card shows, so that the
 * visible text begins the spoken name ("Q, Ratu hati"; "7 hati" says its rank already). */
export function spokenRank(rank) {
  const name = cardName(rank);
  return name.startsWith(rank) ? name : `${rank}, ${name}`;
}

/** The spoken label of a heart card: its name and its states, all from the catalog. */
export function cardLabel(view) {
  const parts = [spokenRank(view.rank), t(view.free ? "card.free" : "card.covered")];
  if (view.selected) parts.push(t("card.selected"));
  if (view.outlined) parts.push(t("card.suggested"));
  if (view.dimmed) parts.push(t("card.dimmed"));
  return parts.join(", ");
}

/** m:ss, or h:mm:ss past an hour. */
export function formatTime(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
