// Bring an element into view inside its nearest scrolling box only. `scrollIntoView` also
// scrolls every ancestor, the page included: a viewer opening at its cited page in the middle of
// a long page (the flow gallery) scrolled the whole page there on load. Pure DOM, no layout
// change besides the one box's scrollTop.

function scroller(el: HTMLElement): HTMLElement | null {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const { overflowY } = getComputedStyle(p);
    if ((overflowY === "auto" || overflowY === "scroll") && p.scrollHeight > p.clientHeight) return p;
  }
  return null;
}

export function scrollWithin(el: HTMLElement, block: "start" | "center" = "start"): void {
  const box = scroller(el);
  if (!box) return;
  const top = el.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
  const offset = block === "center" ? Math.max(0, (box.clientHeight - el.offsetHeight) / 2) : 0;
  box.scrollTop = Math.max(0, top - offset);
}
