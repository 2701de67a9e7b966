// @ts-check
// The referee's board tools (/referee): the last move replaced by tapping the board
// or picking a legal move, and the position set by tapping cells with a piece. The
// page only proposes; the service checks each correction and position as a whole.
import { $, button, field, post, render, said, say, state } from "./core.js";
import { capitalised } from "./header.js";
import { pieceColour } from "./sim.js";

// replacing the last move: what may replace it (GET /api/correction), the piece
// tapped, the moves that fit the taps, the one chosen
let correcting = null;
// setting the position: the pieces a tap may set, the one picked ("" for empty),
// and the taps so far as [cell, token or null]
let editing = { pieces: [], picked: null, taps: [], game: null };
// up to so many moves in the place of the last one are listed before a piece is tapped
const FEW = 12;

export async function startCorrection() {
  const response = await fetch("/api/correction");
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    // nothing to correct now: why, and what to do instead, in the page's language
    note("correct-note", answer.said ? said(answer.said) : answer.detail || response.statusText);
    return;
  }
  endEditing();
  correcting = { ...answer, plies: state.plies, origin: null, tapped: [], fitting: [], chosen: null };
  field("correct-move").value = "";
  showCorrection();
}

// whether the referee is replacing the last move now (the header says so)
export const correctingNow = () => correcting !== null;

export function endCorrection(words = "") {
  correcting = null;
  showCorrection();
  note("correct-note", words);
}

const movesFrom = (cell) => correcting.moves.filter((m) => m.path[0] === cell);
// moves that are paths are told by their first and last cell; others (a Hakenschlagen
// turn, a card, a coaster) by the cells whose pieces they change
const byPath = () => correcting.moves.some((m) => m.path.length);
const last = (move) => move.path[move.path.length - 1];

// a tap while replacing: first the piece that moved, then where it really went; or,
// for moves that are no path, each cell the move changed, until one move is left
function tapCorrection(cell) {
  if (byPath()) {
    const from = movesFrom(cell);
    const ending = correcting.origin ? movesFrom(correcting.origin).filter((m) => last(m) === cell) : [];
    if (ending.length) correcting.fitting = ending;
    else if (from.length) Object.assign(correcting, { origin: cell, fitting: from });
    else return;
    correcting.chosen = ending.length === 1 ? ending[0] : null;
  } else {
    const tapped = correcting.tapped.includes(cell)
      ? correcting.tapped.filter((c) => c !== cell) : [...correcting.tapped, cell];
    const fitting = correcting.moves.filter((m) => tapped.every((c) => m.cells.includes(c)));
    if (!fitting.length) return; // no move changes all these cells: the tap is not taken
    Object.assign(correcting, { tapped, fitting, chosen: fitting.length === 1 ? fitting[0] : null });
  }
  if (correcting.chosen) field("correct-move").value = correcting.chosen.move;
  showCorrection();
}

function choose(move) {
  correcting.chosen = move;
  field("correct-move").value = move.move;
  showCorrection();
}

// the words, the moves to pick from (those of the piece tapped, or all where the
// moves have no cells to tap) and the drawing, all from ``correcting``
function showCorrection() {
  $("correct-cancel").hidden = !correcting;
  $("correct-start").hidden = Boolean(correcting);
  let pick = [];
  if (correcting && (correcting.origin || correcting.tapped.length)) pick = correcting.fitting;
  else if (correcting && (correcting.moves.length <= FEW || !byPath())) pick = correcting.moves;
  $("correct-moves").replaceChildren(...pick.map((move) => {
    const button = document.createElement("button");
    button.textContent = move.move;
    button.dataset.move = move.move;
    button.className = correcting.chosen === move ? "chosen" : "";
    button.onclick = () => choose(move);
    return button;
  }));
  if (correcting) {
    const step = correcting.chosen ? "correct_apply_hint"
      : correcting.origin ? "correct_tap_target" : correcting.tapped.length ? "correct_tap_more"
        : byPath() ? "correct_tap_piece" : "correct_tap_cell";
    note("correct-note", say(step, { move: correcting.replaces || "–", chosen: correcting.chosen?.move || "" }));
  }
  render();
}

export async function applyCorrection() {
  const move = field("correct-move").value.trim();
  if (!move) return;
  const replaced = correcting ? correcting.replaces : null;
  if (await post("/api/correct", { move })) {
    field("correct-move").value = "";
    endCorrection(replaced ? say("correct_done", { move: replaced, chosen: move }) : "");
  }
}

