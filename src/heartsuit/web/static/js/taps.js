// Taps that answer at once. Every game state from the server says what a tap would do
// (`answers`: the pairs that can be taken now, what the stock does; each heart card says whether
// it is free). The page looks a tap up there and shows its result before the server has
// answered; the server stays the judge: its answer replaces the guess, and a refused move is
// rolled back. No rule is worked out here: a tap whose result the server's answers do not say
// (a card a guessed pair may have uncovered, the card a flip turns up, an undo) is shown when
// the server answers.
//
// Each tap and undo is an intent with an id of its own (this tab's random prefix and a counter)
// and the log length of the view it was made on (`base`). Intents wait in a queue, in order,
// until the server has answered them; while the connection is down they stay there, and when it
// is back they are sent again, in order, with the same ids: the server answers one it already
// applied without applying it twice, and refuses (`stale`) one made on a view that has moved on.

/** A random prefix for this tab's intent ids. */
function tabPrefix() {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(36).padStart(2, "0")).join("");
}

const same = (a, b) => a === b || String(a) === String(b);

function legal(answers, a, b) {
  return answers.pairs.some(([x, y]) => (same(x, a) && same(y, b)) || (same(x, b) && same(y, a)));
}

function selectionOf(view) {
  if (view.waste_top && view.waste_top.selected) return "waste";
  const index = view.heart.findIndex((card) => card && card.selected);
  return index === -1 ? null : index + 1;
}

function cardAt(view, target) {
  return target === "waste" ? view.waste_top : view.heart[target - 1];
}

/** Mark `chosen` as the selection, and dim (with placement help) what cannot pair with it. */
function select(state, chosen, helped) {
  const { view, unknown } = state;
  const answers = view.answers;
  const mark = (target, card) => {
    if (!card) return;
    card.selected = same(target, chosen);
    const tappable = target === "waste" || (card.free === true && !unknown.has(target));
    card.dimmed = Boolean(helped && chosen !== null && tappable && !card.selected && !legal(answers, chosen, target));
  };
  view.heart.forEach((card, i) => mark(i + 1, card));
  if (!unknown.has("waste")) mark("waste", view.waste_top);
}

/**
 * The result of `action` on `state` as the server's answers say, applied to a copy of the state;
 * null when they do not say (the tap is then shown when the server answers).
 */
function predict(state, action, helped) {
  const view = state.view;
  const answers = view.answers;
  if (!answers || view.outcome !== "playing") return null; // over: the server refuses taps
  if (action.type !== "tap") return null; // an undo restores what only the server remembers
  const target = action.target;
  const next = { view: structuredClone(view), unknown: new Set(state.unknown) };
  if (target === "stock") {
    if (state.unknown.has("stock")) return null;
    if (answers.stock === "none") return { state, kind: "ignored" };
    if (answers.stock === "redeal") return null;
    // a flip: one card fewer in the stock; the card turned up is the server's to show
    next.view.stock_count -= 1;
    next.view.waste_count += 1;
    next.view.moves += 1;
    next.unknown.add("stock").add("waste");
    next.view.answers = { ...answers, pairs: answers.pairs.filter((pair) => !pair.includes("waste")) };
    select(next, null, helped);
    return { state: next, kind: "flipped", pending: ["waste"] };
  }
  if (state.unknown.has(target)) return null;
  const card = cardAt(view, target);
  if (!card) return { state, kind: "ignored" };
  if (target !== "waste" && card.free !== true) return { state, kind: "ignored" };
  const chosen = selectionOf(view);
  if (chosen === null || !same(chosen, target)) {
    if (chosen !== null && legal(answers, chosen, target)) {
      // a pair: both cards go; the cards they uncover, the waste's next card and the points
      // are the server's to say
      const taken = [chosen, target];
      for (const gone of taken) {
        if (gone === "waste") {
          next.view.waste_top = null;
          next.view.waste_count -= 1;
          next.unknown.add("waste");
        } else {
          next.view.heart[gone - 1] = null;
        }
      }
      next.view.heart.forEach((other, i) => {
        if (other && other.free !== true) next.unknown.add(i + 1);
      });
      next.view.moves += 1;
      next.view.answers = {
        ...answers,
        pairs: answers.pairs.filter(([a, b]) => !taken.some((gone) => same(gone, a) || same(gone, b))),
      };
      const outlined = new Set(next.view.answers.pairs.flat().map(String));
      if (helped) {
        next.view.heart.forEach((other, i) => {
          if (other) other.outlined = outlined.has(String(i + 1));
        });
        if (next.view.waste_top) next.view.waste_top.outlined = outlined.has("waste");
      }
      select(next, null, helped);
      return { state: next, kind: "paired", pending: taken.includes("waste") ? ["waste"] : [] };
    }
    select(next, target, helped);
    return { state: next, kind: chosen === null ? "selected" : "reselected" };
  }
  select(next, null, helped);
  return { state: next, kind: "deselected" };
}

/**
 * The view the page shows: the server's last state with the queued intents' guessed results on
 * top. Sets each intent's `guess` ({kind} or null) and returns {view, pending, blind}.
 */
