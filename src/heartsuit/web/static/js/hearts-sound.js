// The table's sounds, made with the Web Audio API (no audio files): a soft tap for a card, two
// notes for a trick taken, a short rising chord for a hand done. Off unless the player turned
// them on (remembered); the audio context is made on the first sound after that, which is
// always after a tap or a key (browsers start audio only after a gesture).

let context = null;

function audio() {
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
  }
  if (context.state === "suspended") context.resume();
  return context;
}

/** One note: a frequency, when it starts (s from now), how long and how loud. */
function note(ctx, frequency, start, length, volume, type = "sine") {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  const at = ctx.currentTime + start;
  osc.type = type;
  osc.frequency.setValueAtTime(frequency, at);
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(volume, at + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

const SOUNDS = {
  card: (ctx) => note(ctx, 320, 0, 0.07, 0.12, "triangle"),
  trick: (ctx) => {
    note(ctx, 523, 0, 0.12, 0.08);
    note(ctx, 659, 0.09, 0.16, 0.08);
  },
  hand: (ctx) => {
    [523, 659, 784, 1047].forEach((f, i) => note(ctx, f, i * 0.08, 0.3, 0.07));
  },
};

/** Play ``name`` ("card", "trick", "hand") when sounds are on. */
export function sound(name, on) {
  if (!on || !(name in SOUNDS)) return;
  try {
    const ctx = audio();
    if (ctx) SOUNDS[name](ctx);
  } catch {
    // no audio here: the table goes on silently
  }
}
