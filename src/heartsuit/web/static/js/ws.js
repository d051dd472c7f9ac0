// The WebSocket connection to /ws: hello with the player id kept in localStorage, requests
// matched to replies by "req", and automatic reconnection (a server restart is survived: the
// game lives in the server's move log, so the page only asks for it again).

const PLAYER_KEY = "heartsuit.player";

export function storedPlayer() {
  try {
    return localStorage.getItem(PLAYER_KEY);
  } catch {
    return null;
  }
}

function storePlayer(id) {
  try {
    localStorage.setItem(PLAYER_KEY, id);
  } catch {
    // private mode without storage: the id lasts as long as the page
  }
}

/** An error reply from the server ({type: "error", code, message}). */
export class ServerError extends Error {
  constructor(reply) {
    super(reply.message || reply.code);
    this.code = reply.code;
    // the whole reply: some errors carry more (Hearts: "reason" of an illegal card, the fresh
    // "state" of a stale intent)
    this.reply = reply;
  }
}

/** How many times a request refused for being too busy is sent again by itself. */
const MAX_RETRIES = 4;

/** The milliseconds to wait before trying again after a `rate_limited` refusal (the server's
 * `retry_after`, plus a little at random so that many pages do not all come back at once), or
 * null for any other error. */
function retryAfter(error) {
  if (!error || error.code !== "rate_limited") return null;
  const seconds = Number(error.reply && error.reply.retry_after) || 1;
  return seconds * 1000 + Math.floor(Math.random() * 500);
}

/** Show or hide the page's calm "busy, trying again" note (base.html). */
function busy(on) {
  const note = document.querySelector("[data-busy]");
  if (note) note.hidden = !on;
}

export class Connection {
  /**
   * @param {object} options
   * @param {string} options.lang the language for the server's messages
   * @param {(welcome: object) => void} [options.onReady] after every (re)connect and hello
   * @param {(online: boolean) => void} [options.onStatus] connection lost / back
   * @param {(message: object) => void} [options.onPush] a message that answers no request
   *   (what the player's other tabs did)
   * @param {(error: ServerError) => void} [options.onPushError] an error that answers no
   *   request (Hearts: "taken_over" when another tab or device takes this page's seat)
   * @param {boolean} [options.followNetwork] drop the socket as soon as the browser says it
   *   is offline (rather than when a send finally fails) and reconnect as soon as it is back
   * @param {string} [options.table] the Hearts table this page shows: the socket opens
   *   /ws?table=<id>, which the server ignores and a proxy in front of several processes hashes,
   *   so that every socket of one table reaches one process (docs/site.md, "Behind nginx")
   */
  constructor({
    lang,
    onReady = () => {},
    onStatus = () => {},
    onPush = () => {},
    onPushError = () => {},
    followNetwork = false,
    table = null,
  }) {
    this.lang = lang;
    this.path = table ? `/ws?table=${encodeURIComponent(table)}` : "/ws";
    this.onPush = onPush;
    this.onPushError = onPushError;
    this.onReady = onReady;
    this.onStatus = onStatus;
    this.nextReq = 1;
    this.pending = new Map();
    this.socket = null;
    this.retry = 0;
    this.welcome = null;
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
    this.timer = null;
    if (followNetwork) {
      window.addEventListener("offline", () => {
        if (this.socket) this.socket.close();
      });
      window.addEventListener("online", () => this.reconnectNow());
    }
    this.open();
  }

  /** Try again at once rather than after the back-off (the network is back). */
  reconnectNow() {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.retry = 0;
    this.open();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}${this.path}`);
    this.socket = socket;
    socket.addEventListener("open", () => this.greet());
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", () => this.lost(socket));
  }

  async greet() {
    try {
      const welcome = await this.request({ type: "hello", player: storedPlayer() });
      storePlayer(welcome.player);
      await this.request({ type: "lang", lang: this.lang });
      this.welcome = welcome;
      this.retry = 0;
      busy(false);
      this.onStatus(true);
      this.resolveReady(welcome);
      this.onReady(welcome);
    } catch (error) {
      const wait = retryAfter(error);
      if (wait !== null && this.socket) {
        // the site is busy: say so calmly and greet again when the server said to
        const socket = this.socket;
        busy(true);
        setTimeout(() => {
          if (this.socket === socket) this.greet();
        }, wait);
        return;
      }
      console.error("heartsuit: hello failed", error);
    }
  }

  lost(socket) {
    if (socket !== this.socket) return;
    this.socket = null;
    this.welcome = null;
    for (const { reject } of this.pending.values()) reject(new ServerError({ code: "offline" }));
    this.pending.clear();
    this.onStatus(false);
    const delay = Math.min(4000, 250 * 2 ** this.retry);
    this.retry += 1;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.open();
    }, delay);
  }

  receive(data) {
    let reply;
    try {
      reply = JSON.parse(data);
    } catch {
      return;
    }
    const waiting = reply.req === undefined ? undefined : this.pending.get(reply.req);
    if (!waiting) {
      if (reply.type === "error") this.onPushError(new ServerError(reply));
      else this.onPush(reply);
      return;
    }
    this.pending.delete(reply.req);
    if (reply.type === "error") waiting.reject(new ServerError(reply));
    else waiting.resolve(reply);
  }

  /** Send a message and resolve with the reply that echoes its req (reject on an error).
   * A refusal for being too busy (`rate_limited`) is not an answer: the message is sent again
   * after the wait the server said (a few times), with the busy note shown meanwhile. */
  async request(message) {
    for (let attempt = 0; ; attempt++) {
      try {
        const reply = await this.send(message);
        if (attempt) busy(false);
        return reply;
      } catch (error) {
        const wait = retryAfter(error);
        if (wait === null || attempt >= MAX_RETRIES || message.type === "hello") {
          if (attempt) busy(false);
          throw error;
        }
        busy(true);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  send(message) {
    const req = this.nextReq++;
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(new ServerError({ code: "offline" }));
        return;
      }
      this.pending.set(req, { resolve, reject });
      this.socket.send(JSON.stringify({ ...message, req }));
    });
  }
}
