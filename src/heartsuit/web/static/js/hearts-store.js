// What the Hearts pages keep in localStorage: the seat tokens of each table
// (heartsuit.hearts.<table> = {seat: token}), the last table opened, the player's name and the
// four-colour deck choice and the table settings; in sessionStorage, which tables this tab already plays. Storage may
// be missing (private mode): then nothing is remembered.

const PREFIX = "heartsuit.hearts.";

function read(key) {
  try {
    return localStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(PREFIX + key, value);
  } catch {
    // nothing to do: the page still works, it just forgets on reload
  }
}

/** {seat: token} for a table (an empty object when none is kept). */
export function tableTokens(table) {
  try {
    const data = JSON.parse(read(table) || "{}");
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

/** Add seat tokens ([{seat, token}]) to what is kept for a table, and make it the last one. */
export function keepTokens(table, tokens) {
  const kept = tableTokens(table);
  for (const { seat, token } of tokens) kept[seat] = token;
  write(table, JSON.stringify(kept));
  write("last", table);
}

/** Forget a table's seat tokens (after leaving it). */
export function forgetTable(table) {
  try {
    localStorage.removeItem(PREFIX + table);
    if (read("last") === table) localStorage.removeItem(PREFIX + "last");
  } catch {
    // nothing was kept
  }
}

/** Whether this tab has held its seats at a table before (kept across a reload of the tab,
 * not shared with other tabs): such a tab takes its seats back at once when it reconnects,
 * where another tab or device is asked first. */
export function tabHeld(table) {
  try {
    return sessionStorage.getItem(PREFIX + table) === "1";
  } catch {
    return false;
  }
}

export function setTabHeld(table, held) {
  try {
    if (held) sessionStorage.setItem(PREFIX + table, "1");
    else sessionStorage.removeItem(PREFIX + table);
  } catch {
    // without storage a reload asks before taking the seat back
  }
}

export const lastTable = () => read("last");
export const savedName = () => read("name") || "";
export const saveName = (name) => write("name", name);
export const fourColour = () => read("four_colour") === "1";
export const saveFourColour = (on) => write("four_colour", on ? "1" : "0");

/** A remembered table setting (pace, auto-play, hand order, sounds), or ``fallback``. */
export const setting = (name, fallback) => read(`setting.${name}`) ?? fallback;
export const saveSetting = (name, value) => write(`setting.${name}`, String(value));
