// What the Hearts pages keep in localStorage: the seat tokens of each table
// (heartsuit.hearts.<table> = {seat: token}), the last table opened, the player's name and the
// four-colour deck choice. Storage may be missing (private mode): then nothing is remembered.

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

export const lastTable = () => read("last");
export const savedName = () => read("name") || "";
export const saveName = (name) => write("name", name);
export const fourColour = () => read("four_colour") === "1";
export const saveFourColour = (on) => write("four_colour", on ? "1" : "0");
