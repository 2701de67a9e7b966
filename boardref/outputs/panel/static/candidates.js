// @ts-check
// The moves the table asks about when several fit the board (state.choices): each is
// drawn on the board (its path, and the pieces it would leave where it changes the
// board) with a numbered badge, and offered as a button named by what differs between
// them. Hovering or focusing a button lights its move on the board; tapping a move on
// the board lights it, and tapping the lit one (or a button) chooses it. It never
// decides which move was played: the choice is the player's, posted to the service.
import { el, GAMES, OVERLAYS, tokenColour } from "./board.js";
import { $, post, render, role, say, sayMove, sayName, seat, state, view } from "./core.js";
import { capitalised } from "./header.js";

// the choice lit on the board: its move's notation, so a new question starts unlit
let lit = null;

const mayChoose = () => role !== "watch" && (role !== "play" || state.acting === seat);

function light(move) {
  if (lit === move) return;
  lit = move;
  render();
}

function choose(move) {
  if (mayChoose()) post("/api/choose", { move });
}

// --- the buttons ---------------------------------------------------------------------
export function showCandidates() {
  const choices = state.choices || [];
  if (!choices.some((choice) => choice.move === lit)) lit = null;
  const labels = choiceLabels(choices);
  const buttons = choices.map((choice, n) => {
    const button = document.createElement("button");
    const mark = document.createElement("span");
    mark.className = "choice-mark";
    mark.textContent = String(n + 1);
    const words = document.createElement("span");
    words.className = "choice-words";
    words.textContent = labels[n];
    button.append(mark, words);
    button.dataset.move = choice.move;
    button.dataset.lit = choice.move === lit ? "yes" : "no";
    button.disabled = !mayChoose();
    button.onclick = () => choose(choice.move);
    button.onmouseenter = button.onfocus = () => light(choice.move);
    return button;
  });
  const box = $("candidates");
  // the same buttons stay (and keep the focus) while only the lit one changes
  const same = box.children.length === buttons.length && buttons.every((button, n) => {
    const shown = /** @type {HTMLButtonElement} */ (box.children[n]);
    return shown.dataset.move === button.dataset.move && shown.textContent === button.textContent;
  });
  if (!same) {
    box.replaceChildren(...buttons);
    return;
  }
  buttons.forEach((button, n) => {
    const shown = /** @type {HTMLButtonElement} */ (box.children[n]);
    shown.dataset.lit = button.dataset.lit;
    shown.disabled = button.disabled;
  });
}

// --- the words -------------------------------------------------------------------------
// Each choice's words, none the same as another's: the game's words for a choice where
// they tell the moves apart, else what each leaves where the moves differ ("fox on the
// left, molehill on the right").
export function choiceLabels(choices) {
  if (!choices.length) return [];
  const game = GAMES[state.game] || {};
  const apart = (labels) => labels && new Set(labels).size === labels.length;
  const own = game.choiceWords ? game.choiceWords(choices, state) : null;
  const labels = apart(own) ? own : differences(choices, game);
  return labels.map(capitalised);
}

// What each choice leaves on the cells where the choices differ (every choice names
// the same cells: each one any of them changes), each cell named by where it lies among
// those cells; a choice that leaves them all empty says so of the first.
function differences(choices, game) {
  const cells = Object.keys(choices[0].after);
  const at = (choice, cell) => JSON.stringify(choice.after[cell]);
  // one move alone (the camera doubts it) is said by all it changes
  const contested = choices.length === 1 ? cells
    : cells.filter((cell) => new Set(choices.map((choice) => at(choice, cell))).size > 1);
  // moves that leave the same pieces (a hare that turned on the way, or not) differ in
  // the game's words for them alone
  if (!contested.length) return choices.map((choice) => sayMove(choice.move));
  const where = places(contested);
  const ordered = [...contested].sort((a, b) => where.get(a).order - where.get(b).order);
  const said = (cell, piece) => say(where.get(cell).key, { piece, ...where.get(cell).params });
  return choices.map((choice) => {
    const parts = ordered
      .filter((cell) => choice.after[cell].length)
      .map((cell) => said(cell, choice.after[cell].map((token) => pieceWords(token, game)).join(" + ")));
    return parts.length ? parts.join(", ") : said(ordered[0], say("choice.nothing"));
  });
}

function pieceWords(token, game) {
  return game.pieceWords ? game.pieceWords(token, state) : sayName(token);
}

