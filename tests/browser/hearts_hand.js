// The hand's cards inside the window, each with a strip no later card covers (at least
// `strip` px), and the trick's cards inside the window: what is wrong, in words.
(strip) => {
  const width = document.documentElement.clientWidth;
  const cards = [...document.querySelectorAll(".ht-hand [data-card]")].map((e) => e.getBoundingClientRect());
  const out = [];
  cards.forEach((r, i) => {
    if (r.left < 0 || r.right > width) out.push(`card ${i} spans ${Math.round(r.left)}..${Math.round(r.right)}`);
    const next = cards[i + 1];
    // the next card overlaps from the left edge of its own box; on another row it does not
    if (next && Math.abs(next.top - r.top) < r.height / 2 && next.left - r.left < strip) out.push(`card ${i} shows ${Math.round(next.left - r.left)} px`);
  });
  const trick = [...document.querySelectorAll(".ht-trick [data-card]")].map((e) => e.getBoundingClientRect());
  trick.forEach((r, i) => {
    if (r.left < 0 || r.right > width) out.push(`trick card ${i} spans ${Math.round(r.left)}..${Math.round(r.right)}`);
  });
  return out;
}
