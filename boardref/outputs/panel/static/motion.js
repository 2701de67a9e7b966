// @ts-check
// Whether the page keeps still: a new draw appears without rolling in and the turn
// line does not pulse while the table speaks. It does where the device asks for reduced
// motion, and where the page's address asks (`?motion=reduce`: the table's kiosk opens
// its page so, whatever its browser makes of the screen's wish). An address that asked
// once holds for the tab, wherever in the panel it goes next (the played games and
// back, a reload). The page's root says which for the stylesheet: data-motion="reduce"
// or "full". This module never moves anything itself.
const ASKED = "boardref-motion";
const device = matchMedia("(prefers-reduced-motion: reduce)");

if (new URLSearchParams(location.search).get("motion") === "reduce") {
  sessionStorage.setItem(ASKED, "reduce");
}
const asked = sessionStorage.getItem(ASKED) === "reduce";

/** Whether the page keeps still now. */
export function calm() {
  return asked || device.matches;
}

function mark() {
  document.documentElement.dataset.motion = calm() ? "reduce" : "full";
}

mark();
device.addEventListener("change", mark);
