// @ts-check
// The referee's tools (/referee): the PIN session, the position's JSON editor, diagnostics,
// the camera picture and the manual corner fallback, the board learned anew.
import { $, button, field, isOpen, post, said, say, showRefusal, state, words } from "./core.js";
import { showJoinCodes } from "./join_codes.js";
import { wireLeague } from "./league_referee.js";
import {
  applyCorrection, applyTaps, discardTaps, endCorrection, loadPosition, startCorrection,
} from "./referee_board.js";

// a word where the table has one, else the text as it came (a count, a device's message)
const sayIf = (key, text) => (key in words ? say(key) : String(text));

// how the camera found the board, and how sure the pose is, in one sentence
const BOARD_FOUND = {
  markers: "board_found.markers",
  one_marker: "board_found.one_marker",
  pattern: "board_found.pattern",
  clicked: "board_found.clicked",
};
/** @param {{way: string, markers: number, error_px: number, matched: number | null}} found */
const sayBoardFound = (found) => {
  const said = say(BOARD_FOUND[found.way] ?? "board_found.markers", found);
  return found.matched === null ? said : `${said}, ${say("board_found.matched", found)}`;
};

// diagnostics as a table of words; a value that is a table itself becomes "key value, ..."
export async function loadDiagnostics() {
  const response = await fetch("/api/diagnostics");
  if (!response.ok) return;
  const diagnostics = await response.json();
  const rows = Object.entries(diagnostics).map(([key, value]) => {
    const row = document.createElement("tr");
    const name = document.createElement("th");
    name.scope = "row";
    name.textContent = say(`diagnostics.${key}`);
    const shown = document.createElement("td");
    shown.dataset.key = key;
    if (value === null || value === "") shown.textContent = "–";
    else if (key === "board_found") shown.textContent = sayBoardFound(value);
    else if (typeof value === "object") {
      const parts = Object.entries(value).map(([k, v]) => `${sayIf(`diagnostics.count.${k}`, k)}: ${v}`);
      shown.textContent = parts.length ? parts.join(", ") : "–";
    } else shown.textContent = sayIf(`diagnostics.value.${value}`, value);
    row.append(name, shown);
    return row;
  });
  $("diagnostics-data").replaceChildren(...rows);
  // a damaged log moved aside at start: said at the top of the tools, not only in the table
  $("log-damaged").hidden = !diagnostics.damaged_log;
  if (diagnostics.damaged_log) $("log-damaged").textContent = say("log_damaged", { path: diagnostics.damaged_log });
  if (document.activeElement !== $("settle-ms")) field("settle-ms").value = diagnostics.settle_ms;
  // the camera tools only where there is a camera
  $("camera-view").hidden = diagnostics.camera === "none";
}

async function applyPosition() {
  let record;
  try {
    record = JSON.parse(field("position-record").value);
  } catch (error) {
    $("position-note").textContent = say("position_not_json");
    return;
  }
  if (record === null || typeof record !== "object" || Array.isArray(record)) {
    $("position-note").textContent = say("position_not_record");
    return;
  }
  if (await post("/api/position", { record })) $("position-note").textContent = say("position_set");
}

export function wireReferee() {
  const on = (id, handler) => { if ($(id)) $(id).onclick = handler; };
  on("login", async (e) => {
    e.preventDefault();
    const response = await fetch("/api/referee/login", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pin: field("pin").value }),
    });
    field("pin").value = "";
    const answer = await response.json().catch(() => ({}));
    if (response.status === 429 && answer.said) {
      showLockout(said(answer.said), Number(response.headers.get("Retry-After")) || 60);
    } else if (!response.ok) {
      showRefusal(answer.said ? said(answer.said) : say("server.failed", { status: response.status }));
    } else {
      $("refusal").hidden = true;
      await refereeSession();
    }
  });
  on("logout", async () => { await post("/api/referee/logout"); await refereeSession(); });
  on("correct-start", startCorrection);
  on("correct-cancel", () => endCorrection());
  on("correct-apply", applyCorrection);
  on("position-cells-apply", applyTaps);
  on("position-cells-discard", discardTaps);
  on("settle-apply", () => post("/api/settings", { settle_ms: Number(field("settle-ms").value) }));
  on("position-reload", loadPosition);
  on("position-apply", applyPosition);
  on("camera-corners", startCorners);
  on("camera-learn", learnBoard);
  if ($("camera-picture")) $("camera-picture").onclick = clickCorner;
  if ($("camera-view")) $("camera-view").ontoggle = () => { if (isOpen("camera-view")) loadCameraView(true); };
  if ($("diagnostics")) $("diagnostics").ontoggle = () => { if (isOpen("diagnostics")) loadDiagnostics(); };
  wireLeague();
}