// --- the position, set by taps ---------------------------------------------------------

// the position as it stands: the JSON record for the advanced editor, and the
// pieces this game's taps may set (a new game has its own)
export async function loadPosition() {
  editing = { ...editing, game: state?.commitment ?? null };
  const response = await fetch("/api/position");
  if (!response.ok) return;
  const answer = await response.json();
  field("position-record").value = JSON.stringify(answer.record, null, 1);
  editing = { ...editing, pieces: answer.pieces, picked: null, taps: [] };
  showPalette();
}

function showPalette() {
  const choices = [{ token: "", single: false }, ...editing.pieces];
  $("position-palette").replaceChildren(...choices.map(({ token }) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `sim-piece${editing.picked === token ? " chosen" : ""}`;
    button.dataset.token = token;
    button.setAttribute("aria-pressed", String(editing.picked === token));
    const swatch = document.createElement("span");
    swatch.className = "sim-swatch";
    swatch.style.background = token && state ? pieceColour(token) : "transparent";
    const name = document.createElement("span");
    name.textContent = capitalised(token ? say(`token.${token}`) : say("position_empty")); // a button's label
    button.append(swatch, name);
    button.onclick = () => { endCorrection(); editing.picked = token; showPalette(); };
    return button;
  }));
  $("position-by-taps").hidden = !editing.pieces.length;
  for (const id of ["position-cells-apply", "position-cells-discard"]) button(id).disabled = !editing.taps.length;
  note("position-note", editing.taps.length ? say("position_taps", { n: editing.taps.length }) : "");
  render();
}

function tapPosition(cell) {
  if (editing.picked === null) return;
  editing.taps = editing.taps.filter(([tapped]) => tapped !== cell);
  editing.taps.push([cell, editing.picked || null]);
  showPalette();
}

function endEditing() {
  editing.picked = null;
  editing.taps = [];
  showPalette();
}

export async function applyTaps() {
  const placings = editing.taps.map(([cell, token]) => ({ cell, token }));
  if (await post("/api/position/cells", { placings })) {
    editing.taps = []; // the piece picked stays picked, for the next taps
    showPalette();
    note("position-note", say("position_set"));
  }
}

export const discardTaps = endEditing;

// --- on the board --------------------------------------------------------------------------

export function tapRefereeCell(cell) {
  if (correcting) tapCorrection(cell);
  else tapPosition(cell);
}

// What the referee's board shows while a tool is in use, as [pieces, marks], or null
// for the game as it stands: the position before the last move with the pieces
// that may move lit, or the position with the taps so far.
export function refereeDrawing() {
  if (editing.game !== state.commitment && document.body.dataset.referee === "yes") loadPosition();
  if (correcting && correcting.plies !== state.plies) endCorrection(say("correct_moved_on"));
  if (correcting && byPath()) {
    const replaced = correcting.moves.find((m) => m.move === correcting.replaces);
    return [correcting.position, {
      ...blank(), last_move: replaced ? replaced.path : [],
      hints: correcting.origin ? [] : [...new Set(correcting.moves.map((m) => m.path[0]))],
      lifted: correcting.origin, destinations: correcting.origin ? correcting.fitting.map(last) : [],
      expected_path: correcting.chosen ? correcting.chosen.path : [],
    }];
  }
  if (correcting) { // the cells the moves still fitting change, those tapped ringed
    const fitting = correcting.tapped.length ? correcting.fitting : correcting.moves;
    const lit = new Set(fitting.flatMap((m) => m.cells));
    return [correcting.position, {
      ...blank(), destinations: correcting.tapped,
      hints: [...lit].filter((c) => !correcting.tapped.includes(c)),
    }];
  }
  if (!editing.taps.length) return null;
  const pieces = { ...state.position };
  for (const [cell, token] of editing.taps) {
    const single = editing.pieces.some((p) => p.token === token && p.single);
    if (single) for (const id in pieces) if (pieces[id] === token) pieces[id] = null;
    pieces[cell] = token;
  }
  return [pieces, { ...blank(), destinations: editing.taps.map(([cell]) => cell) }];
}

// the marks of the state with none of the referee's highlights of the game's moment
const blank = () => ({
  ...state, destinations: [], errors: [], lifted: null, place: null, remove: null,
  selected: null, expected_path: [], last_move: [], hints: [],
});

function note(id, text) {
  $(id).textContent = text;
}
