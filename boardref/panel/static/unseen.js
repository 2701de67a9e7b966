// Moves the board cannot feel (a hat put onto hats the sensors already feel): while
// the turn is open the service lists them (state.unseen), and the mover's phone, the
// table and the referee say so and offer each one to tap, and "none of these". The
// service decides; this only shows and asks.
import { SVG } from "./board.js";
import { $, post, role, say, sayMove, seat, seatName, state, view, words } from "./core.js";
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
    line.textContent = role === "play" ? prompt : say("unseen.seat", { seat: seatName(state.to_move), prompt });
    shown.push(line);
    for (const move of state.unseen) shown.push(button(sayMove(move), "/api/choose", { move }, move));
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
  for (const path of paths) {
    if (path.length < 2) continue;
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", path.map((id) => view.at(id).join(",")).join(" "));
    line.setAttribute("class", "unseen-move");
    line.setAttribute("stroke-width", view.radius * 0.3);
    const [x, y] = view.at(path[path.length - 1]);
    const end = document.createElementNS(SVG, "circle");
    for (const [name, value] of Object.entries({ cx: x, cy: y, r: view.radius, class: "unseen-end" })) {
      end.setAttribute(name, value);
    }
    view.marks.append(line, end);
  }
}