// Where each of ``cells`` lies among them on the drawing, along the way they spread
// most: left and right (or top and bottom), the middle of three, else counted from the
// left or top.
function places(cells) {
  const xs = cells.map((id) => view.onScreen(id)[0]), ys = cells.map((id) => view.onScreen(id)[1]);
  const across = Math.max(...xs) - Math.min(...xs) >= Math.max(...ys) - Math.min(...ys);
  const along = (id) => view.onScreen(id)[across ? 0 : 1];
  const sorted = [...cells].sort((a, b) => along(a) - along(b));
  const names = across ? ["left", "middle", "right"] : ["top", "middle", "bottom"];
  const where = new Map();
  sorted.forEach((id, n) => {
    let key;
    let params = {};
    if (cells.length === 1) key = "choice.piece";
    else if (cells.length <= 3) key = `choice.${names[n === 0 ? 0 : n === cells.length - 1 ? 2 : 1]}`;
    else {
      key = across ? "choice.nth_from_left" : "choice.nth_from_top";
      params = { n: n + 1 };
    }
    where.set(id, { key, params, order: n });
  });
  return where;
}

// --- on the board ----------------------------------------------------------------------
// Every choice drawn over the board with its numbered badge and path, the lit one last,
// with what it would leave on each cell it changes; a tap on a choice lights it, a tap
// on the lit one chooses it.
function drawChoices(view, marks) {
  const choices = marks.choices || [];
  if (!choices.length || role === "sim") return;
  listen(view);
  const r = view.radius;
  const order = choices.map((choice, n) => n).sort((a, b) => Number(choices[a].move === lit) - Number(choices[b].move === lit));
  const game = GAMES[marks.game] || {};
  for (const n of order) {
    const choice = choices[n];
    const g = el("g", { class: "choice tappable", "data-choice": choice.move,
                        "data-lit": choice.move === lit ? "yes" : "no" }, view.over);
    if (choice.path.length > 1) {
      const points = choice.path.map((id) => view.at(id).join(",")).join(" ");
      el("polyline", { points, class: "choice-path", "stroke-width": r * 0.35 }, g);
    }
    // the lit choice shows what it leaves; the others only their path and badge
    for (const [cell, pieces] of choice.move === lit ? Object.entries(choice.after) : []) {
      const [x, y] = view.at(cell);
      if (!pieces.length) {
        el("circle", { cx: x, cy: y, r: r * 1.05, class: "choice-left" }, g);
        continue;
      }
      el("circle", { cx: x, cy: y, r: r * 1.3, class: "choice-spot" }, g);
      const token = pieces[pieces.length - 1];
      if (!(game.figure && game.figure(view, g, cell, token))) {
        el("circle", { cx: x, cy: y, r: r * 0.8, fill: tokenFill(token, game), class: "choice-piece" }, g);
      }
    }
    badge(view, g, choice, n, choices.length);
  }
}

function tokenFill(token, game) {
  return tokenColour((game.piece && game.piece(token)) || token);
}

// the choice's number beside where it ends, turned a little further round for each
// choice so that choices ending on one cell show every badge
function badge(view, g, choice, n, count) {
  const cells = choice.path.length ? [choice.path[choice.path.length - 1]]
    : Object.keys(choice.after).filter((cell) => choice.after[cell].length);
  const [x, y] = view.at(cells[0] || Object.keys(choice.after)[0]);
  const r = view.radius;
  const angle = -Math.PI / 4 + (2 * Math.PI * n) / Math.max(count, 4);
  const [bx, by] = [x + Math.cos(angle) * r * 2, y + Math.sin(angle) * r * 2];
  const mark = el("g", { class: "choice-badge" }, g);
  el("circle", { cx: bx, cy: by, r: r * 0.85, class: "choice-disc" }, mark);
  el("text", { x: bx, y: by, "font-size": r * 1.1, class: "choice-number", "text-anchor": "middle",
               "dominant-baseline": "central" }, mark).textContent = String(n + 1);
}

// one listener per board drawing: the choices are drawn afresh with every state
const listening = new WeakSet();
function listen(view) {
  if (listening.has(view.svg)) return;
  listening.add(view.svg);
  view.svg.addEventListener("click", (event) => {
    const drawn = event.target.closest && event.target.closest("[data-choice]");
    if (!drawn || !mayChoose()) return;
    const move = drawn.dataset.choice;
    if (move === lit) choose(move);
    else light(move);
  });
}

OVERLAYS.push(drawChoices);
