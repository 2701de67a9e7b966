// @ts-check
// The header's second line on every page: the game on the table, how its variants
// are set, and who plays which seat (the computer's seats marked, a phone's own seat
// too), so whoever walks up to the table or opens a page knows what is played. It
// shows the state the service pushed; it never changes anything.
import { seatColour } from "./board.js";
import { $, role, say, seat, state } from "./core.js";
import { namesShown, seatWithPlayer } from "./players.js";
import { update, updateChildren } from "./update.js";

// each game's options with their defaults (the new-game dialog's catalogue), fetched once
let catalogue = null;
let asked = false;

async function loadCatalogue() {
  asked = true;
  const games = await (await fetch("/api/catalogue")).json();
  catalogue = Object.fromEntries(games.map((game) => [game.name, game]));
  showHeader();
}

// How one option is set, where it differs from the rule book: a choice by its words,
// a rule switched on by its name, one switched off as "without ...", who starts by
// the seat, a number with its name.
function optionWords(game, option, value) {
  const key = `${game}.${option.name}`;
  if (option.choices) return say(`choice.${key}.${value}`);
  const title = say(`option.${key}.title`);
  if (option.kind === "bool") return value ? title : say("header.without", { option: title });
  if (option.name === "first_seat") return say("header.starts", { seat: seatWithPlayer(value) });
  return say("header.set_to", { option: title, value });
}

function variantWords() {
  const game = catalogue && catalogue[state.game];
  if (!game) return "";
  const changed = game.options.filter((option) => (state.options[option.name] ?? null) !== option.default);
  if (!changed.length) return say("header.by_the_book");
  return changed.map((option) => optionWords(state.game, option, state.options[option.name])).join(", ");
}

// ``text`` as a line of its own begins: with a capital, also where it begins with a
// seat's name ("The hunters to move")
export function capitalised(text) {
  const lang = document.documentElement.lang || undefined; // "" is no locale: it throws
  return text.charAt(0).toLocaleUpperCase(lang) + text.slice(1);
}

// one seat: its colour, its name, and who plays it where that is not a guest
function seatItem(n) {
  const item = document.createElement("li");
  item.dataset.seat = n;
  item.style.setProperty("--seat", seatColour(state, n));
  const marks = [];
  if (state.computer.includes(n)) marks.push(say("header.computer"));
  if (role === "play" && n === seat) marks.push(say("header.you"));
  const alone = capitalised(seatWithPlayer(n)); // a name in a list stands alone: "The hare"
  item.textContent = marks.length ? say("header.seat_marked", { seat: alone, marks: marks.join(", ") }) : alone;
  if (state.computer.includes(n)) item.classList.add("computer");
  if (seatColour(state, n) === "transparent") item.classList.add("colourless"); // "player 1"
  return item;
}

// what the header was last written for: a state comes many times a move, and the
// header changes only with the game, its seats, their players and the language
let headerShown = null;

export function showHeader() {
  if (!state || !state.game) return;
  if (!asked) loadCatalogue();
  const shown = JSON.stringify([
    document.documentElement.lang, catalogue !== null, state.game, state.options, state.seats, state.computer,
    namesShown(),
  ]);
  if (shown === headerShown) return;
  headerShown = shown;
  update($("game-name"), "textContent", say(`game.${state.game}.title`));
  update($("game-variant"), "textContent", variantWords());
  updateChildren($("seat-list"), state.seats.map((_, n) => seatItem(n)));
}
