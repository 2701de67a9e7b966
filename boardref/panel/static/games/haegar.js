// Hägar on the panel: the coasters laid so far (fields coloured by landscape, with
// their printed gold, skulls, shields and dice numbers, and the tokens on them), the
// coaster in hand, and the legal spots: tap a spot, then the facing to lay it.
// What a coaster shows is read from the board's [game] coaster table when /api/board
// carries it; without it the fields are drawn plain.
"use strict";

(() => {
  const LANDSCAPES = { land: "beige", forest: "darkgreen", water: "blue" };
  const PLACEMENT = /^(\w+) ([nsew0-9]+) (north|east|south|west)$/;
  const SIDES = ["north", "east", "south", "west"];
  let chosenSpot = null;

  function printed(view, coaster, corner) {
    const table = view.board.game && view.board.game.coaster;
    const entry = table && table.find((c) => c.id === coaster);
    return entry ? entry[corner] : null;
  }

  function spotBox(view, spot) {
    const [x1, y1] = view.at(`${spot}_nw`);
    const [x2, y2] = view.at(`${spot}_se`);
    const half = (x2 - x1) / 2;
    return { left: x1 - half, top: y1 - half, size: 2 * (x2 - x1), cx: (x1 + x2) / 2, cy: (y1 + y2) / 2 };
  }

  function placements(state) {
    const spots = new Map();
    for (const move of state.moves) {
      const found = PLACEMENT.exec(move);
      if (!found) continue;
      if (!spots.has(found[2])) spots.set(found[2], []);
      spots.get(found[2]).push(move);
    }
    return spots;
  }

  function field(view, id, token) {
    const [x, y] = view.at(id);
    const half = (view.at(`${id.split("_")[0]}_se`)[0] - view.at(`${id.split("_")[0]}_sw`)[0]) / 2;
    const [printedName, piece] = token.split("+");
    const corner = printedName.split("_").pop();
    const coaster = printedName.slice(0, -corner.length - 1);
    const print = printed(view, coaster, corner);
    const g = el("g", { class: "field", "data-cell": id, "data-landscape": print ? print.landscape : "" }, view.ground);
    el("rect", { x: x - half, y: y - half, width: 2 * half, height: 2 * half, class: "field-area",
                 fill: print ? tokenColour(LANDSCAPES[print.landscape]) : tokenColour("grey") }, g);
    const mark = print && (print.gold ? "$" : print.skull ? "☠" : print.die ? String(print.die) : "");
    if (mark) {
      el("text", { x, y: y - half * 0.45, class: "field-print", "font-size": half * 0.55, "text-anchor": "middle" }, g)
        .textContent = mark;
    }
    if (piece) {
      el("circle", { cx: x, cy: y + half * 0.15, r: half * 0.4, class: "token", "data-token": piece,
                     fill: tokenColour(piece) }, view.over);
    }
  }

  registerGame("haegar", {
    piece: () => null,

    draw(view, pieces, state) {
      view.svg.classList.add("haegar");
      for (const [id, token] of Object.entries(pieces)) if (token) field(view, id, token);
      if (state.record) {
        for (const [coaster, spot] of state.record.laid) {
          const box = spotBox(view, spot);
          const g = el("g", { class: "coaster", "data-spot": spot, "data-coaster": coaster }, view.over);
          el("rect", { x: box.left, y: box.top, width: box.size, height: box.size, class: "coaster-edge" }, g);
        }
      }
      const spots = placements(state);
      if (!spots.has(chosenSpot)) chosenSpot = null;
      for (const spot of spots.keys()) {
        const box = spotBox(view, spot);
        const g = el("g", { class: spot === chosenSpot ? "spot tappable chosen" : "spot tappable", "data-spot": spot },
                     view.over);
        el("rect", { x: box.left, y: box.top, width: box.size, height: box.size, class: "spot-area" }, g);
        g.addEventListener("click", () => { chosenSpot = spot; render(); });
      }
    },

    // the laid coasters and the spots on offer, with a coaster's width around them
    frame(view, state) {
      const spots = [...(state.record ? state.record.laid.map((laid) => laid[1]) : []), ...placements(state).keys()];
      if (!spots.length) return null;
      const boxes = spots.map((spot) => spotBox(view, spot));
      const pad = boxes[0].size;
      const left = Math.min(...boxes.map((b) => b.left)) - pad;
      const top = Math.min(...boxes.map((b) => b.top)) - pad;
      const right = Math.max(...boxes.map((b) => b.left + b.size)) + pad;
      const bottom = Math.max(...boxes.map((b) => b.top + b.size)) + pad;
      return [left, top, right - left, bottom - top];
    },

    panel(state, box) {
      const record = state.record;
      if (!record) { box.replaceChildren(); return; }
      const parts = [];
      if (record.hand) {
        const hand = document.createElement("p");
        hand.id = "coaster-in-hand";
        hand.textContent = say("coaster_in_hand", { coaster: record.hand });
        parts.push(hand);
      }
      const spots = placements(state);
      if (spots.size && role !== "watch") {
        const help = document.createElement("p");
        help.textContent = chosenSpot ? say("choose_facing", { spot: chosenSpot }) : say("choose_spot");
        parts.push(help);
        const facings = document.createElement("div");
        facings.className = "facings";
        for (const move of spots.get(chosenSpot) || []) {
          const facing = PLACEMENT.exec(move)[3];
          const button = document.createElement("button");
          button.className = "facing";
          button.dataset.move = move;
          button.textContent = `${"↑→↓←"[SIDES.indexOf(facing)]} ${say(`facing_${facing}`)}`;
          button.onclick = () => post("/api/play", { move }).then((done) => { if (done) chosenSpot = null; });
          facings.append(button);
        }
        parts.push(facings);
      }
      const supply = document.createElement("p");
      supply.textContent = say("supply", {
        supply: Object.entries(record.supply).map(([seat, s]) => `${seat} ${s.hagars}+${s.gold}`).join(", "),
      });
      parts.push(supply);
      box.replaceChildren(...parts);
    },

    drawn(state, box) {
      if (typeof state.last_draw !== "number") return false;
      const label = document.createElement("span");
      label.textContent = say("rolled");
      box.replaceChildren(label, dieFace(state.last_draw));
      return true;
    },

    // coasters are laid by tapping; tokens and the final round stay plain buttons
    moves: (state) => state.moves.filter((move) => !PLACEMENT.test(move)),
  });
})();
