// The referee's tools (/referee): diagnostics, the camera picture and the manual
// corner fallback, the board learned anew, the PIN session.
"use strict";

async function loadDiagnostics() {
  const response = await fetch("/api/diagnostics");
  if (!response.ok) return;
  const diagnostics = await response.json();
  $("diagnostics-data").textContent = JSON.stringify(diagnostics, null, 1);
  if (document.activeElement !== $("settle-ms")) $("settle-ms").value = diagnostics.settle_ms;
}

// the snapshot with the cell overlay: fetched after a change, at most every 2 s
let cameraFetched = 0;
async function loadCameraView(force = false) {
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
  const picture = $("camera-picture");
  if (picture.src) URL.revokeObjectURL(picture.src);
  picture.src = URL.createObjectURL(await response.blob());
  picture.hidden = false;
  if (cornerClicks) promptCorner(); else note.textContent = "";
}

// the manual fallback for a board whose markers are not in view: the referee clicks
// the corner cells (lit on the board drawing) on the camera picture, in order
let cornerClicks = null;
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

function promptCorner() {
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
  if (await post("/api/camera/learn")) {
    await loadCameraView(true);
    $("camera-note").textContent = say("board_learned");
  }
}

async function refereeSession() {
  const session = await (await fetch("/api/referee/session")).json();
  document.body.dataset.referee = session.ok ? "yes" : "no";
}