// too many wrong PINs: the login waits, and says why and for how long, until it may try again
let lockoutShown = 0; // the timer that lets the login try again

function showLockout(text, seconds) {
  $("pin-lock").textContent = text;
  $("pin-lock").hidden = false;
  button("login").disabled = true;
  clearTimeout(lockoutShown);
  lockoutShown = setTimeout(() => { $("pin-lock").hidden = true; button("login").disabled = false; }, seconds * 1000);
}

// the snapshot with the cell overlay: fetched after a change, at most every 2 s
let cameraFetched = 0;
export async function loadCameraView(force = false) {
  if (cornerClicks && cornerClicks.points.length) return; // keep the picture being clicked
  if (!force && Date.now() - cameraFetched < 2000) return;
  cameraFetched = Date.now();
  const response = await fetch("/api/camera.png");
  const note = $("camera-note");
  if (!response.ok) {
    const reason = (await response.json().catch(() => ({}))).detail || response.status;
    note.textContent = say("no_camera_view", { reason });
    $("camera-picture").hidden = true;
    return;
  }
  const picture = /** @type {HTMLImageElement} */ ($("camera-picture"));
  if (picture.src) URL.revokeObjectURL(picture.src);
  picture.src = URL.createObjectURL(await response.blob());
  picture.hidden = false;
  if (cornerClicks) promptCorner(); else note.textContent = "";
}

// the manual fallback for a board whose markers are not in view: the referee clicks
// the corner cells (lit on the board drawing) on the camera picture, in order
export let cornerClicks = null;
async function startCorners() {
  const response = await fetch("/api/camera/corners");
  if (!response.ok) {
    showRefusal((await response.json().catch(() => ({}))).detail || response.statusText);
    return;
  }
  cornerClicks = { cells: (await response.json()).cells, points: [] };
  await loadCameraView(true);
  $("camera-picture").classList.add("clicking");
  promptCorner();
}

export function promptCorner() {
  document.querySelectorAll(".cell.corner").forEach((c) => c.classList.remove("corner"));
  if (!cornerClicks) return;
  const n = cornerClicks.points.length;
  const cell = cornerClicks.cells[n];
  document.querySelectorAll(`.cell[data-cell="${cell}"]`).forEach((c) => c.classList.add("corner"));
  $("camera-note").textContent = say("click_corner", { cell, n: n + 1 });
}

async function clickCorner(event) {
  if (!cornerClicks) return;
  const picture = event.currentTarget;
  const box = picture.getBoundingClientRect();
  const x = ((event.clientX - box.left) / box.width) * picture.naturalWidth;
  const y = ((event.clientY - box.top) / box.height) * picture.naturalHeight;
  cornerClicks.points.push([x, y]);
  if (cornerClicks.points.length < 4) { promptCorner(); return; }
  const points = cornerClicks.points;
  cornerClicks = null;
  promptCorner();
  picture.classList.remove("clicking");
  if (await post("/api/camera/corners", { points })) {
    await loadCameraView(true);
    $("camera-note").textContent = say("corners_set");
  } else {
    $("camera-note").textContent = "";
  }
}

async function learnBoard() {
  const answer = await post("/api/camera/learn");
  if (answer) {
    await loadCameraView(true);
    // a board game's reader says what it learned; Hägar's mat reader does not
    $("camera-note").textContent = answer.said?.key ? said(answer.said) : say("board_learned");
  }
}

// Logged in, the tools are "opening" (laid out, unseen) until what they show has
// loaded and been drawn, then shown at once: nothing moves under a referee's finger.
export async function refereeSession() {
  const session = await (await fetch("/api/referee/session")).json();
  if (!session.ok) {
    document.body.dataset.referee = "no";
    return;
  }
  document.body.dataset.referee = "opening";
  try {
    await Promise.all([loadDiagnostics(), loadPosition(), state && showJoinCodes()]);
  } finally {
    document.body.dataset.referee = "yes";
  }
}

