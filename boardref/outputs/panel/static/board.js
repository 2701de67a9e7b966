// @ts-check
// The board as SVG, drawn from the board geometry (/api/board): lines, holes,
// pieces and the referee's highlights. It draws; it never decides anything.
import { update, updateAttribute } from "./update.js";

export const SVG = "http://www.w3.org/2000/svg";

// Piece colours by token; colour names are used as they are. The one colour table of
// the panel: the games' drawings (static/games/*.js) name their colours from it.
const TOKEN_COLOURS = {
  red: "#d62828", blue: "#1d4ed8", green: "#2a9d3f", yellow: "#f2c200",
  white: "#f4f4f4", black: "#222", hunter: "#7a4a1e", hunters: "#7a4a1e", hare: "#e8d9b5", piece: "#8a8a8a",
  orange: "#ef7d1a", pink: "#f08bb4", brown: "#8b5a2b", beige: "#e9dcb8",
  darkgreen: "#1f5130", grey: "#9ca3af", gold: "#d4a72c", straw: "#f3e3a0",
};

// Games that draw more than a coloured piece per hole register here, one module each
// in static/games/ (imported by panel.js); BoardView and panel.js call the hooks a
// game has:
//   piece(token) -> colour name or null (no piece circle: the game draws it itself)
//   draw(view, pieces, state): draw into view.ground (under the holes) and view.over
//   frame(view, state) -> [left, top, width, height] or null: the part of the board shown
//   panel(state, box): the game's part of the side panel (a hand, a coaster, scores)
//   drawn(state, box) -> true if it showed the draw itself
//   moves(state) -> the moves still offered as plain buttons
//   colourOf(token) -> the colour name of a piece held in hand or lying in the tray (sim.js)
export const GAMES = {};
//   figure(view, parent, cell, token) -> true if it drew the piece ``token`` into parent
//   pieceWords(token, state) -> the piece's name in a sentence ("the golden hat")
//   choiceWords(choices, state) -> words for each move offered to choose, or null

// What pages draw over every game's board (the moves offered to choose): each is
// called as (view, marks) after the game has drawn.
export const OVERLAYS = [];

export function registerGame(name, hooks) {
  GAMES[name] = hooks;
}

export function tokenColour(token) {
  if (TOKEN_COLOURS[token]) return TOKEN_COLOURS[token];
  let hash = 0;
  for (const ch of token) hash = (hash * 31 + ch.charCodeAt(0)) % 360;
  return `hsl(${hash}, 60%, 50%)`;
}

// The colour of seat ``n``'s pieces: the game's seat colour, else its name where that
// is a colour (hats, hares, Hägar tokens take their seat's name as colour).
export function seatColour(state, n) {
  const info = n === null || n === undefined ? null : state.seats[n];
  if (!info) return "transparent";
  const colour = info.colour || (TOKEN_COLOURS[info.name] ? info.name : null);
  return colour ? tokenColour(colour) : "transparent";
}

