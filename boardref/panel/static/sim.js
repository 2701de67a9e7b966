// The virtual board of a simulated table (/sim): lifting and putting down pieces as
// a person would on the real board. The service holds the board; this page asks it.
"use strict";

let simPieces = {};
let inHand = null; // {cell, token} of a piece lifted on the virtual board

async function loadSimBoard() {
  simPieces = await (await fetch("/api/sim/board")).json();
}

// --- the virtual board ---------------------------------------------------------------
const placed = {}; // tokens of pieces put down on the virtual board, until the game knows them

async function clickSimCell(cell) {
  if (!inHand) {
    if (!simPieces[cell]) return;
    const tokenOf = state.position[cell] || placed[cell] || "piece";
    if (await post("/api/sim/lift", { cell })) {
      inHand = { cell, token: tokenOf };
      delete placed[cell];
    }
  } else if (cell === inHand.cell || !simPieces[cell]) {
    if (await post("/api/sim/place", { cell })) {
      placed[cell] = inHand.token;
      inHand = null;
    }
  }
  await loadSimBoard();
  render();
}

