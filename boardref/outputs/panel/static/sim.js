// @ts-check
// The virtual board of a simulated table (/sim): lifting and putting down pieces as
// a person would on the real board. The service holds the pieces, the hand, the tray
// and the supply (state.virtual), so they are the same on every page and survive a
// reload; this page draws them and asks the service to move them. It never decides.
import { GAMES, tokenColour } from "./board.js";
import { $, post, render, say, showRefusal, state, view } from "./core.js";
import { update, updateChildren } from "./update.js";

let inHand = null; // the id of the piece in hand chosen to put down next (null: the last lifted)
let posted = null; // the virtual board as the last action's answer gave it
let acting = Promise.resolve(); // the hand's actions, one after the other
let pickingFrom = null; // a cell whose pieces stand side by side: the hand takes which?

// The newest virtual board this page has: a POST's answer may come before the
// WebSocket's push of the same change, or after it.
function virtualNow() {
  const pushed = state && state.virtual;
  if (!pushed || !posted) return pushed || null;
  return posted.version > pushed.version ? posted : pushed;
}

function chosenPiece() {
  const virtual = virtualNow();
  const hand = virtual ? virtual.hand : [];
  return hand.find((piece) => piece.id === inHand) || hand[hand.length - 1] || null;
}

// A hand's action, queued after the ones before it, so that each click is judged
// on the board the last one left.
// ``decide()`` gives [path, body] when its turn comes, or null for nothing to do.
function simDo(decide) {
  acting = acting.then(() => {
    const [path, body] = decide() || [];
    return path ? simPost(path, body) : null;
  }).catch((error) => showRefusal(String(error)));
  return acting;
}

function simAct(path, body) {
  return simDo(() => [path, body]);
}

// A POST of a hand's action with the board version this page shows (a refusal is
// said by post(), in the reader's language).
async function simPost(path, body) {
  body.version = virtualNow().version;
  const answer = await post(path, body);
  if (answer) {
    inHand = null;
    pickingFrom = null;
    posted = answer;
    render();
  }
  return answer;
}

// A click on a cell: put the chosen piece down there, or lift the top piece. On a
// board of one piece a hole, a click on a piece lifts it even with a piece in hand.
// Where different pieces stand side by side (a hat beside towers on a grey field),
// the page asks which one the hand takes.
export function clickSimCell(cell) {
  return simDo(() => {
    const virtual = virtualNow();
    if (!virtual) return null;
    const piece = chosenPiece();
    const here = virtual.stacks[cell] || [];
    if (piece && (virtual.stacking || !here.length)) return ["/api/sim/place", { cell, piece: piece.id }];
    if (virtual.stacking && new Set(here).size > 1) {
      pickingFrom = cell;
      render();
      return null;
    }
    return ["/api/sim/lift", { cell }];
  });
}

// Put the chosen piece off the board: into the tray, or back into the supply.
function putOff(off) {
  return simDo(() => {
    const piece = chosenPiece();
    return piece ? ["/api/sim/place", { off, piece: piece.id }] : null;
  });
}

// What the virtual board shows on each cell: its pieces joined as a camera names
// several on one field ("red+red"), and the stacks for games that draw them.
export function simPieces() {
  const pieces = {};
  for (const [cell, stack] of Object.entries(virtualNow().stacks)) pieces[cell] = stack.join("+");
  return pieces;
}

export function simMarks() {
  const piece = chosenPiece();
  const selected = piece && view.cells.has(piece.origin) ? piece.origin : null;
  return { ...state, stacks: virtualNow().stacks, selected };
}

// The colour a piece shows: the game's say where it has one (a hat's top, a hare's
// colour), else the token as a colour name.
export function pieceColour(token) {
  const game = GAMES[state.game] || {};
  return tokenColour((game.colourOf && game.colourOf(token)) || token);
}

