// @ts-check
// Fang den Hut! (the board game) on the panel: grey and yellow fields and the homes in
// their colours, every hat or tower on a field drawn as a stack (captives below, the
// top hat above them), the hats waiting at home with their count, the die, and the
// captives each colour holds.
import { dieFace, el, registerGame, tokenColour } from "../board.js";
import { role, say, seatName } from "../core.js";
import { capitalised } from "../header.js";
import { updateChildren } from "../update.js";

(() => {
  const FIELD_COLOURS = { grey: "grey", yellow: "straw", centre: "straw" };
  const HAT = /^(gold\/)?([a-z]+)(?:\[([a-z,]*)\])?$/;

  function parseHat(text) {
    const [, golden, colour, captives] = HAT.exec(text);
    return { golden: !!golden, colour, captives: captives ? captives.split(",") : [] };
  }

  // one hat or tower at (x, y): the captives as bands from the bottom, the top hat as a
  // cone above them, and how many hats the stack holds
  function stack(parent, x, y, r, hat, cell) {
    const g = el("g", { class: "stack", "data-cell": cell, "data-top": hat.golden ? "gold" : hat.colour,
                        "data-hats": 1 + hat.captives.length + (hat.golden ? 1 : 0) }, parent);
    const band = r * 0.28;
    let base = y + r * 0.75;
    for (const colour of hat.captives) {
      el("rect", { x: x - r * 0.7, y: base - band, width: r * 1.4, height: band, rx: band * 0.3,
                   fill: tokenColour(colour), class: "hat captive", "data-colour": colour }, g);
      base -= band;
    }
    const top = base - r * 1.1;
    el("polygon", { points: `${x - r * 0.7},${base} ${x + r * 0.7},${base} ${x + r * 0.25},${top} ${x - r * 0.25},${top}`,
                    fill: tokenColour(hat.colour), class: "hat top", "data-colour": hat.colour }, g);
    if (hat.golden) {
      el("circle", { cx: x, cy: top, r: r * 0.3, fill: tokenColour("gold"), class: "hat golden" }, g);
    }
    if (hat.captives.length) {
      el("text", { x, y: y + r * 1.25, class: "hat-count", "font-size": r * 0.6, "text-anchor": "middle" }, g)
        .textContent = `+${hat.captives.length}`;
    }
    return g;
  }

  function fields(view, state) {
    const r = view.radius;
    for (const cell of view.board.cells) {
      const [x, y] = view.at(cell.id);
      const colour = cell.kind === "home" ? cell.zone : FIELD_COLOURS[cell.kind];
      el("circle", { cx: x, cy: y, r: r * (cell.kind === "home" ? 1.5 : 1.15), class: "field-kind",
                     "data-cell": cell.id, "data-kind": cell.kind, fill: tokenColour(colour),
                     "fill-opacity": cell.kind === "home" ? 0.45 : 1 }, view.ground);
    }
  }

  function homes(view, pieces) {
    const r = view.radius;
    for (const cell of view.board.cells) {
      if (cell.kind !== "home" || !pieces[cell.id]) continue;
      const tops = pieces[cell.id].split("+");
      const colour = tops.find((top) => top !== "gold") || "gold";
      const [x, y] = view.at(cell.id);
      const g = stack(view.over, x, y, r * 1.3, { golden: tops.includes("gold"), colour, captives: [] }, cell.id);
      g.classList.add("home");
      g.dataset.count = tops.length;
      if (tops.length > 1) {
        el("text", { x: x + r * 0.9, y: y - r * 0.6, class: "hat-count", "font-size": r * 0.8 }, g)
          .textContent = `×${tops.length}`;
      }
    }
  }

  // a home or gate by its colour ("red home"); the ring's fields by their number
  // ``grammaticalCase``: "dat" where a sentence says "from" it ("aus der Mitte")
  function cellWords(id, state, grammaticalCase = null) {
    if (id === "centre") return say("fdh.centre", { case: grammaticalCase });
    const [kind, colour] = id.split("_");
    if (colour && (kind === "home" || kind === "gate")) return say(`fdh.${kind}`, { colour: colourWords(colour, state) });
    return id;
  }

  // which hat moves, where a plain hat is not all: the golden hat riding on a hat
  // moves apart from a plain one on the same field, and a tower is not a hat
  function hatWords(hat, state) {
    if (!hat.captives.length) return hat.golden ? say("fdh.golden_hat") : "";
    const captives = hat.captives.map((colour) => colourWords(colour, state)).join(", ");
    return say(hat.golden ? "fdh.golden_tower" : "fdh.tower", { captives });
  }

  // a hat or tower by itself ("golden hat", "Red hat", "tower over Blue")
  function pieceWords(token, state) {
    const hat = parseHat(token);
    return hatWords(hat, state) || say("fdh.hat_of", { colour: colourWords(hat.colour, state) });
  }

  // the moves offered to choose, told apart by the hat that walks (a plain hat, or the
  // golden hat riding on one) and, where it is a home, where it comes from; null where
  // that tells them not apart (the page then says what each leaves where)
  function choiceWords(choices, state) {
    const walks = choices.map((choice) => choice.move.split(" "));
    if (walks.some((walk) => walk.length !== 2 || !HAT.test(walk[0]))) return null;
    if (new Set(walks.map(([, path]) => path.split("-").pop())).size > 1) return null;
    const origins = walks.map(([, path]) => path.split("-")[0]);
    const named = (cell) => new Set(origins).size > 1 && cellWords(cell, state) !== cell;
    return walks.map(([hat], n) => (named(origins[n])
      ? say("fdh.hat_from", { hat: pieceWords(hat, state), from: cellWords(origins[n], state, "dat") })
      : pieceWords(hat, state)));
  }

  // each leg of a move: which hat goes from where to where (a hat that goes home and
  // out again may leave with another hat on top than it came with), and where it turns
  // back (the golden hat captures where it turns); led by the mover's name; null for
  // what is no move of hats
  function legsWords(text, state) {
    const legs = text.split(", ").map((leg) => leg.split(" "));
    if (legs.some((leg) => leg.length !== 2 || !HAT.test(leg[0]))) return null;
    const paths = legs.map(([, cells]) => cells.split(/[-+]/).filter(Boolean));
    if (paths.some((path) => !path.length)) return null;
    const said = legs.map(([hat], n) => {
      const path = paths[n];
      const turns = path.filter((_, k) => k > 0 && path[k - 1] === path[k + 1]);
      const which = hatWords(parseHat(hat), state); // a plain hat goes unnamed
      const { from, to } = legEnds(path, state);
      const key = from ? (which ? "fdh.leg_of" : "fdh.leg") : which ? "fdh.walk_of" : null;
      const leg = key ? say(key, { hat: which, from, to }) : to;
      if (!turns.length) return leg;
      return `${leg} ${turnsWords(turns, state)}`;
    }).join("; ");
    return say("fdh.move", { seat: colourWords(parseHat(legs[0][0]).colour, state), legs: said });
  }

  // where a leg starts and ends: on the referee's page the cells; on the players' the
  // places the board names (a home, a gate, the centre), and how many fields it walks
  // in the place of a field the board does not name ("red home → 3 fields", "2 fields
  // → red home"), the drawing lighting its path
  function legEnds(path, state) {
    const [first, last] = [path[0], path[path.length - 1]];
    if (role === "referee") return { from: cellWords(first, state), to: cellWords(last, state) };
    const name = (id) => (cellWords(id, state) !== id ? cellWords(id, state) : null);
    const walk = say("fdh.walk", { count: path.length - 1 });
    if (name(first)) return { from: name(first), to: name(last) || walk };
    return name(last) ? { from: walk, to: name(last) } : { from: null, to: walk };
  }

  function turnsWords(turns, state) {
    if (role !== "referee") return say("fdh.turns_back", { count: turns.length });
    return say("fdh.turns", { cells: turns.map((cell) => cellWords(cell, state)).join(", ") });
  }

  function colourWords(colour, state) {
    const seat = state.seats.findIndex((s) => s.colour === colour);
    return seat >= 0 ? seatName(seat) : say(`seat.${colour}`);
  }

  // the hats and towers on the fields (not the homes): the virtual board's stacks on
  // /sim, else the game's record
  function fieldHats(view, state) {
    if (!state.stacks) return state.record ? state.record.fields : {};
    return Object.fromEntries(Object.entries(state.stacks).filter(([cell]) => view.cells.get(cell).kind !== "home"));
  }

  registerGame("fang_den_hut", {
    piece: () => null,
    cellWords,
    pieceWords,
    choiceWords,

    // a hat or tower of a move offered to choose, drawn where the move would leave it
    figure(view, parent, cell, token) {
      const [x, y] = view.at(cell);
      stack(parent, x, y, view.radius * 1.3, parseHat(token), cell);
      return true;
    },

    // "red home_red-gate_red-r1-r2" -> "Red: red home → 3 fields" (on the referee's
    // page "Red: red home → r2"); a tower's move, a golden hat's turn back and captives
    // carried home (and a hat out again: "red[blue] r2-r1-gate_red-home_red, red
    // home_red-gate_red") read the same way
    moveWords: (text, state) => (text === "pass" ? say("fdh.pass") : legsWords(text, state) || text),

    colourOf(token) {
      const hat = parseHat(token);
      return hat.golden ? "gold" : hat.colour;
    },

    draw(view, pieces, state) {
      fields(view, state);
      homes(view, pieces);
      const r = view.radius;
      for (const [cell, hats] of Object.entries(fieldHats(view, state))) {
        const [x, y] = view.at(cell);
        const scale = hats.length > 1 ? 0.7 : 1;
        hats.forEach((text, k) => {
          const dx = (k - (hats.length - 1) / 2) * r * 1.1;
          stack(view.over, x + dx, y, r * 1.3 * scale, parseHat(text), cell);
        });
      }
    },

    drawn(state, box) {
      const label = document.createElement("span");
      label.textContent = say("rolled");
      updateChildren(box, [label, dieFace(state.last_draw)]);
      return true;
    },

    panel(state, box) {
      if (!state.record) { box.replaceChildren(); return; }
      const rows = Object.entries(state.record.prisoners).map(([colour, taken]) => {
        const row = document.createElement("p");
        row.className = "captives";
        row.dataset.colour = colour;
        row.style.borderLeft = `.6rem solid ${tokenColour(colour)}`;
        row.textContent = capitalised(say("prisoners", { seat: colourWords(colour, state), count: taken.length }));
        return row;
      });
      updateChildren(box, rows);
    },
  });
})();
