// Each visible button, link, field and heading can be scrolled wholly into the window (a box
// that scrolls, like the shared-device cover, must not hide its top or its end): behind the
// shared-device cover nothing can be reached, so there only the cover's own controls count.
// test_hearts_sizes.py evaluates this function in the page; it returns what it found, in words.
// It does in one call what Playwright's scroll_into_view_if_needed and bounding_box do per
// control: an instant scroll (whatever the page's scroll-behavior), then the box in the window.
() => {
  const out = [];
  const scope = document.querySelector("[data-cover]:not([hidden])") || document.body;
  // Playwright's :visible: rendered (checkVisibility: not inside a closed <details>, say), a box
  // of some size, and not visibility: hidden
  const visible = (el) => {
    if (!el.checkVisibility()) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
  };
  for (const el of scope.querySelectorAll("button, a[href], input, h2")) {
    if (!visible(el)) continue;
    if (el.closest(".site-nav, .table-wrap, .skip-link")) continue; // the header's own sideways scroll and skip link (shown on focus)
    el.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
    const box = el.getBoundingClientRect();
    const html = () => el.outerHTML.slice(0, 80); // only for what it reports
    if (box.top < -0.5 || box.bottom > window.innerHeight + 0.5) out.push(`${html()} cannot be seen whole`);
    else if (box.left < -0.5 || box.right > window.innerWidth + 0.5) out.push(`${html()} is past the side`);
  }
  return out;
};