export function fold(confirmed, intents, helped) {
  let state = { view: confirmed, unknown: new Set() };
  let blind = false;
  const pending = new Set();
  for (const intent of intents) {
    const guess = blind || intent.game !== confirmed.id ? null : predict(state, intent.action, helped);
    intent.guess = guess ? { kind: guess.kind } : null;
    if (guess === null) {
      // from here on the page cannot know: the taps wait for the server's answers
      blind = true;
      if (intent.action.type === "tap") pending.add(String(intent.action.target));
      continue;
    }
    state = guess.state;
    for (const target of guess.pending || []) pending.add(String(target));
  }
  return { view: state.view, pending, blind };
}

/** How far an intent takes the move log, if known (ignored taps are not logged). */
function advance(intent) {
  if (!intent.guess) return null;
  return intent.guess.kind === "ignored" ? 0 : 1;
}

export class Taps {
  /**
   * @param {object} options
   * @param {import("./ws.js").Connection} options.conn
   * @param {() => boolean} options.helped whether placement help is on
   * @param {(view: object, info: {kind: string|null, pending: Set<string>, waiting: number}) => void} options.draw
   *   show a guessed view at once
   * @param {(reply: object, info: {guess: string|null, quiet: boolean}) => void} options.answer
   *   a state the server sent in answer to an intent (or with its refusal)
   * @param {(error: Error, info: {guessed: boolean, fresh: object|null}) => void} options.refused
   *   an intent the server refused, with the game as it is now when the server sent it (else
   *   the page goes back to the last state it had)
   * @param {(waiting: number) => void} [options.waiting] how many intents wait for an answer
   */
  constructor({ conn, helped, draw, answer, refused, waiting = () => {} }) {
    this.conn = conn;
    this.helped = helped;
    this.draw = draw;
    this.answer = answer;
    this.refused = refused;
    this.waiting = waiting;
    this.prefix = tabPrefix();
    this.counter = 0;
    this.confirmed = null;
    this.queue = [];
  }

  /** A state from the server (an answer, a push, a new game): the base of what is shown. */
  setConfirmed(view) {
    if (this.confirmed && this.confirmed.id !== view.id) {
      // another game now: intents about the old one are moot
      this.queue = this.queue.filter((intent) => intent.game === view.id);
    }
    this.confirmed = view;
    this.waiting(this.queue.length);
  }

  /** What to show now: the server's state and the queue's guesses. */
  shown() {
    return fold(this.confirmed, this.queue, this.helped());
  }

  /** A tap ({type: "tap", target}) or an undo ({type: "undo"}) of the player. */
  act(action) {
    if (!this.confirmed) return;
    const intent = {
      id: `${this.prefix}-${++this.counter}`,
      game: this.confirmed.id,
      action,
      base: null,
      sent: false,
      guess: null,
    };
    // the log length the intent is made on: the server's, plus what the queue adds to it
    let base = this.confirmed.log_length;
    this.shown(); // the queue's guesses, as of now
    for (const queued of this.queue) {
      const step = base === null ? null : advance(queued);
      base = step === null ? null : base + step;
    }
    intent.base = base;
    this.queue.push(intent);
    const after = this.shown();
    this.draw(after.view, { kind: intent.guess ? intent.guess.kind : null, pending: after.pending, waiting: this.queue.length });
    this.waiting(this.queue.length);
    if (this.conn.welcome && this.conn.socket && this.conn.socket.readyState === WebSocket.OPEN) {
      this.send(intent);
    }
  }

  /** Send every intent not sent yet, in order (after the connection is back). */
  flush() {
    for (const intent of this.queue) if (!intent.sent) this.send(intent);
  }

  send(intent) {
    intent.sent = true;
    const message =
      intent.action.type === "tap"
        ? { type: "solitaire.tap", game: intent.game, target: intent.action.target }
        : { type: "solitaire.undo", game: intent.game };
    message.intent = intent.id;
    if (intent.base !== null) message.base = intent.base;
    this.conn.request(message).then(
      (reply) => this.answered(intent, reply),
      (error) => this.failed(intent, error),
    );
  }

  answered(intent, reply) {
    const at = this.queue.indexOf(intent);
    const guess = intent.guess ? intent.guess.kind : null;
    if (at !== -1) this.queue.splice(at, 1);
    // an answer to an intent dropped after an earlier refusal: shown, but said nothing of
    this.answer(reply, { guess, quiet: at === -1 || Boolean(reply.event && reply.event.repeat) });
  }

  failed(intent, error) {
    if (error && error.code === "offline") {
      intent.sent = false; // sent again, with the same id, once the connection is back
      return;
    }
    const at = this.queue.indexOf(intent);
    const fresh = (error && error.reply && error.reply.game) || null;
    if (at === -1) {
      // an intent dropped after an earlier refusal: its words were already said
      if (fresh) this.answer({ type: "solitaire.state", game: fresh, event: {} }, { guess: null, quiet: true });
      return;
    }
    // the intents after it were made on its guessed result: they go too
    this.queue.splice(at);
    this.refused(error, { guessed: Boolean(intent.guess), fresh });
  }
}
