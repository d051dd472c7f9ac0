// The card table: where each seat sits on the felt and where its cards land, the pass arrow,
// and the motion that explains a trick (a card travels from its player to the middle; a taken
// trick gathers to its winner). Positions are angles, set as CSS custom properties (--cos,
// --sin) that the stylesheet turns into places on an oval the size of the felt; nothing here
// decides a rule, and no motion ever stands between a tap and the page (the moving copies
// take no pointer events, the hand never moves, and reduced motion turns it all off).

/** Whether the person asked their system for less motion. */
export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/**
 * The angle (radians, screen coordinates: y grows downwards) of ``seat`` on the felt when
 * ``bottom`` sits at the bottom of it. The play passes to the left, so the seats follow each
 * other clockwise on the screen: for four, left, across, right; for any count, evenly apart.
 */
export function seatAngle(seat, bottom, n) {
  const rel = (((seat - bottom) % n) + n) % n;
  return Math.PI / 2 + (rel * 2 * Math.PI) / n;
}

/** Put an element of the felt at ``angle`` (the stylesheet places it from --cos and --sin on
 * an oval; a short, wide felt uses --bx and --by, the same direction carried out to the edge of
 * a square, so that each plate keeps to the band along one edge of the felt and the middle
 * stays clear for the trick). */
export function place(element, angle) {
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const edge = Math.max(Math.abs(cos), Math.abs(sin));
  element.style.setProperty("--cos", cos.toFixed(4));
  element.style.setProperty("--sin", sin.toFixed(4));
  element.style.setProperty("--bx", (cos / edge).toFixed(4));
  element.style.setProperty("--by", (sin / edge).toFixed(4));
}

/** The pass arrow: in the middle of the felt, pointing at the seat that receives the pass. */
export function pointArrow(arrow, angle) {
  arrow.querySelector(".ht-arrow-glyph").style.transform = `rotate(${angle.toFixed(4)}rad)`;
}

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

const SLIDE_MS = 280;
const GATHER_MS = 420;

/** New cards of the trick slide in from their player's plate (none with reduced motion). */
export function slideIn(felt, figures) {
  if (reducedMotion()) return;
  for (const figure of figures) {
    const plate = felt.querySelector(`.ht-seat[data-seat="${figure.dataset.seat}"]`);
    const card = figure.querySelector(".hc");
    if (!plate || !card) continue;
    const from = centre(plate.getBoundingClientRect());
    const to = centre(card.getBoundingClientRect());
    card.animate(
      [
        { transform: `translate(${from.x - to.x}px, ${from.y - to.y}px) scale(0.6)`, opacity: 0.2 },
        { transform: "none", opacity: 1 },
      ],
      { duration: SLIDE_MS, easing: "cubic-bezier(0.2, 0.7, 0.3, 1)" },
    );
  }
}

/**
 * A taken trick gathers to its winner: copies of its cards (no names, no labels, no pointer
 * events) move to the winner's plate and fade, while the felt already shows what comes next.
 */
export function gather(felt, layer, figures, winner) {
  if (reducedMotion() || winner === null || winner === undefined) return;
  const plate = felt.querySelector(`.ht-seat[data-seat="${winner}"]`);
  if (!plate) return;
  const to = centre(plate.getBoundingClientRect());
  for (const figure of figures) {
    const copy = figure.cloneNode(true);
    for (const el of [copy, ...copy.querySelectorAll("*")]) {
      el.removeAttribute("data-card");
      el.removeAttribute("aria-label");
      el.removeAttribute("role");
    }
    layer.append(copy);
    const card = copy.querySelector(".hc");
    if (!card) {
      copy.remove();
      continue;
    }
    const from = centre(card.getBoundingClientRect());
    const motion = card.animate(
      [
        { transform: "none", opacity: 1 },
        { transform: `translate(${to.x - from.x}px, ${to.y - from.y}px) scale(0.4)`, opacity: 0 },
      ],
      { duration: GATHER_MS, easing: "ease-in", fill: "forwards" },
    );
    motion.onfinish = () => copy.remove();
    motion.oncancel = () => copy.remove();
  }
}

const PASS_MS = 520;

/** A moving copy of a hand card (no name, no label, no pointer events), where the card is. */
function flyingCopy(card) {
  const rect = card.getBoundingClientRect();
  const copy = card.cloneNode(true);
  for (const el of [copy, ...copy.querySelectorAll("*")]) {
    el.removeAttribute("data-card");
    el.removeAttribute("aria-label");
    el.removeAttribute("aria-pressed");
    el.removeAttribute("id");
  }
  copy.setAttribute("aria-hidden", "true");
  copy.tabIndex = -1;
  copy.classList.add("ht-flying");
  Object.assign(copy.style, { left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`, height: `${rect.height}px` });
  document.body.append(copy);
  return { copy, from: centre(rect) };
}

/** Passed cards leave the hand for the receiver's plate: copies travel there and fade (the
 * cards themselves stay, marked as passed, until everyone has passed). None with reduced
 * motion: the marks say the same. */
export function sendCards(felt, cards, receiver) {
  if (reducedMotion() || receiver === null || receiver === undefined) return;
  const plate = felt.querySelector(`.ht-seat[data-seat="${receiver}"]`);
  if (!plate) return;
  const to = centre(plate.getBoundingClientRect());
  cards.forEach((card, i) => {
    const { copy, from } = flyingCopy(card);
    const motion = copy.animate(
      [
        { transform: "none", opacity: 1 },
        { transform: `translate(${to.x - from.x}px, ${to.y - from.y}px) scale(0.45)`, opacity: 0.1 },
      ],
      { duration: PASS_MS, delay: i * 60, easing: "ease-in", fill: "forwards" },
    );
    motion.onfinish = () => copy.remove();
    motion.oncancel = () => copy.remove();
  });
}

/** Received cards arrive in the hand from the plate of the seat that passed them. */
export function receiveCards(felt, cards, giver) {
  if (reducedMotion() || giver === null || giver === undefined) return;
  const plate = felt.querySelector(`.ht-seat[data-seat="${giver}"]`);
  if (!plate) return;
  const from = centre(plate.getBoundingClientRect());
  cards.forEach((card, i) => {
    const to = centre(card.getBoundingClientRect());
    card.animate(
      [
        { transform: `translate(${from.x - to.x}px, ${from.y - to.y}px) scale(0.45)`, opacity: 0.2 },
        { transform: "none", opacity: 1 },
      ],
      { duration: PASS_MS, delay: i * 60, easing: "cubic-bezier(0.2, 0.7, 0.3, 1)", fill: "backwards" },
    );
  });
}
