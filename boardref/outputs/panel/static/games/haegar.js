// @ts-check
// Hägar on the panel: the coasters laid so far (fields coloured by landscape, with
// their printed gold, skulls, shields and dice numbers, and the tokens on them), the
// coaster in hand drawn as it is printed, and the legal spots: tap a spot and the
// coaster in hand lies there as a preview; tap the coaster to turn it, and a facing
// (each drawn as the coaster would lie) to lay it. A facing the rules forbid there is
// shown but cannot be laid.
// What a coaster shows is read from the board's [game] coaster table (/api/board's
// game.coaster): landscape colour, gold, skull, the dice number with its arrow and the
// shield, turned as the coaster lies. The pushed report scores every landscape: a
// running tally in the side panel, the final scores at the end, and the fields the die
// doubled marked on the board.
import { dieFace, el, registerGame, tokenColour } from "../board.js";
import { board, post, render, role, say, seat, seatName } from "../core.js";
import { capitalised } from "../header.js";
import { updateChildren } from "../update.js";

(() => {
  const LANDSCAPES = { land: "beige", forest: "darkgreen", water: "blue" };
  const PLACEMENT = /^(\w+) ([nsew0-9]+) (north|east|south|west)$/;
  const SIDES = ["north", "east", "south", "west"];
  const CLOCKWISE = ["nw", "ne", "se", "sw"];
  const CORNER_AT = { nw: [-1, -1], ne: [1, -1], se: [1, 1], sw: [-1, 1] };
  let chosenSpot = null;
  let chosenHagar = null; // the last round: the field of the Hägar to move
  // the coaster in hand, and its quarter turns clockwise from upright as last turned
  let handCoaster = null;
  let handTurn = 0;

  function spotBox(view, spot) {
    const [x1, y1] = view.at(`${spot}_nw`);
    const [x2, y2] = view.at(`${spot}_se`);
    const half = (x2 - x1) / 2;
    return { left: x1 - half, top: y1 - half, size: 2 * (x2 - x1), cx: (x1 + x2) / 2, cy: (y1 + y2) / 2 };
  }

  // whether this page may lay or place now: the table and the referee for anyone, a
  // phone only on its own seat's turn, nobody for the computer, which lays and places
  // by itself (another seat's buttons would only be refused)
  function mayAct(state) {
    if ((state.computer || []).includes(state.acting)) return false;
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
  function shield(g, x, y, half, side) {
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
    const entry = coasterEntry(coaster);
    const print = entry ? entry[corner] : null;
    const g = el("g", { class: doubled ? "field doubled" : "field", "data-cell": id,
                        "data-landscape": print ? print.landscape : "" }, view.ground);
    fieldArt(g, x, y, half, print, turned.get(coaster) || 0);
    if (doubled) {
      el("rect", { x: x - half * 0.92, y: y - half * 0.92, width: half * 1.84, height: half * 1.84,
                   class: "doubled-mark", "data-cell": id }, view.over);
    }
    drawToken(view, x, y, half, piece);
  }

  // one field of a coaster centred at (x, y), ``half`` its half width: its landscape
  // and what is printed on it, turned ``turn`` quarter turns as the coaster lies
  function fieldArt(g, x, y, half, print, turn) {
    el("rect", { x: x - half, y: y - half, width: 2 * half, height: 2 * half, class: "field-area",
                 fill: print ? tokenColour(LANDSCAPES[print.landscape] || "grey") : tokenColour("grey") }, g);
    if (!print) return;
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
    if (print.shield) shield(g, x, y, half, SIDES[(SIDES.indexOf(print.shield) + turn) % 4]);
  }

  // a whole coaster centred at (cx, cy), each field ``half`` wide by half, turned
  // ``turn`` quarter turns clockwise: the printed upper-left field then lies upper right
  function coasterArt(g, id, turn, cx, cy, half) {
    const entry = coasterEntry(id);
    for (const corner of CLOCKWISE) {
      const [dx, dy] = CORNER_AT[CLOCKWISE[(CLOCKWISE.indexOf(corner) + turn) % 4]];
      fieldArt(g, cx + dx * half, cy + dy * half, half, entry ? entry[corner] : null, turn);
    }
    el("rect", { x: cx - 2 * half, y: cy - 2 * half, width: 4 * half, height: 4 * half, class: "coaster-edge" }, g);
  }

  // the coaster ``id`` as a picture of its own, lying ``turn`` quarter turns from upright
  function coasterPicture(id, turn, className) {
    const svg = el("svg", { viewBox: "-2 -2 104 104", class: `coaster-picture ${className}`,
                            "data-coaster": id, "data-facing": SIDES[turn] });
    coasterArt(svg, id, turn, 50, 50, 25);
    return svg;
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

  // a token or final-round move in words; null for a move this page does not know.
  // ``keys`` are the sentences: a player's buttons, or a move made (the last move, a
  // choice between moves)
  const PLAYER_SAYS = { pass: "haegar.pass", hagar: "haegar.put_hagar", gold: "haegar.put_gold",
                        move: "haegar.move_hagar" };
  const DONE_SAYS = { pass: "haegar.passed", hagar: "haegar.hagar_put", gold: "haegar.gold_put",
                      move: "haegar.hagar_moved" };

  function moveWords(state, move, keys = PLAYER_SAYS) {
    if (move === "pass") return say(keys.pass);
    let found = TOKEN_MOVE.exec(move);
    if (found) return say(keys[found[1]], { field: fieldWords(state, found[2]) });
    found = HAGAR_MOVE.exec(move);
    if (found) return say(keys.move, { from: fieldWords(state, found[1]), to: fieldWords(state, found[2]) });
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
      th.textContent = capitalised(seatName(n)); // a heading stands alone
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
      kind.append(swatch, ` ${capitalised(say(`landscape_${land.kind}`))}`); // a row's heading
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

  // the quarter turns of the coaster in hand; a new coaster comes upright
  function inHand(state) {
    const hand = state.record ? state.record.hand : null;
    if (hand !== handCoaster) [handCoaster, handTurn] = [hand, 0];
    return handTurn;
  }

  function turnHand() {
    handTurn = (handTurn + 1) % 4;
    render();
  }

  // the state the board was last drawn for: a spot kept in the page from an earlier
  // drawing (it looks the same) chooses among the spots of this one
  let drawnState = null;

  // a spot tapped: the coaster in hand lies there, turned to a facing it may have there
  function chooseSpot(spot) {
    const state = drawnState;
    chosenSpot = spot;
    const fits = legalSpots(state).get(spot).map((move) => SIDES.indexOf(PLACEMENT.exec(move)[3]));
    if (!fits.includes(inHand(state))) handTurn = fits[0];
    render();
  }

  // the coaster in hand: its picture (a tap turns it, where this page may lay it)
  // and, once a spot is chosen, its four facings drawn, each laying it that way
  function handPanel(state, spots) {
    const hand = state.record.hand;
    const turn = inHand(state);
    const box = document.createElement("div");
    box.id = "coaster-in-hand";
    box.dataset.coaster = hand;
    box.dataset.facing = SIDES[turn];
    const picture = coasterPicture(hand, turn, "in-hand");
    picture.setAttribute("role", "img");
    picture.setAttribute("aria-label", coasterWords(hand));
    const label = document.createElement("p");
    label.className = "in-hand-label";
    label.textContent = say(spots.size ? "coaster_tap_to_turn" : "coaster_in_hand");
    box.append(picture, label);
    if (!spots.size) return [box];
    picture.classList.add("tappable");
    picture.addEventListener("click", turnHand);
    const help = document.createElement("p");
    help.className = "lay-help";
    const fitting = (spots.get(chosenSpot) || []).find((move) => move.endsWith(` ${SIDES[turn]}`));
    if (!chosenSpot) help.textContent = say("choose_spot");
    else if (fitting) help.textContent = say("choose_facing", { spot: spotWords(chosenSpot) });
    else help.textContent = say("coaster_does_not_fit", { facing: say(`facing_${SIDES[turn]}`) });
    const facings = document.createElement("div");
    facings.className = "facings";
    if (chosenSpot) {
      for (const facing of SIDES) {
        const move = spots.get(chosenSpot).find((m) => m.endsWith(` ${facing}`));
        const button = document.createElement("button");
        // a facing the rules forbid here is drawn too, but lays nothing
        button.className = move ? "facing" : "facing-forbidden";
        if (facing === SIDES[turn]) button.classList.add("chosen");
        button.disabled = !move;
        button.dataset.facing = facing;
        if (move) button.dataset.move = move;
        const name = document.createElement("span");
        name.textContent = `${"↑→↓←"[SIDES.indexOf(facing)]} ${say(`facing_${facing}`)}`;
        button.append(coasterPicture(hand, SIDES.indexOf(facing), "facing-picture"), name);
        button.onclick = () => post("/api/play", { move }).then((done) => { if (done) chosenSpot = null; });
        facings.append(button);
      }
    }
    return [box, help, facings];
  }

  registerGame("haegar", {
    piece: () => null,

    // a move as the last move or a choice names it: a coaster laid, a token, the last round
    moveWords(text, state) {
      const laid = PLACEMENT.exec(text);
      if (laid) return say("haegar.laid", { spot: spotWords(laid[2]), facing: say(`facing_${laid[3]}`) });
      return moveWords(state, text, DONE_SAYS) || text;
    },

    draw(view, pieces, state) {
      for (const svg of [view.back, view.svg]) svg.classList.add("haegar");
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
      drawnState = state;
      if (!spots.has(chosenSpot)) chosenSpot = null;
      for (const spot of spots.keys()) {
        const box = spotBox(view, spot);
        const g = el("g", { class: spot === chosenSpot ? "spot tappable chosen" : "spot tappable", "data-spot": spot },
                     view.over);
        el("rect", { x: box.left, y: box.top, width: box.size, height: box.size, class: "spot-area" }, g);
        g.addEventListener("click", () => chooseSpot(spot));
      }
      const announced = PLACEMENT.exec(state.expected || "");
      if (announced) {
        // the computer's coaster where and as it will lie, while its move is announced
        const box = spotBox(view, announced[2]);
        const g = el("g", { class: "coaster-preview computer", "data-spot": announced[2],
                            "data-facing": announced[3] }, view.over);
        coasterArt(g, announced[1], SIDES.indexOf(announced[3]), box.cx, box.cy, box.size / 4);
      }
      if (chosenSpot && state.record && state.record.hand) {
        // the coaster in hand as it would lie there; a tap turns it
        const box = spotBox(view, chosenSpot);
        const facing = SIDES[inHand(state)];
        const g = el("g", { class: "coaster-preview tappable", "data-spot": chosenSpot, "data-facing": facing,
                            "data-fits": String(spots.get(chosenSpot).some((move) => move.endsWith(` ${facing}`))) },
                     view.over);
        coasterArt(g, state.record.hand, inHand(state), box.cx, box.cy, box.size / 4);
        g.addEventListener("click", turnHand);
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
      const parts = record.hand ? handPanel(state, placements(state)) : [];
      // tokens and the final round: a button each, in words
      const tokenMoves = state.moves.filter((move) => !PLACEMENT.test(move) && moveWords(state, move) !== null);
      if (tokenMoves.length && mayAct(state)) parts.push(tokenButtons(state, tokenMoves));
      const supply = document.createElement("p");
      supply.textContent = say("supply", {
        // the record names each seat by its colour; the page by its seat's words
        supply: Object.entries(record.supply).map(([colour, s]) => {
          const named = state.seats.findIndex((seatInfo) => seatInfo.name === colour);
          return say("supply_of", { seat: capitalised(seatName(named)), hagars: s.hagars, gold: s.gold });
        }).join(" · "),
      });
      parts.push(supply);
      if (record.laid.length) parts.push(scoreTable(state));
      box.replaceChildren(...parts);
    },

    // a coaster drawn is shown once: in hand (the game panel), then laid on the board
    drawn(state, box) {
      if (typeof state.last_draw === "string" && coasterEntry(state.last_draw)) {
        box.hidden = true;
        return true;
      }
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
