// What reaches past the window or is clipped by its own box (boxes that scroll are exempt):
// test_hearts_sizes.py evaluates this function in the page; it returns what it found, in words.
() => {
  const out = [];
  const root = document.documentElement;
  const width = root.clientWidth;
  if (root.scrollWidth > width) out.push(`the page scrolls sideways: ${root.scrollWidth} > ${width}`);
  const describe = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "") + (el.dataset.card ? `[${el.dataset.card}]` : "");
  const scrolls = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if (x === "auto" || x === "scroll") return true;
    }
    return false;
  };
  for (const el of document.querySelectorAll("body *")) {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "contents") continue;
    const r = el.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue; // not drawn, or visually hidden text
    if (scrolls(el)) continue;
    if (r.left < -0.5 || r.right > width + 0.5) out.push(`${describe(el)} spans ${Math.round(r.left)}..${Math.round(r.right)} of ${width}`);
    const clips = ["hidden", "clip"].includes(style.overflowX) || ["hidden", "clip"].includes(style.overflowY);
    if (clips && !el.matches("select, input, textarea") && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) {
      out.push(`${describe(el)} cuts its content off: ${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight}`);
    }
  }
  return out.slice(0, 12);
}
