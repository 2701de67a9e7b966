// @ts-check
// Hakenschlagen on the panel: the static layer (disks, trees) from the record's layout,
// the figures (hares in their seat colours, the fox, molehills) drawn over it, start
// spaces and turning points marked, and the marbles of this turn's draw.
import { el, registerGame, tokenColour } from "../board.js";
import { board, role, say } from "../core.js";
import { capitalised } from "../header.js";
import { updateChildren } from "../update.js";

(() => {
  // what each disk, marble and figure looks like: the board file's [game] colours
  // (/api/board's game.colours) where it names them, else these
  const DEFAULT_COLOURS = {
    field: "beige", dandelion: "yellow", lettuce: "green", carrot: "orange",
    fox: "red", molehill: "black", tree: "darkgreen",
  };
  let COLOURS = DEFAULT_COLOURS;

  function boardColours(board) {
    const named = board && board.game && board.game.colours;
    return named && typeof named === "object" && !Array.isArray(named) ? { ...DEFAULT_COLOURS, ...named } : DEFAULT_COLOURS;
  }
  const DISKS = ["dandelion", "lettuce", "carrot"];

  // The meadow (start spaces, turning points, disks, trees) stays as it is all game,
  // while a state comes many times a move: it is drawn once for a board drawing and
  // layout, and copied into the page only where the page does not show it yet.
  const meadows = new WeakMap();

  function ground(view, layout) {
    const key = JSON.stringify([layout, COLOURS]);
    let meadow = meadows.get(view);
    if (!meadow || meadow.key !== key) {
      meadow = { key, ground: document.createDocumentFragment(), over: document.createDocumentFragment() };
      drawMeadow(view, layout, meadow);
      meadows.set(view, meadow);
    }
    view.kept("ground", `meadow ${key}`, (group) => group.append(meadow.ground.cloneNode(true)));
    view.kept("over", `trees ${key}`, (group) => group.append(meadow.over.cloneNode(true)));
  }

  function drawMeadow(view, layout, meadow) {
    const r = view.radius;
    for (const cell of view.board.cells) {
      const [x, y] = view.at(cell.id);
      if (cell.kind === "start" || cell.kind === "turning_point") {
        el("circle", { cx: x, cy: y, r: r * 1.2, class: `space ${cell.kind}`, "data-cell": cell.id },
           meadow.ground);
      }
    }
    if (!layout) return;
    for (const kind of DISKS) {
      for (const id of layout[kind] || []) {
        const [x, y] = view.at(id);
        el("circle", { cx: x, cy: y, r: r * 1.2, class: "disk", "data-cell": id, "data-kind": kind,
                       fill: tokenColour(COLOURS[kind]) }, meadow.ground);
      }
    }
    for (const id of layout.tree || []) {
      const [x, y] = view.at(id);
      const tree = el("g", { class: "tree", "data-cell": id }, meadow.over);
      el("rect", { x: x - r * 0.12, y: y + r * 0.35, width: r * 0.24, height: r * 0.5, fill: tokenColour("brown") }, tree);
      el("polygon", { points: `${x},${y - r * 1.05} ${x + r * 0.8},${y + r * 0.45} ${x - r * 0.8},${y + r * 0.45}`,
                      fill: tokenColour(COLOURS.tree) }, tree);
    }
  }

  function hare(view, id, colour, turned, parent = view.over) {
    const [x, y] = view.at(id);
    const r = view.radius;
    const g = el("g", { class: turned ? "figure hare turned" : "figure hare", "data-cell": id, "data-colour": colour },
                 parent);
    const fill = tokenColour(colour);
    for (const side of [-1, 1]) {
      el("ellipse", { cx: x + side * r * 0.3, cy: y - r * 0.75, rx: r * 0.18, ry: r * 0.5, fill }, g);
    }
    el("circle", { cx: x, cy: y, r: r * 0.62, fill }, g);
  }

  function fox(view, id, parent = view.over) {
    const [x, y] = view.at(id);
    const r = view.radius;
    const g = el("g", { class: "figure fox", "data-cell": id }, parent);
    const fill = tokenColour(COLOURS.fox);
    el("polygon", { points: `${x - r * 0.8},${y - r * 0.8} ${x - r * 0.35},${y - r * 0.3} ${x - r * 0.7},${y - r * 0.1}`, fill }, g);
    el("polygon", { points: `${x + r * 0.8},${y - r * 0.8} ${x + r * 0.35},${y - r * 0.3} ${x + r * 0.7},${y - r * 0.1}`, fill }, g);
    el("polygon", { points: `${x - r * 0.75},${y - r * 0.35} ${x + r * 0.75},${y - r * 0.35} ${x},${y + r * 0.8}`, fill }, g);
  }

  function molehill(view, id, parent = view.over) {
    const [x, y] = view.at(id);
    const r = view.radius;
    const g = el("g", { class: "figure molehill", "data-cell": id }, parent);
    el("path", { d: `M ${x - r * 0.8} ${y + r * 0.4} A ${r * 0.8} ${r * 0.8} 0 0 1 ${x + r * 0.8} ${y + r * 0.4} Z`,
                 fill: tokenColour(COLOURS.molehill) }, g);
  }

  function marble(kind) {
    const dot = document.createElement("span");
    dot.className = "marble rolls";
    dot.dataset.marble = kind;
    dot.style.background = tokenColour(COLOURS[kind]);
    dot.title = say(`marble_${kind}`);
    const name = document.createElement("span");
    name.textContent = say(`marble_${kind}`);
    const item = document.createElement("span");
    item.className = "marble-item";
    item.append(dot, name);
    return item;
  }

  // one marble use: "lettuce:d8", a joker "field+field=fox:p8", "molehill:g5", a
  // molehill moved "molehill:h4-h6"; on the players' pages the cell only where the
  // board names it (a start space, a turning point), the drawing marking the others
  function useWords(use) {
    const [spent, cell] = use.split(":");
    const [marbles, as] = spent.split("=");
    const named = marbles.split("+").map((kind) => say(`marble_${kind}`)).join(" + ");
    const place = placeWords(cell);
    const key = `hks.${as ? "joker" : "use"}${place === null ? "_only" : ""}`;
    return say(key, { marbles: named, kind: as ? say(`marble_${as}`) : named, cell: place });
  }

  // the cells of one use: where the figure goes, a molehill moved from where first
  const usedCells = (cells) => (cells ? cells.split("-") : []);
  const usesWords = (text) => text.split(" ").map(useWords).join(", ");

  // a cell of a turn as the page says it: its id on the referee's page, a start space or
  // turning point by its kind on the others, else null
  function placeWords(cell) {
    if (!cell) return null;
    if (role === "referee") return cell;
    const at = usedCells(cell).pop();
    const kind = board && (board.cells.find((c) => c.id === at) || {}).kind;
    return kind === "start" || kind === "turning_point" ? say(`hks.place_${kind}`) : null;
  }

  // the cells a turn spends its marbles on, marked on the drawing (a turn walks no
  // one path): the last turn played, and the computer's turn still to carry out
  function markTurns(view, state) {
    for (const [move, kind] of [[state.last_played, "last-move"], [state.expected, "expected-move"]]) {
      if (!move || move === "pass") continue;
      for (const cell of move.split(" ").flatMap((use) => usedCells(use.split(":")[1]))) {
        if (!view.cells.has(cell)) continue;
        const [x, y] = view.at(cell);
        el("circle", { cx: x, cy: y, r: view.radius * 1.45, class: `${kind} turn-mark`, "data-cell": cell,
                       "stroke-width": view.radius * 0.3 }, view.marks);
      }
    }
  }

  // the figures on the virtual board of /sim, wherever a hand put them
  function standing(view, state) {
    const names = state.seats.map((seat) => seat.name);
    for (const [id, stack] of Object.entries(state.stacks)) {
      const token = stack[stack.length - 1];
      if (token === "molehill") molehill(view, id);
      else if (token === "fox") fox(view, id);
      else if (token.startsWith("hare_")) {
        const seat = names.indexOf(token.slice(5));
        hare(view, id, token.slice(5), !!(state.record && state.record.turned[seat]));
      }
    }
  }

  // the meadow's legend: each disk's colour by name, and the molehills still beside
  // the board (six in all); made again only when it would read otherwise
  let legendShown = { list: null, key: "" };

  function legend(state, box) {
    const out = state.record ? state.record.molehills.length : 0;
    const key = JSON.stringify([document.documentElement.lang, COLOURS, out]);
    if (box.firstChild === legendShown.list && key === legendShown.key) return;
    const items = [...DISKS, "tree", "fox", "molehill"].map((kind) => {
      const item = document.createElement("li");
      item.dataset.kind = kind;
      item.style.setProperty("--swatch", tokenColour(COLOURS[kind]));
      item.textContent = capitalised(say(`token.${kind}`)); // a legend's entry stands alone
      return item;
    });
    const list = document.createElement("ul");
    list.className = "meadow-legend";
    list.append(...items);
    const supply = document.createElement("p");
    supply.className = "molehill-supply";
    supply.textContent = say("hks.molehills_beside", { count: MOLEHILLS - out });
    updateChildren(box, [list, supply]);
    legendShown = { list: box.firstChild, key };
  }
  const MOLEHILLS = 6;
  // the marbles last shown, and what for: made again only when they would read otherwise
  let drawnShown = { label: null, key: "" };

  registerGame("hakenschlagen", {
    panel: legend,

    // every figure, disk and tree is drawn by draw(), in its own shape
    piece: () => null,
    colourOf(token) {
      return token.startsWith("hare_") ? token.slice(5) : COLOURS[token];
    },

    // a figure of a move offered to choose, drawn where the move would leave it
    figure(view, parent, cell, token) {
      if (token === "fox") fox(view, cell, parent);
      else if (token === "molehill") molehill(view, cell, parent);
      else if (token.startsWith("hare_")) hare(view, cell, token.slice(5), false, parent);
      else return false;
      return true;
    },

    pieceWords: (token) => say(`token.${token}`),

    // turns that leave the figures alike differ in whether the hare turned on the way
    // (landing on a turning point); others are told apart by where the figures stand
    choiceWords(choices) {
      if (new Set(choices.map((choice) => JSON.stringify(choice.after))).size === choices.length) return null;
      const turning = new Set(board.cells.filter((cell) => cell.kind === "turning_point").map((cell) => cell.id));
      return choices.map((choice) => {
        const turns = choice.move.split(" ").some((use) => turning.has(use.split(/[:-]/).pop()));
        return say(turns ? "hks.choice_turns" : "hks.choice_no_turn");
      });
    },

    moveWords: (text) => (text === "pass" ? say("hks.pass") : usesWords(text)),

    draw(view, pieces, state) {
      COLOURS = boardColours(view.board);
      markTurns(view, state);
      const record = state.record;
      ground(view, record && record.layout);
      if (state.stacks) { standing(view, state); return; }
      if (!record) return;
      // a figure that stands where it stood is not drawn again
      for (const id of record.molehills) view.kept("over", `molehill ${id}`, (group) => molehill(view, id, group));
      view.kept("over", `fox ${record.fox}`, (group) => fox(view, record.fox, group));
      record.hares.forEach((id, seat) => {
        const [colour, turned] = [state.seats[seat].name, record.turned[seat]];
        view.kept("over", `hare ${id} ${colour} ${turned}`, (group) => hare(view, id, colour, turned, group));
      });
    },

    drawn(state, box) {
      if (typeof board !== "undefined") COLOURS = boardColours(board);
      const marbles = [].concat(state.last_draw);
      const inHand = !!(state.record && state.record.hand);
      const key = JSON.stringify([document.documentElement.lang, COLOURS, marbles, inHand]);
      if (box.firstChild !== drawnShown.label || key !== drawnShown.key) {
        const label = document.createElement("span");
        label.textContent = say(inHand ? "marbles_in_hand" : "marbles_drawn");
        updateChildren(box, [label, ...marbles.map(marble)]);
        drawnShown = { label: box.firstChild, key };
      }
      return true;
    },
  });
})();
