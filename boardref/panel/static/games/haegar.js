// Hägar on the panel: the coasters laid so far (fields coloured by landscape, with
// their printed gold, skulls, shields and dice numbers, and the tokens on them), the
// coaster in hand, and the legal spots: tap a spot, then the facing to lay it.
// What a coaster shows is read from the board's [game] coaster table (/api/board's
// game.coaster): landscape colour, gold, skull, the dice number with its arrow and the
// shield, turned as the coaster lies. The pushed report scores every landscape: a
// running tally in the side panel, the final scores at the end, and the fields the die
// doubled marked on the board.
import { dieFace, el, registerGame, tokenColour } from "../board.js";
import { board, post, render, role, say, seat, seatName } from "../core.js";
import { update, updateChildren } from "../update.js";

(() => {
  const LANDSCAPES = { land: "beige", forest: "darkgreen", water: "blue" };
  const PLACEMENT = /^(\w+) ([nsew0-9]+) (north|east|south|west)$/;
  const SIDES = ["north", "east", "south", "west"];
  let chosenSpot = null;
  let chosenHagar = null; // the last round: the field of the Hägar to move

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

  // whether this page may lay or place now: the table and the referee for anyone, a
  // phone only on its own seat's turn (another seat's buttons would only be refused)
  function mayAct(state) {
    return role !== "watch" && (role !== "play" || state.acting === seat);
  }

  // the spots this page offers to tap, with their placements (moves)
  function placements(state) {
    return mayAct(state) ? legalSpots(state) : new Map();
  }

  function legalSpots(state) {
    const spots = new Map();
    for (const move of state.moves) {
      const found = PLACEMENT.exec(move);
      if (!found) continue;
      if (!spots.has(found[2])) spots.set(found[2], []);
      spots.get(found[2]).push(move);
    }
    return spots;
  }

  // how each laid coaster lies: its quarter turns clockwise from upright, by coaster id
  function turns(state) {
    const laid = state.record ? state.record.laid : [];
    return new Map(laid.map(([coaster, , facing]) => [coaster, Math.max(0, SIDES.indexOf(facing))]));
  }

  // a shield on the field's outer edge ``side`` (as it lies on the table)
  function shield(view, g, x, y, half, side) {
    const [dx, dy] = { north: [0, -1], east: [1, 0], south: [0, 1], west: [-1, 0] }[side];
    const cx = x + dx * half * 0.78, cy = y + dy * half * 0.78;
    const w = half * 0.18, h = half * 0.22;
    el("path", { class: "field-shield", "data-side": side, fill: tokenColour("grey"),
                 d: `M ${cx - w} ${cy - h} L ${cx + w} ${cy - h} L ${cx + w} ${cy} Q ${cx + w} ${cy + h} ${cx} ${cy + h * 1.3} ` +
                    `Q ${cx - w} ${cy + h} ${cx - w} ${cy} Z` }, g);
  }

  function field(view, id, token, turned, doubled) {
    const [x, y] = view.at(id);
    const half = (view.at(`${id.split("_")[0]}_se`)[0] - view.at(`${id.split("_")[0]}_sw`)[0]) / 2;
    const [printedName, piece] = token.split("+");
    const corner = printedName.split("_").pop();
    const coaster = printedName.slice(0, -corner.length - 1);
    const print = printed(view, coaster, corner);
    const turn = turned.get(coaster) || 0;
    const g = el("g", { class: doubled ? "field doubled" : "field", "data-cell": id,
                        "data-landscape": print ? print.landscape : "" }, view.ground);
    el("rect", { x: x - half, y: y - half, width: 2 * half, height: 2 * half, class: "field-area",
                 fill: print ? tokenColour(LANDSCAPES[print.landscape] || "grey") : tokenColour("grey") }, g);
    if (!print) return drawToken(view, x, y, half, piece);
    const size = half * 0.5;
    if (print.skull) {
      el("text", { x, y: y - half * 0.35, class: "field-print skull", "font-size": size * 1.3, "text-anchor": "middle",
                   "dominant-baseline": "central" }, g).textContent = "☠";
    }
    if (print.gold) {
      el("circle", { cx: x - half * 0.5, cy: y - half * 0.5, r: half * 0.2, class: "field-gold",
                     fill: tokenColour("gold") }, g);
    }
    if (print.die) {
      // the arrow as it lies: a quarter turn swaps row and column
      const arrow = (print.arrow === "row") === (turn % 2 === 0) ? "↔" : "↕";
      const die = el("text", { x: x + half * 0.45, y: y - half * 0.45, class: "field-print die-print",
                               "font-size": size, "text-anchor": "middle", "dominant-baseline": "central",
                               "data-die": print.die }, g);
      die.textContent = `${print.die}${arrow}`;
    }
    if (print.shield) shield(view, g, x, y, half, SIDES[(SIDES.indexOf(print.shield) + turn) % 4]);
    if (doubled) {
      el("rect", { x: x - half * 0.92, y: y - half * 0.92, width: half * 1.84, height: half * 1.84,
                   class: "doubled-mark", "data-cell": id }, view.over);
    }
    drawToken(view, x, y, half, piece);
  }

  function drawToken(view, x, y, half, piece) {
    if (!piece) return;
    el("circle", { cx: x, cy: y + half * 0.15, r: half * 0.4, class: "token", "data-token": piece,
                   fill: tokenColour(piece) }, view.over);
  }

  // --- words instead of notation: a coaster, a field, a spot, a move ------------------
  const CORNERS = ["nw", "ne", "sw", "se"];

  function coasterEntry(id) {
    const table = board && board.game && board.game.coaster;
    return table ? table.find((c) => c.id === id) : null;
  }

  // one field's print: "forest with gold and a shield"
  function printWords(print) {
    if (!print) return "";
    const marks = [];
    if (print.gold) marks.push(say("haegar.print_gold"));
    if (print.skull) marks.push(say("haegar.print_skull"));
    if (print.shield) marks.push(say("haegar.print_shield"));
    if (print.die) marks.push(say("haegar.print_die", { die: print.die }));
    const land = say(`landscape_${print.landscape}`);
    return marks.length ? say("haegar.print_with", { landscape: land, marks: marks.join(", ") }) : land;
  }

  // a coaster as it is printed (upright): its four fields, corner by corner
  function coasterWords(id) {
    const entry = coasterEntry(id);
    if (!entry) return "";
    const fields = CORNERS.map((corner) => `${say(`haegar.corner_${corner}`)}: ${printWords(entry[corner])}`);
    if (entry.beer) fields.push(say("haegar.beer"));
    return fields.join(" · ");
  }

  // a spot by where it lies from the first coaster: "2 north, 1 west of the first coaster"
  function spotWords(spot) {
    const found = /^([ns])(\d+)([ew])(\d+)$/.exec(spot);
    if (!found) return spot;
    const [, ns, rows, ew, columns] = found;
    const parts = [];
    if (Number(rows)) parts.push(say(`haegar.steps_${ns}`, { n: rows }));
    if (Number(columns)) parts.push(say(`haegar.steps_${ew}`, { n: columns }));
    return parts.length ? say("haegar.from_first", { steps: parts.join(", ") }) : say("haegar.first_coaster");
  }

  // a field: its corner, its coaster's place and what is printed on it
  function fieldWords(state, field) {
    const [spot, corner] = field.split("_");
    const token = state.position[field];
    let print = null;
    if (token) {
      const printedName = token.split("+")[0];
      const upright = printedName.split("_").pop();
      const entry = coasterEntry(printedName.slice(0, -upright.length - 1));
      print = entry ? entry[upright] : null;
    }
    const where = say(`haegar.field_${corner}`, { coaster: spotWords(spot) });
    return print ? `${where} (${printWords(print)})` : where;
  }

  const TOKEN_MOVE = /^(hagar|gold) ([nsew0-9]+_(?:nw|ne|sw|se))$/;
  const HAGAR_MOVE = /^([nsew0-9]+_(?:nw|ne|sw|se))-([nsew0-9]+_(?:nw|ne|sw|se))$/;

  // a token or final-round move in words; null for a move this page does not know
  function moveWords(state, move) {
    if (move === "pass") return say("haegar.pass");
    let found = TOKEN_MOVE.exec(move);
    if (found) return say(`haegar.put_${found[1]}`, { field: fieldWords(state, found[2]) });
    found = HAGAR_MOVE.exec(move);
    if (found) return say("haegar.move_hagar", { from: fieldWords(state, found[1]), to: fieldWords(state, found[2]) });
    return null;
  }

  function points(land, seat) {
    return land.gold_points[seat] + land.dominion_points[seat];
  }

  // the report's landscapes as a table: a row each, a column per seat, totals below
  function scoreTable(state) {
    const report = state.report || {};
    const lands = report.landscapes || [];
    const over = state.phase === "over";
    const box = document.createElement("div");
    box.id = "landscape-scores";
    box.className = over ? "landscape-scores final" : "landscape-scores";
    const title = document.createElement("h2");
    title.textContent = say(over ? "landscape_scores_final" : "landscape_scores_running");
    box.append(title);
    if (!lands.length) {
      const none = document.createElement("p");
      none.textContent = say("landscape_none");
      box.append(none);
      return box;
    }
    const table = document.createElement("table");
    table.className = "scores";
    const head = table.createTHead().insertRow();
    for (const key of ["landscape", "landscape_fields", "landscape_gold"]) {
      const th = document.createElement("th");
      th.textContent = say(key);
      head.append(th);
    }
    state.seats.forEach((seatInfo, n) => {
      const th = document.createElement("th");
      th.textContent = seatName(n);
      th.style.borderBottom = `3px solid ${tokenColour(seatInfo.colour || seatInfo.name)}`;
      head.append(th);
    });
    const body = table.createTBody();
    for (const land of lands) {
      const row = body.insertRow();
      row.className = "landscape-row";
      row.dataset.kind = land.kind;
      row.dataset.fields = land.fields.join(" ");
      const kind = row.insertCell();
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = tokenColour(LANDSCAPES[land.kind] || "grey");
      kind.append(swatch, ` ${say(`landscape_${land.kind}`)}`);
      if (land.shield) {
        const mark = document.createElement("span");
        mark.className = "shield-mark";
        mark.textContent = say("landscape_shield_mark");
        mark.title = say("landscape_shield");
        kind.append(" ", mark);
      }
      row.insertCell().textContent = land.fields.length;
      row.insertCell().textContent = land.gold;
      state.seats.forEach((_, s) => {
        const cell = row.insertCell();
        cell.className = "seat-points";
        cell.dataset.seat = s;
        cell.textContent = land.hagars[s] ? String(points(land, s)) : "–";
        cell.title = say("landscape_breakdown", { hagars: land.hagars[s], gold: land.gold_points[s],
                                                 dominion: land.dominion_points[s] });
        if (land.conqueror === s) {
          cell.classList.add("conqueror");
          cell.textContent += " ♛";
        }
      });
    }
    const total = table.createTFoot().insertRow();
    total.className = "total";
    const label = total.insertCell();
    label.colSpan = 3;
    label.textContent = say("landscape_total");
    state.seats.forEach((_, s) => {
      const cell = total.insertCell();
      cell.className = "seat-total";
      cell.dataset.seat = s;
      cell.textContent = lands.reduce((sum, land) => sum + points(land, s), 0);
    });
    box.append(table);
    const doubled = report.doubled || [];
    if (doubled.length) {
      const note = document.createElement("p");
      note.id = "doubled-note";
      note.textContent = say("landscape_doubled", { die: state.record ? state.record.die : "?", count: doubled.length });
      box.append(note);
    }
    return box;
  }

  // tokens and the last round: a button each, in words. The last round offers each
  // Hägar's every move: first the Hägar to move is chosen, then where it goes.
  function tokenButtons(state, moves) {
    const box = document.createElement("div");
    box.className = "token-moves";
    const origins = [...new Set(moves.map((move) => HAGAR_MOVE.exec(move)).filter(Boolean).map((found) => found[1]))];
    if (!origins.includes(chosenHagar)) chosenHagar = null;
    const button = (move, text) => {
      const b = document.createElement("button");
      b.className = "token-move";
      b.dataset.move = move;
      b.textContent = text;
      b.onclick = () => post("/api/play", { move }).then((done) => { if (done) chosenHagar = null; });
      return b;
    };
    for (const move of moves) {
      const found = HAGAR_MOVE.exec(move);
      if (!found) box.append(button(move, moveWords(state, move)));
      else if (found[1] === chosenHagar) box.append(button(move, say("haegar.move_to", { to: fieldWords(state, found[2]) })));
    }
    for (const origin of origins) {
      const choose = document.createElement("button");
      choose.className = origin === chosenHagar ? "hagar-origin chosen" : "hagar-origin";
      choose.dataset.field = origin;
      choose.textContent = say("haegar.choose_hagar", { field: fieldWords(state, origin) });
      choose.onclick = () => { chosenHagar = origin; render(); };
      box.append(choose);
    }
    return box;
  }

  registerGame("haegar", {
    piece: () => null,

    // a move as the last move or a choice names it: a coaster laid, a token, the last round
    moveWords(text, state) {
      const laid = PLACEMENT.exec(text);
      if (laid) return say("haegar.laid", { spot: spotWords(laid[2]), facing: say(`facing_${laid[3]}`) });
      return moveWords(state, text) || text;
    },

    draw(view, pieces, state) {
      view.svg.classList.add("haegar");
      const turned = turns(state);
      const doubled = new Set((state.report && state.report.doubled) || []);
      for (const [id, token] of Object.entries(pieces)) if (token) field(view, id, token, turned, doubled.has(id));
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
      const spots = [...(state.record ? state.record.laid.map((laid) => laid[1]) : []), ...legalSpots(state).keys()];
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
        hand.dataset.coaster = record.hand;
        hand.textContent = say("coaster_in_hand", { coaster: coasterWords(record.hand) });
        parts.push(hand);
      }
      const spots = placements(state);
      if (spots.size) {
        const help = document.createElement("p");
        help.textContent = chosenSpot ? say("choose_facing", { spot: spotWords(chosenSpot) }) : say("choose_spot");
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
      // tokens and the final round: a button each, in words
      const tokenMoves = state.moves.filter((move) => !PLACEMENT.test(move) && moveWords(state, move) !== null);
      if (tokenMoves.length && mayAct(state)) parts.push(tokenButtons(state, tokenMoves));
      const supply = document.createElement("p");
      supply.textContent = say("supply", {
        // the record names each seat by its colour; the page by its seat's words
        supply: Object.entries(record.supply).map(([colour, s]) => {
          const named = state.seats.findIndex((seatInfo) => seatInfo.name === colour);
          return `${seatName(named)} ${s.hagars}+${s.gold}`;
        }).join(", "),
      });
      parts.push(supply);
      if (record.laid.length) parts.push(scoreTable(state));
      box.replaceChildren(...parts);
    },

    drawn(state, box) {
      if (typeof state.last_draw === "string" && coasterEntry(state.last_draw)) {
        update(box, "textContent", say("drawn", { value: coasterWords(state.last_draw) }));
        box.dataset.coaster = state.last_draw;
        box.classList.add("coaster-drawn");
        return true;
      }
      box.classList.remove("coaster-drawn");
      if (typeof state.last_draw !== "number") return false;
      const label = document.createElement("span");
      label.textContent = say("rolled");
      updateChildren(box, [label, dieFace(state.last_draw)]);
      return true;
    },

    // coasters are laid by tapping, tokens and the final round by the panel's buttons
    // in words; only a move none of them knows stays a plain button
    moves: (state) => state.moves.filter((move) => !PLACEMENT.test(move) && moveWords(state, move) === null),
  });
})();
