// @ts-check
// Fang den Hut! card game on the panel. The table page shows each stack's top card,
// the hat tip pointing at the player it belongs to, and the face-down piles; a phone
// (/play/<seat>) shows its own hand and plays from it: tap a card, then play it alone
// or tap a stack to capture it. The service judges every play; a refused capture
// comes back with the reason in words.
import { el, registerGame, tokenColour } from "../board.js";
import { post, render, say, seatName, seatWords } from "../core.js";
import { capitalised } from "../header.js";

(() => {
  const CARD = /^([a-z]+?)(?:_(blank)|(\d+))$/;
  let chosen = null; // the card tapped in the hand, until it is played

  function cardParts(name) {
    const [, colour, blank, value] = CARD.exec(name);
    return { colour, text: blank ? say("blank") : value };
  }

  // a card in words: "red 7", "rote 7", "blue blank"
  function cardName(name) {
    const { colour, text } = cardParts(name);
    return say("cards.card", { colour: say(`token.${colour}`), value: text });
  }

  function playerName(state, stackCell) {
    return seatName(Number(stackCell.split("_")[1]) - 1);
  }

  function cardShape(view, parent, x, y, name, size) {
    const r = view.radius;
    const w = r * 1.6, h = r * 2.3;
    const g = el("g", { class: "card", "data-card": name || "face_down" }, parent);
    const faceUp = name && name !== "face_down";
    el("rect", { x: x - w / 2, y: y - h / 2, width: w, height: h, rx: r * 0.2,
                 class: faceUp ? "card-face" : "card-back",
                 fill: faceUp ? tokenColour(cardParts(name).colour) : "#334155" }, g);
    if (faceUp) {
      el("text", { x, y, class: "card-value", "font-size": r * 1.1, "text-anchor": "middle",
                   "dominant-baseline": "central" }, g).textContent = cardParts(name).text;
    }
    if (size) {
      // the pile's size as a badge on the card's corner, so it never runs into a neighbour
      const badge = el("g", { class: "card-size" }, g);
      el("circle", { cx: x + w / 2, cy: y - h / 2, r: r * 0.42, class: "card-size-badge" }, badge);
      el("text", { x: x + w / 2, y: y - h / 2, "font-size": r * 0.5, "text-anchor": "middle",
                   "dominant-baseline": "central", class: "card-size-count" }, badge).textContent = size;
      el("title", {}, badge).textContent = say("cards", { count: size });
    }
    return g;
  }

  // the hat tip: a triangle beside the stack, pointing from the middle out to its player
  function tip(view, parent, stackCell) {
    const [x, y] = view.at(stackCell);
    const [cx, cy] = view.at("deck");
    const d = Math.hypot(x - cx, y - cy) || 1;
    const ux = (x - cx) / d, uy = (y - cy) / d;
    const r = view.radius;
    const bx = x + ux * r * 1.5, by = y + uy * r * 1.5;
    el("polygon", { class: "hat-tip", fill: tokenColour("gold"), points: [
      [bx + ux * r * 0.9, by + uy * r * 0.9],
      [bx - uy * r * 0.5, by + ux * r * 0.5],
      [bx + uy * r * 0.5, by - ux * r * 0.5],
    ].map((p) => p.join(",")).join(" ") }, parent);
  }

  function capture(target) {
    post("/api/play", { move: `${chosen}:${target}` }).then((done) => { if (done) chosen = null; });
  }

  function handCard(name) {
    const button = document.createElement("button");
    const { colour, text } = cardParts(name);
    button.className = name === chosen ? "hand-card chosen" : "hand-card";
    if (name.endsWith("_blank")) button.classList.add("blank");
    button.dataset.card = name;
    button.style.background = tokenColour(colour);
    button.textContent = text;
    button.onclick = () => { chosen = chosen === name ? null : name; render(); };
    return button;
  }

  // "red7" is played alone, "red7:blue7" captures the stack topped by blue 7: said by
  // the sentence ``capturing`` or ``alone``; null for what is no card played
  function playWords(text, capturing, alone) {
    const [card, target] = text.split(":");
    if (!CARD.test(card) || (target && !CARD.test(target))) return null;
    return target ? say(capturing, { card: cardName(card), target: cardName(target) })
                  : say(alone, { card: cardName(card) });
  }

  registerGame("fang_den_hut_cards", {
    piece: () => null,

    // a card named in a sentence ("red7" in a refusal) in words
    valueWords(value) {
      return CARD.test(value) ? cardName(value) : null;
    },

    moveWords(text) {
      return playWords(text, "cards.captured", "cards.alone") || text;
    },

    draw(view, pieces, state) {
      const own = state.view ? state.view.seat : null;
      // each open stack's size from the public report (every page), else the phone's view
      const sizes = {};
      const open = state.report && state.report.table ? state.report.table : state.view ? state.view.table : [];
      for (const stack of open) sizes[`stack_${stack.points_at + 1}`] = stack.cards;
      const taken = state.report && state.report.taken ? state.report.taken : [];
      taken.forEach((count, s) => { sizes[`taken_${s + 1}`] = count; });
      for (const cell of view.board.cells) {
        const [x, y] = view.at(cell.id);
        const token = pieces[cell.id];
        if (cell.kind === "taken") {
          el("text", { x, y: y + view.radius * 1.6, class: "seat-name", "font-size": view.radius * 0.45,
                       "text-anchor": "middle" }, view.over).textContent = capitalised(playerName(state, cell.id.replace("taken", "stack")));
        }
        if (!token) continue;
        const card = cardShape(view, view.over, x, y, token, sizes[cell.id]);
        card.dataset.cell = cell.id;
        if (sizes[cell.id] !== undefined) card.dataset.size = sizes[cell.id];
        if (cell.kind !== "stack") continue;
        tip(view, view.over, cell.id);
        card.dataset.pointsAt = playerName(state, cell.id);
        const mine = own !== null && cell.id === `stack_${own + 1}`;
        if (chosen && !mine) {
          card.classList.add("tappable");
          card.addEventListener("click", () => capture(token));
        }
      }
    },

    panel(state, box) {
      const hand = state.view ? state.view.hand : [];
      if (!hand.includes(chosen)) chosen = null;
      if (!state.view) { box.replaceChildren(); return; }
      const title = document.createElement("h2");
      title.textContent = say("your_hand");
      const cards = document.createElement("div");
      cards.className = "hand";
      cards.append(...hand.map(handCard));
      const actions = document.createElement("div");
      actions.className = "card-actions";
      if (chosen && state.to_move === state.view.seat) {
        const alone = document.createElement("button");
        alone.id = "play-alone";
        alone.textContent = say("play_alone");
        alone.onclick = () => post("/api/play", { move: chosen }).then((done) => { if (done) chosen = null; });
        actions.append(alone);
        for (const stack of state.view.table) {
          // only the captures the rules allow are offered (the phone holds its legal moves)
          if (!state.moves.includes(`${chosen}:${stack.top}`)) continue;
          const button = document.createElement("button");
          button.className = "capture";
          button.dataset.target = stack.top;
          button.textContent = say("cards.capture", { card: cardName(stack.top), seat: seatWords(stack.points_at) });
          button.onclick = () => capture(stack.top);
          actions.append(button);
        }
      } else if (state.to_move === state.view.seat && hand.length) {
        actions.textContent = say("choose_card");
      }
      const hats = document.createElement("p");
      const won = state.view.hats.map((n, s) => say("score", { seat: capitalised(seatName(s)), score: n }));
      hats.textContent = say("hats", { hats: won.join(" · ") });
      box.replaceChildren(title, cards, actions, hats);
    },

    // the hand and the stacks are the controls; no list of plays in notation
    moves: () => [],
  });
})();
