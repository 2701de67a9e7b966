// @ts-check
// The new-game dialog: game, players, who starts, variants and computer seats, each
// with its name and a one-line description in the page's language (games.json).
import { $, field, post, said, say, state } from "./core.js";
import { forgetChosen } from "./sim.js";

let newGameList = [];

// the seat names of ``game`` with ``players`` players, in the page's language
function seatNames(game, players) {
  const named = game.seat_names[players];
  return named ? named.map((name) => said(name)) : Array.from({ length: players }, (_, n) => say("seat", { n: n + 1 }));
}

function describedRow(title, about, input) {
  const row = document.createElement("div");
  row.className = "option";
  const label = document.createElement("label");
  const name = document.createElement("span");
  name.className = "option-title";
  name.textContent = title;
  if (input.type === "checkbox") label.append(input, " ", name);
  else label.append(name, input);
  const line = document.createElement("p");
  line.className = "option-about";
  line.textContent = about;
  row.append(label, line);
  return row;
}

function optionInput(game, option, players) {
  const key = `${game.name}.${option.name}`;
  let input;
  if (option.kind === "bool") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = option.default;
  } else if (option.kind === "int" && option.name === "first_seat") {
    input = document.createElement("select");
    input.append(...seatNames(game, players).map((name, n) => new Option(name, n)));
    input.value = String(option.default || 0);
  } else if (option.choices) {
    input = document.createElement("select");
    input.append(...option.choices.map((c) => new Option(say(`choice.${key}.${c}`), c)));
    input.value = String(option.default);
  } else {
    input = document.createElement("input");
    input.type = option.kind === "int" ? "number" : "text";
    if (option.minimum !== null && option.minimum !== undefined) input.min = option.minimum;
    if (option.maximum !== null && option.maximum !== undefined) input.max = option.maximum;
    input.value = option.default === null ? "" : option.default;
    if (option.default === null) input.placeholder = say(option.kind === "int" ? "no_limit" : "default_places");
  }
  input.dataset.option = option.name;
  input.dataset.kind = option.kind;
  input.id = `option-${option.name}`;
  return describedRow(say(`option.${key}.title`), say(`option.${key}.about`), input);
}

// Catch the Hare's handicap in plain numbers: captures the hare needs to win
function showHandicap() {
  const hunters = field("option-hunters"), least = field("option-min_hunters"), note = $("new-game-handicap");
  if (!note) return;
  if (!hunters || !least) { note.hidden = true; return; }
  const n = Number(hunters.value) - Number(least.value) + 1;
  note.textContent = say("option.catch_the_hare.min_hunters.captures", { n: Math.max(n, 0) });
  note.hidden = false;
}

function fillNewGame() {
  const game = newGameList.find((g) => g.name === field("new-game-name").value);
  $("new-game-about").textContent = say(`game.${game.name}.about`);
  const players = field("new-game-players");
  const chosen = Number(players.value);
  players.replaceChildren(...game.players.map((n) => new Option(n, n)));
  players.value = String(game.players.includes(chosen) ? chosen : game.name === state.game ? state.players : game.default_players);
  const count = Number(players.value);
  const options = $("new-game-options");
  options.replaceChildren(...game.options.map((option) => optionInput(game, option, count)));
  const note = document.createElement("p");
  note.id = "new-game-handicap";
  note.className = "option-about handicap";
  options.append(note);
  for (const input of options.querySelectorAll("[data-option]")) input.addEventListener("input", showHandicap);
  showHandicap();
  const box = $("new-game-computer");
  box.replaceChildren(...seatNames(game, count).map((name, n) => {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.dataset.seat = n;
    label.append(input, ` ${name}`);
    return label;
  }));
}

export async function openNewGame() {
  newGameList = await (await fetch("/api/catalogue")).json();
  const select = /** @type {HTMLSelectElement} */ ($("new-game-name"));
  select.replaceChildren(...newGameList.map((g) => new Option(say(`game.${g.name}.title`), g.name)));
  select.value = state.game;
  $("new-game-players").replaceChildren();
  const level = /** @type {HTMLSelectElement} */ ($("new-game-level"));
  for (const choice of level.options) choice.textContent = say(`level.${choice.value}`);
  select.onchange = () => { $("new-game-players").replaceChildren(); fillNewGame(); };
  $("new-game-players").onchange = fillNewGame;
  fillNewGame();
  /** @type {HTMLDialogElement} */ ($("new-game")).showModal();
}

export async function startNewGame() {
  const options = {};
  for (const input of /** @type {NodeListOf<HTMLInputElement>} */ ($("new-game-options").querySelectorAll("[data-option]"))) {
    const kind = input.dataset.kind;
    if (kind === "bool") options[input.dataset.option] = input.checked;
    else if (kind === "int") { if (input.value !== "") options[input.dataset.option] = Number(input.value); }
    else if (input.value !== "") options[input.dataset.option] = input.value;
  }
  const computer = [.../** @type {NodeListOf<HTMLInputElement>} */ ($("new-game-computer").querySelectorAll("input:checked"))]
    .map((i) => Number(i.dataset.seat));
  const body = { game: field("new-game-name").value, players: Number(field("new-game-players").value), options,
                 computer, level: field("new-game-level").value };
  if (await post("/api/game", body)) {
    /** @type {HTMLDialogElement} */ ($("new-game")).close();
    forgetChosen();
  }
}
