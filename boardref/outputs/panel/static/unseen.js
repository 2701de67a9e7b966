// @ts-check
// Moves the board cannot feel (a hat put onto hats the sensors already feel): while
// the turn is open the service lists them (state.unseen), and the mover's phone, the
// table and the referee say so and offer each one to tap, and "none of these". The
// service decides; this only shows and asks.
import { SVG } from "./board.js";
import { $, post, role, say, sayMove, seat, seatName, state, view, words } from "./core.js";
import { capitalised } from "./header.js";
import { update, updateChildren } from "./update.js";

export function showUnseen() {
  const box = $("unseen");
  const mine = role === "play" ? state.to_move === seat : role !== "watch";
  const asking = mine && state.can_rule_out;
  update(box, "hidden", !asking);
  if (!asking) return;
  drawPaths(state.unseen_paths);
  const shown = [];
  if (state.unseen.length) {
    const line = document.createElement("p");
    // a game may say which of its moves the board cannot feel (a hat onto hats)
    const key = words[`unseen.prompt.${state.game}`] ? `unseen.prompt.${state.game}` : "unseen.prompt";
    const prompt = say(key);
    const said = role === "play" ? prompt : say("unseen.seat", { seat: seatName(state.to_move), prompt });
    line.textContent = capitalised(said); // also where it begins with a seat's name ("red")
    shown.push(line);
    // several are numbered as on the board, where each is drawn
    const numbered = (n) => (state.unseen.length > 1 ? `${n + 1}: ` : "");
    state.unseen.forEach((move, n) => {
      shown.push(button(numbered(n) + sayMove(move), "/api/choose", { move }, move));
    });
  }
  shown.push(button(say("unseen.none"), "/api/rule_out", {}, ""));
  updateChildren(box, shown);
}

function button(text, path, body, move) {
  const pressed = document.createElement("button");
  pressed.textContent = text;
  pressed.dataset.move = move;
  pressed.onclick = () => post(path, body);
  return pressed;
}

// Where each listed move went, drawn over the board (the board's own drawing is made
// afresh with every state, so these are drawn again after it).
function drawPaths(paths) {
  paths.forEach((path, n) => {
    if (path.length < 2) return;
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", path.map((id) => view.at(id).join(",")).join(" "));
    line.setAttribute("class", "unseen-move");
    line.setAttribute("stroke-width", String(view.radius * 0.3));
    const [x, y] = view.at(path[path.length - 1]);
    const end = document.createElementNS(SVG, "circle");
    for (const [name, value] of Object.entries({ cx: x, cy: y, r: view.radius, class: "unseen-end" })) {
      end.setAttribute(name, value);
    }
    view.marks.append(line, end);
    if (paths.length < 2) return;
    const number = document.createElementNS(SVG, "text");
    for (const [name, value] of Object.entries({ x: x + view.radius * 1.2, y: y - view.radius * 0.6, "font-size": view.radius * 1.4, class: "unseen-number" })) {
      number.setAttribute(name, value);
    }
    number.textContent = String(n + 1);
    view.marks.appendChild(number);
  });
}
