// @ts-check
// The referee page's Board tab (/referee): the board check as a drawing of the board's
// cells (state, change count and flag per sensor), the link's counters, what the check
// found in words, and the LED test. Polls once a second while the tab is open.
import { $, field, isOpen, post, said, say, sayCell } from "./core.js";

const BOARD_CHECK_POLL = 1000;
const BOARD_FINDINGS_SHOWN = 6;
let boardGeometry = null;
let boardCheckTimer = null;

async function loadBoardGeometry() {
  const response = await fetch("/api/board");
  if (response.ok) boardGeometry = await response.json();
}

// the cells where they lie on the board, each a circle coloured by its flag, with its
// change count inside; a cell whose sensor holds a piece now is filled
function drawBoardCheck(report) {
  const svg = $("board-check-grid");
  if (!boardGeometry) return;
  const cells = boardGeometry.cells;
  const xs = cells.map((c) => c.x), ys = cells.map((c) => c.y);
  const minX = Math.min(...xs), minY = Math.min(...ys);
  const spanX = Math.max(...xs) - minX || 1, spanY = Math.max(...ys) - minY || 1;
  // the nearest two cells set the circle size
  let pitch = Infinity;
  for (let i = 0; i < Math.min(cells.length, 40); i++) {
    for (let j = i + 1; j < cells.length; j++) {
      const d = Math.hypot(cells[i].x - cells[j].x, cells[i].y - cells[j].y);
      if (d > 0 && d < pitch) pitch = d;
    }
  }
  if (!isFinite(pitch)) pitch = Math.max(spanX, spanY);
  const r = pitch * 0.45, pad = pitch * 0.6;
  svg.setAttribute("viewBox", `${minX - pad} ${minY - pad} ${spanX + 2 * pad} ${spanY + 2 * pad}`);
  const byCell = new Map(report.sensors.filter((s) => s.cell).map((s) => [s.cell, s]));
  const ns = "http://www.w3.org/2000/svg";
  const parts = [];
  for (const cell of cells) {
    const sensor = byCell.get(cell.id);
    const group = document.createElementNS(ns, "g");
    const flag = sensor ? sensor.flag : "unwired";
    group.setAttribute("class", `check-cell flag-${flag}${sensor && sensor.state ? " on" : ""}`);
    group.dataset.cell = cell.id;
    const circle = document.createElementNS(ns, "circle");
    circle.setAttribute("cx", cell.x);
    circle.setAttribute("cy", cell.y);
    circle.setAttribute("r", String(r));
    const count = document.createElementNS(ns, "text");
    count.setAttribute("x", cell.x);
    count.setAttribute("y", cell.y);
    count.setAttribute("font-size", String(r));
    count.textContent = sensor ? String(sensor.changes) : "–";
    const title = document.createElementNS(ns, "title");
    // the sensor's number, and on a magnet board its reading between its thresholds
    let label = sensor ? `${sayCell(cell.id)} · ${sensor.sensor}` : sayCell(cell.id);
    if (sensor && sensor.reading !== null && sensor.reading !== undefined) {
      label += ` · ${sensor.reading} (${sensor.south} .. ${sensor.north})`;
    }
    title.textContent = label;
    group.append(circle, count, title);
    parts.push(group);
  }
  svg.replaceChildren(...parts);
}

function showBoardCheck(report) {
  drawBoardCheck(report);
  // the first few in full; a board not swept yet has a finding for nearly every cell
  const found = report.findings.slice(0, BOARD_FINDINGS_SHOWN).map((words) => {
    const item = document.createElement("li");
    item.textContent = said(words);
    return item;
  });
  if (report.findings.length > BOARD_FINDINGS_SHOWN) {
    const more = document.createElement("li");
    more.textContent = say("board_more", { n: report.findings.length - BOARD_FINDINGS_SHOWN });
    found.push(more);
  }
  if (!found.length) {
    const item = document.createElement("li");
    item.className = "all-well";
    item.textContent = say("board_all_well");
    found.push(item);
  }
  $("board-check-findings").replaceChildren(...found);
  $("board-check-strip").textContent = said(report.strip);
  const counts = { scans: report.scans, ...report.link };
  $("board-check-link").replaceChildren(...Object.entries(counts).map(([key, value]) => {
    const row = document.createElement("tr");
    const name = document.createElement("th");
    name.scope = "row";
    name.textContent = say(`board_${key}`);
    const shown = document.createElement("td");
    shown.textContent = String(value);
    row.append(name, shown);
    return row;
  }));
}

async function loadBoardCheck() {
  const response = await fetch("/api/board/check");
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    $("board-check-findings").replaceChildren();
    const item = document.createElement("li");
    item.textContent = body.said ? said(body.said) : String(body.detail || response.status);
    $("board-check-findings").append(item);
    return false;
  }
  showBoardCheck(body);
  return true;
}

async function pollBoardCheck() {
  clearTimeout(boardCheckTimer);
  if (!isOpen("board-check") || document.body.dataset.referee !== "yes") return;
  if (!boardGeometry) await loadBoardGeometry();
  if (await loadBoardCheck()) boardCheckTimer = setTimeout(pollBoardCheck, BOARD_CHECK_POLL);
}

async function ledTest(mode) {
  const body = { mode, colour: field("board-led-colour").value, cell: undefined };
  if (mode === "cell") body.cell = field("board-led-cell").value.trim();
  if (await post("/api/board/leds", body)) {
    const what = mode === "cell" ? body.cell : say(`board_led_${mode}`);
    $("board-led-note").textContent = mode === "off" ? "" : say("board_led_lit", { what });
  }
}

// mapping the LED strip: one LED lights at a time; the maker taps the cell it lights
let stripMap = null;
function showStripMap(map) {
  stripMap = map.led === null ? null : map;
  $("board-map-skip").hidden = stripMap === null;
  if (stripMap) {
    $("board-led-note").textContent = say("board_map_lit", { led: map.led, count: map.count });
  } else {
    $("board-led-note").textContent = map.saved ? say("board_map_saved", { path: map.saved })
      : say("board_map_done");
    loadBoardCheck();
  }
}

async function postStrip(path, body = {}) {
  const response = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    $("board-led-note").textContent = answer.said ? said(answer.said) : String(answer.detail || response.status);
    return;
  }
  showStripMap(answer);
}

function wireBoardCheck() {
  if (!$("board-check")) return;
  $("board-check").ontoggle = pollBoardCheck;
  $("board-check-reset").onclick = async () => {
    if (await post("/api/board/check/reset")) await loadBoardCheck();
  };
  $("board-led-cell-apply").onclick = () => ledTest("cell");
  $("board-led-walk").onclick = () => ledTest("walk");
  $("board-led-all").onclick = () => ledTest("all");
  $("board-led-off").onclick = () => ledTest("off");
  $("board-map-strip").onclick = () => postStrip("/api/board/map/leds");
  $("board-map-skip").onclick = () => postStrip("/api/board/map/leds/claim", { cell: null });
  // a tap on a cell of the drawing lights it (the strip checked against the board),
  // or, while the strip is being mapped, names the cell under the lit LED
  $("board-check-grid").onclick = (event) => {
    const cell = /** @type {SVGElement | null} */ (/** @type {Element} */ (event.target).closest(".check-cell"));
    if (!cell) return;
    if (stripMap) {
      postStrip("/api/board/map/leds/claim", { cell: cell.dataset.cell });
      return;
    }
    field("board-led-cell").value = cell.dataset.cell;
    ledTest("cell");
  };
}

if (document.body.dataset.role === "referee") wireBoardCheck();
