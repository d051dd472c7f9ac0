// The play clock on the Heart to Heart page. The server counts the time (the page cannot be
// trusted to stay open): it runs only while a connection shows the game on a visible page. This
// module tells the server when the page is hidden or shown, draws the time it was sent (counting
// on locally only while the server says the clock runs and the connection is up), and shows the
// pause: "Paused" on the clock, and on the board when the player comes back, until they resume.

import { formatTime, t } from "./i18n.js";

export class PlayClock {
  /**
   * @param {object} options
   * @param {HTMLElement} options.root the game section ([data-game])
   * @param {{request: Function}} options.conn the /ws connection
   * @param {(reply: object) => void} options.show draws a solitaire.state reply
   * @param {(error: unknown) => void} options.report shows a failed request
   */
  constructor({ root, conn, show, report }) {
    this.root = root;
    this.conn = conn;
    this.show = show;
    this.report = report;
    this.game = null;
    this.receivedAt = 0;
    this.online = false;
    // the player left the page and has not said they are back (the board is covered)
    this.covered = document.hidden;
    this.cover = root.querySelector("[data-pause-cover]");
    this.timeEl = root.querySelector('[data-info="time"]');
    // the cover sits over the cards only, so the clock stays in sight above it
    const table = root.querySelector("[data-board]");
    if (table && this.cover) table.append(this.cover);
    this.cover.querySelector("[data-resume-clock]").addEventListener("click", () => this.resume());
    document.addEventListener("visibilitychange", () => this.visibilityChanged());
    this.draw();
  }

  /** The connection is up (again): tell the server whether the page is looked at. */
  async connected() {
    this.online = true;
    await this.send(!this.covered, false);
  }

  /** The connection went down: the server stops the clock; so does the page. */
  disconnected() {
    this.online = false;
    this.draw();
  }

  /** A new game view from the server. */
  update(game) {
    this.game = game;
    this.receivedAt = performance.now();
    this.draw();
  }

  /** Whether play is paused by the cover (taps and keys wait for "Resume"). */
  get paused() {
    return this.covered;
  }

  running() {
    return Boolean(this.game && this.game.clock_running && this.online && !this.covered);
  }

  /** The time to show now. */
  elapsed() {
    if (!this.game) return 0;
    return this.game.elapsed_ms + (this.running() ? performance.now() - this.receivedAt : 0);
  }

  visibilityChanged() {
    if (document.hidden) {
      this.covered = true;
      this.draw();
      if (this.online) this.send(false, true).catch(() => {});
    } else {
      // back: the game stays paused, under the cover, until the player resumes
      this.draw();
      if (this.cover && !this.cover.hidden) this.cover.querySelector("[data-resume-clock]").focus();
    }
  }

  async resume() {
    this.covered = false;
    this.draw();
    if (this.online) await this.send(true, true).catch(this.report);
  }

  async send(visible, show) {
    const reply = await this.conn.request({ type: "solitaire.visibility", visible });
    if (show && reply.type === "solitaire.state" && this.game && reply.game.id === this.game.id) {
      this.show({ ...reply, event: null });
    }
  }

  /** The clock's text and the pause marks, from the state of things (called 4 times a second:
   * it writes only what changed). */
  draw() {
    const over = this.game && this.game.outcome !== "playing";
    const stateName = !this.game || over ? "stopped" : this.running() ? "running" : "paused";
    setData(this.root, "clock", stateName);
    // the server's own verdict, as last sent (for tests and tools)
    setData(this.root, "clockServer", this.game && this.game.clock_running ? "running" : "paused");
    setData(this.root, "paused", String(this.covered));
    const coverShown = this.covered && Boolean(this.game) && !over;
    if (this.cover.hidden === coverShown) this.cover.hidden = !coverShown;
    const board = this.root.querySelector("[data-heart]");
    if (board && board.inert !== coverShown) board.inert = coverShown;
    // "Paused" beside the time (a CSS ::after reads it from this attribute)
    setData(this.timeEl, "pausedLabel", t("game.paused"));
    const text = formatTime(this.elapsed());
    if (this.timeEl.textContent !== text) this.timeEl.textContent = text;
  }
}

function setData(element, key, value) {
  if (element.dataset[key] !== value) element.dataset[key] = value;
}