export function el(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// A die showing ``value`` as pips, for the games that roll one (it rolls in when drawn).
export function dieFace(value) {
  const svg = el("svg", { viewBox: "0 0 30 30", class: "die rolls", "data-value": value });
  el("rect", { x: 1, y: 1, width: 28, height: 28, rx: 5, class: "die-face" }, svg);
  const at = { 1: [[15, 15]], 2: [[8, 8], [22, 22]], 3: [[8, 8], [15, 15], [22, 22]],
               4: [[8, 8], [22, 8], [8, 22], [22, 22]], 5: [[8, 8], [22, 8], [15, 15], [8, 22], [22, 22]],
               6: [[8, 8], [22, 8], [8, 15], [22, 15], [8, 22], [22, 22]] }[value] || [];
  for (const [cx, cy] of at) el("circle", { cx, cy, r: 2.6, class: "die-pip" }, svg);
  return svg;
}

// the pictures of things standing on a cell, which a turned board keeps upright
const UPRIGHT = "g.stack[data-cell], g.tree[data-cell]";

export class BoardView {
  // container: an element to draw into; onCell(cellId): called when a cell is clicked;
  // turn: degrees clockwise the board is turned by (a phone turns it to its seat, a
  // long board stands up on a tall screen)
  constructor(container, board, onCell, turn = 0) {
    this.board = board;
    this.cells = new Map(board.cells.map((c) => [c.id, c]));
    this.radius = BoardView.pitch(board) * 0.38;
    this.turn = turn;
    const turned = board.cells.map((c) => this.rotated(c.x, -c.y));
    const xs = turned.map(([x]) => x), ys = turned.map(([, y]) => y);
    const pad = this.radius * 2;
    const left = Math.min(...xs) - pad, top = Math.min(...ys) - pad;
    const width = Math.max(...xs) - Math.min(...xs) + 2 * pad;
    const height = Math.max(...ys) - Math.min(...ys) + 2 * pad;
    // Two drawings, one over the other, each a layer of its own: the ground and the
    // lines, which stay as they are all game, under the holes, pieces and highlights
    // that a move changes, so a move paints again only the drawing over the ground.
    const viewBox = `${left} ${top} ${width} ${height}`;
    this.back = el("svg", { viewBox, class: "board-ground", "aria-hidden": "true" });
    this.svg = el("svg", { viewBox, class: "board", role: "img", "aria-label": board.title });
    const stack = document.createElement("div");
    stack.className = "board-stack";
    stack.append(this.back, this.svg);
    container.replaceChildren(stack);
    this.viewBox = [left, top, width, height];
    // the board's own coordinates, turned as a whole; its words are kept upright
    const turnedIn = (svg) => (turn ? el("g", { class: "turned", transform: `rotate(${turn})` }, svg) : svg);
    const under = turnedIn(this.back);
    this.drawing = turnedIn(this.svg);
    this.ground = el("g", { class: "ground" }, under);
    const lines = el("g", { class: "lines" }, under);
    for (const line of board.lines) {
      const points = line.map((id) => this.at(id).join(",")).join(" ");
      el("polyline", { points, class: "line" }, lines);
    }
    this.marks = el("g", { class: "marks" }, this.drawing);
    this.holes = new Map();
    const holes = el("g", { class: "holes" }, this.drawing);
    for (const cell of board.cells) {
      const [x, y] = this.at(cell.id);
      const hole = el("g", { class: "cell", "data-cell": cell.id, "data-kind": cell.kind }, holes);
      el("circle", { cx: x, cy: y, r: this.radius * 0.45, class: "hole" }, hole);
      el("circle", { cx: x, cy: y, r: this.radius, class: "piece", fill: "none" }, hole);
      el("circle", { cx: x, cy: y, r: this.radius * 1.25, class: "ring" }, hole);
      el("text", { x, y, class: "label", "font-size": this.radius * 0.55,
                   "text-anchor": "middle", "dominant-baseline": "central" }, hole);
      el("title", {}, hole).textContent = cell.id;
      hole.parts = [hole.querySelector(".piece"), hole.querySelector(".label")];
      this.holes.set(cell.id, hole);
    }
    this.over = el("g", { class: "over" }, this.drawing);
    this.keepUpright(holes);
    this.shown = [this.marks, this.ground, this.over]; // the layers in the page, as LAYERS
    // a tap anywhere near a cell is for that cell: the nearest one, up to half a pitch
    // or 22 screen pixels away, so a hole drawn small on a phone is still easy to hit
    if (onCell) {
      this.svg.classList.add("tappable-cells");
      this.svg.addEventListener("click", (event) => {
        if (event.target.closest && event.target.closest(".tappable")) return;
        const id = this.cellAt(event.clientX, event.clientY);
        if (id) onCell(id);
      });
    }
  }

  // the id of the cell nearest to a screen point, or null when none is near enough
  cellAt(clientX, clientY) {
    const screen = this.drawing.getScreenCTM();
    if (!screen) return null;
    const point = new DOMPoint(clientX, clientY).matrixTransform(screen.inverse());
    const reach = Math.max(this.radius / 0.76, 22 / Math.hypot(screen.a, screen.b));
    let best = null, bestDistance = Infinity;
    for (const cell of this.board.cells) {
      const [x, y] = this.at(cell.id);
      const distance = Math.hypot(x - point.x, y - point.y);
      if (distance < bestDistance) { best = cell.id; bestDistance = distance; }
    }
    return bestDistance <= reach ? best : null;
  }

  static pitch(board) {
    let best = Infinity;
    const cells = board.cells;
    for (let i = 0; i < cells.length; i++) {
      for (let j = i + 1; j < cells.length; j++) {
        const d = Math.hypot(cells[i].x - cells[j].x, cells[i].y - cells[j].y);
        if (d > 1e-6 && d < best) best = d;
      }
    }
    return Number.isFinite(best) ? best : 10;
  }

  // where a cell is drawn (the board file's y grows upwards, the drawing's downwards)
  at(id) {
    const cell = this.cells.get(id);
    return [cell.x, -cell.y];
  }

  // where a cell shows on the screen, the board turned: what "left" and "top" mean
  // to the person looking
  onScreen(id) {
    return this.rotated(...this.at(id));
  }

  // How far to turn ``board``, already turned by ``turn`` degrees, on a screen of this
  // shape: a quarter more where it would lie over twice as wide as it is tall on a
  // screen taller than wide (a long board on a phone held upright).
  static standingUp(board, turn, width, height) {
    const xs = board.cells.map((c) => c.x), ys = board.cells.map((c) => c.y);
    const wide = Math.max(...xs) - Math.min(...xs), tall = Math.max(...ys) - Math.min(...ys);
    const lying = turn % 180 === 0 ? wide > 2 * tall : tall > 2 * wide;
    return height > width && lying ? (turn + 90) % 360 : turn;
  }

  // a point of the drawing where it shows on the turned board
  rotated(x, y) {
    const angle = (this.turn * Math.PI) / 180, cos = Math.cos(angle), sin = Math.sin(angle);
    return [x * cos - y * sin, x * sin + y * cos];
  }

  // Something a state draws as the one before drew it (Hakenschlagen's meadow, a figure
  // that stayed where it stood) into ``layer`` of the drawing, named by ``key``:
  // draw(group) draws it only where the page does not show it in that place already;
  // else the group stays an empty stand-in under the same key, and the page keeps its
  // own drawing (keepAlike): nothing made, compared or laid out again.
  kept(layer, key, draw) {
    const drawing = { marks: this.marks, ground: this.ground, over: this.over }[layer];
    const there = this.shown[LAYERS.indexOf(layer)].childNodes[drawing.childNodes.length];
    const group = el("g", { "data-drawn": key }, drawing);
    if (drawnAs(there) !== key) draw(group);
    return group;
  }

  // [left, top, width, height] of the drawing: the box around it on the turned board
  turnedBox([left, top, width, height]) {
    if (!this.turn) return [left, top, width, height];
    const corners = [[left, top], [left + width, top], [left, top + height], [left + width, top + height]]
      .map(([x, y]) => this.rotated(x, y));
    const xs = corners.map(([x]) => x), ys = corners.map(([, y]) => y);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)];
  }

  // Every word on a turned board turned back about where it stands, so it reads
  // upright, and so are the things that stand on a cell (a hat, a tree); an arrow
  // along a row or a column turns with the board.
  keepUpright(layer) {
    if (!this.turn) return;
    const back = (node, x, y) => node.setAttribute("transform", `rotate(${-this.turn} ${x} ${y})`);
    for (const standing of layer.querySelectorAll(UPRIGHT)) {
      if (this.cells.has(standing.dataset.cell)) back(standing, ...this.at(standing.dataset.cell));
    }
    const across = this.turn % 180 === 90;
    for (const text of layer.querySelectorAll("text")) {
      if (!text.closest(UPRIGHT)) back(text, text.getAttribute("x") || 0, text.getAttribute("y") || 0);
      if (across && /[↔↕]/.test(text.textContent)) {
        text.textContent = text.textContent.replace(/[↔↕]/g, (arrow) => (arrow === "↔" ? "↕" : "↔"));
      }
    }
  }

  // pieces: {cellId: token or null}; marks: the referee's highlights from /api/state.
  // A state comes many times a move (a piece lifted, put down, a roll): only what
  // changed is written into the page, so an unchanged board costs no restyling.
  show(pieces, marks) {
    const game = GAMES[marks.game] || {};
    for (const [id, hole] of this.holes) {
      const token = pieces[id] || "";
      // the piece is written only by this drawing: one that stands as it stood is not
      // read back out of the page (most holes, most states)
      if (hole.drawn !== `${marks.game} ${token}`) {
        hole.drawn = `${marks.game} ${token}`;
        const colour = token && game.piece ? game.piece(token) : token;
        const [piece, label] = hole.parts;
        updateAttribute(piece, "fill", colour ? tokenColour(colour) : "none");
        updateAttribute(piece, "class", colour ? "piece filled" : "piece");
        update(hole.dataset, "token", token);
        // tokens that are no colour (a card, a stack's top) are written on the piece
        update(label, "textContent", colour && !TOKEN_COLOURS[colour] ? colour : "");
      }
      const roles = [];
      if (marks.destinations.includes(id)) roles.push("destination");
      if (marks.errors.includes(id)) roles.push("error");
      if (marks.lifted === id) roles.push("lifted");
      if (marks.place === id) roles.push("place");
      if (marks.remove === id) roles.push("remove");
      if (marks.selected === id) roles.push("selected");
      // the computer's announced move, still to be carried out, before the last one played
      if ((marks.expected_path || []).includes(id) && !roles.length) roles.push("expected");
      if (marks.last_move.includes(id) && !roles.length) roles.push("last");
      if (marks.hints.includes(id) && !roles.length) roles.push("hint");
      updateAttribute(hole, "class", ["cell", ...roles].join(" "));
    }
    // the layers are drawn apart from the page; only the parts that differ go in
    const drawn = this.shown.map((layer) => layer.cloneNode(false));
    [this.marks, this.ground, this.over] = drawn;
    for (const [path, kind] of [[marks.last_move, "last-move"], [marks.expected_path || [], "expected-move"]]) {
      if (path.length < 2) continue;
      const points = path.map((id) => this.at(id).join(",")).join(" ");
      el("polyline", { points, class: kind, "stroke-width": this.radius * 0.3 }, this.marks);
    }
    if (game.draw) game.draw(this, pieces, marks);
    for (const overlay of OVERLAYS) overlay(this, marks);
    for (const layer of drawn) this.keepUpright(layer);
    this.shown.forEach((shown, n) => keepAlike(shown, drawn[n]));
    [this.marks, this.ground, this.over] = this.shown;
    const framed = game.frame && game.frame(this, marks);
    const frame = framed ? this.turnedBox(framed) : this.viewBox;
    for (const svg of [this.back, this.svg]) updateAttribute(svg, "viewBox", frame.join(" "));
  }
}

// the layers of the drawing that show() draws afresh, in the order of BoardView.shown
const LAYERS = ["marks", "ground", "over"];

// the key a part of the drawing was drawn under (BoardView.kept), if any
const drawnAs = (node) => (node instanceof SVGElement ? node.dataset.drawn : undefined);

// ``shown`` made like ``drawn`` child by child: a child alike in every attribute and
// text stays in the page, so a move redraws the figures it moved, not the whole board
// (the others keep their layout and paint, and their nodes are not made anew); a part
// drawn under a key is alike when its key is
function keepAlike(shown, drawn) {
  const wanted = [...drawn.childNodes];
  wanted.forEach((node, n) => {
    const there = shown.childNodes[n];
    const key = drawnAs(node);
    if (!there) shown.appendChild(node);
    else if (key !== undefined ? drawnAs(there) !== key : !there.isEqualNode(node)) there.replaceWith(node);
  });
  while (shown.childNodes.length > wanted.length) shown.lastChild.remove();
}
