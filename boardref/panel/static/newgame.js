// The new-game dialog: game, players, variants and computer seats.
"use strict";

async function openNewGame() {
  const games = await (await fetch("/api/games")).json();
  const dialog = $("new-game");
  const select = $("new-game-name");
  select.replaceChildren(...games.map((g) => new Option(g.name, g.name)));
  select.value = state.game;
  const fill = () => {
    const game = games.find((g) => g.name === select.value);
    const players = $("new-game-players");
    players.replaceChildren(...game.players.map((n) => new Option(n, n)));
    players.value = game.name === state.game ? state.players : game.default_players;
    const options = $("new-game-options");
    options.replaceChildren();
    for (const option of game.options) {
      const label = document.createElement("label");
      let input;
      if (option.kind === "bool") {
        input = document.createElement("input");
        input.type = "checkbox";
        input.checked = option.default;
      } else if (option.choices) {
        input = document.createElement("select");
        input.append(...option.choices.map((c) => new Option(c, c)));
        input.value = option.default;
      } else {
        input = document.createElement("input");
        input.type = option.kind === "int" ? "number" : "text";
        input.value = option.default === null ? "" : option.default;
      }
      input.dataset.option = option.name;
      input.dataset.kind = option.kind;
      label.append(input, ` ${option.name}`);
      label.title = option.doc;
      options.appendChild(label);
    }
  };
  const seats = () => {
    const box = $("new-game-computer");
    box.replaceChildren();
    for (let n = 0; n < Number($("new-game-players").value); n++) {
      const label = document.createElement("label");
      const input = document.createElement("input");
      input.type = "checkbox";
      input.dataset.seat = n;
      label.append(input, ` ${say("seat", { n: n + 1 })}`);
      box.appendChild(label);
    }
  };
  select.onchange = () => { fill(); seats(); };
  $("new-game-players").onchange = seats;
  fill();
  seats();
  dialog.showModal();
}

async function startNewGame() {
  const options = {};
  for (const input of $("new-game-options").querySelectorAll("[data-option]")) {
    const kind = input.dataset.kind;
    if (kind === "bool") options[input.dataset.option] = input.checked;
    else if (kind === "int") { if (input.value !== "") options[input.dataset.option] = Number(input.value); }
    else options[input.dataset.option] = input.value;
  }
  const computer = [...$("new-game-computer").querySelectorAll("input:checked")].map((i) => Number(i.dataset.seat));
  const body = { game: $("new-game-name").value, players: Number($("new-game-players").value), options,
                 computer, level: $("new-game-level").value };
  if (await post("/api/game", body)) {
    $("new-game").close();
    inHand = null;
  }
}