function pieceButton(token, label, onClick) {
  const button = document.createElement("button");
  button.className = "sim-piece";
  button.dataset.token = token;
  const swatch = document.createElement("span");
  swatch.className = "sim-swatch";
  swatch.style.background = pieceColour(token);
  button.append(swatch);
  if (label) {
    const text = document.createElement("span");
    text.textContent = label;
    button.append(text);
  }
  button.title = token;
  button.setAttribute("aria-label", `${token} ${label || ""}`.trim());
  button.onclick = onClick;
  return button;
}

// The hand, the tray and the supply beside the board.
export function showSimSide() {
  const virtual = virtualNow();
  update($("sim-side"), "hidden", !virtual);
  if (!virtual) return;
  const chosen = chosenPiece();
  update($("sim-help"), "textContent", say(chosen ? "sim.help_holding" : "sim.help_empty"));
  const inHandNow = virtual.hand.map((piece) => {
    const button = pieceButton(piece.token, say(`sim.from_${view.cells.has(piece.origin) ? "cell" : piece.origin}`,
                                                { cell: piece.origin }), () => { inHand = piece.id; render(); });
    button.dataset.piece = piece.id;
    button.dataset.origin = piece.origin;
    button.classList.toggle("chosen", chosen && piece.id === chosen.id);
    return button;
  });
  updateChildren($("sim-hand"), orSaid(inHandNow, "sim.hand_empty"));
  const picking = chosen ? null : pickingFrom;
  const beside = picking ? [...new Set(virtual.stacks[picking] || [])] : [];
  update($("sim-cell-box"), "hidden", beside.length < 2);
  update($("sim-cell-title"), "textContent", picking ? say("sim.on_cell", { cell: picking }) : "");
  updateChildren($("sim-cell"), beside.map((token) => {
    const button = pieceButton(token, insideCount(token), () => simAct("/api/sim/lift", { cell: picking, token }));
    button.dataset.cell = picking;
    return button;
  }));
  update($("sim-to-tray"), "disabled", !chosen);
  update($("sim-unpack"), "hidden", !virtual.stacking);
  update($("sim-unpack"), "disabled", !(chosen && isTower(chosen.token)));
  updateChildren($("sim-tray"), orSaid(virtual.tray.map((token) =>
    pieceButton(token, "", () => simAct("/api/sim/lift", { off: "tray", token }))), "sim.tray_empty_now"));
  const kinds = Object.keys(virtual.supply);
  update($("sim-supply-box"), "hidden", !kinds.length);
  updateChildren($("sim-supply"), kinds.map((token) =>
    pieceButton(token, say("sim.supply_left", { piece: token, count: virtual.supply[token] }),
                () => simAct("/api/sim/lift", { off: "supply", token }))));
  update($("sim-to-supply"), "disabled", !(chosen && chosen.token in virtual.supply));
}

// ``nodes``, or the words ``key`` where there are none
function orSaid(nodes, key) {
  return nodes.length ? nodes : [document.createTextNode(say(key))];
}

// How many pieces a token names ("red[blue,green]": 3, a tower; the golden hat on a hat: 2).
function pieceCount(token) {
  return (token.match(/[a-z0-9_]+/g) || []).length;
}

// A piece that holds others (a tower "red[blue,green]", the golden hat on a hat).
function isTower(token) {
  return pieceCount(token) > 1;
}

// How many pieces a tower holds, as the board marks it ("+2"); "" for one piece.
function insideCount(token) {
  return isTower(token) ? `+${pieceCount(token) - 1}` : "";
}

// Take the chosen tower apart: its hats come into the hand one by one.
function unpack() {
  return simDo(() => {
    const piece = chosenPiece();
    return piece ? ["/api/sim/unpack", { piece: piece.id }] : null;
  });
}

export function wireSim() {
  $("sim-unpack").onclick = unpack;
  $("sim-to-tray").onclick = () => putOff("tray");
  $("sim-to-supply").onclick = () => putOff("supply");
}

// A new game starts with nothing chosen in the hand.
export function forgetChosen() {
  inHand = null;
}
