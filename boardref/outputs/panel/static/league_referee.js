// @ts-check
// The referee's care of the café league on the referee page: the players (rename,
// merge two entries that are one person, delete one with all their data) and the
// seasons (add, delete). Every change goes through the league's API, which refuses
// in words; it never shows a player's number, only their name.
import { $, field, isOpen, post, say, sayTime } from "./core.js";

/** @typedef {{id: number, name: string, games: number}} Player */
/** @typedef {{name: string, first: string, last: string}} Season */

/** @type {Player[]} */
let players = [];
// the player being changed, and how: {id, how: "rename" | "merge" | "delete"}, or null
let editing = null;

// an element of ``tag`` with the class ``name`` and ``text``
function made(tag, name = "", text = "") {
  const element = document.createElement(tag);
  if (name) element.className = name;
  element.textContent = text;
  return element;
}

/** @param {string} key @param {() => void} onclick @param {string} [kind] */
function action(key, onclick, kind = "") {
  const pressed = /** @type {HTMLButtonElement} */ (made("button", kind, say(key)));
  pressed.type = "button";
  pressed.dataset.act = key.split(".").pop();
  pressed.onclick = onclick;
  return pressed;
}

// a change sent; its refusal is said beside the section it came from
async function change(path, body, note) {
  $(note).textContent = "";
  const done = await post(path, body, $(note));
  return done !== null;
}

// --- the players ---------------------------------------------------------------------
export async function loadPlayers() {
  const response = await fetch("/api/players");
  if (!response.ok) return;
  players = await response.json();
  showPlayers();
}

function showPlayers() {
  $("league-players-none").hidden = players.length > 0;
  $("league-players-list").replaceChildren(...players.map(playerItem));
}

/** @param {Player} player */
function playerItem(player) {
  const item = made("li", "league-player");
  item.dataset.player = player.name;
  const said = made("span", "league-name", player.name);
  const games = made("small", "", say("league.games_played", { games: player.games }));
  item.append(said, games);
  const how = editing && editing.id === player.id ? editing.how : null;
  if (how === "rename") item.append(renaming(player));
  else if (how === "merge") item.append(merging(player));
  else if (how === "delete") item.append(deleting(player));
  else {
    const buttons = made("div", "buttons");
    const edit = (next) => () => { editing = { id: player.id, how: next }; showPlayers(); };
    buttons.append(action("league.rename", edit("rename"), "secondary"));
    if (players.length > 1) buttons.append(action("league.merge", edit("merge"), "secondary"));
    buttons.append(action("league.delete", edit("delete"), "secondary"));
    item.append(buttons);
  }
  return item;
}

const stopEditing = () => { editing = null; showPlayers(); };

// A player's change being made: ``parts`` (what it asks), the button ``doing`` that
// sends ``body()`` to ``path``, and the one (``back``) that changes nothing.
function changing(parts, doing, path, body, back = "cancel", kind = "") {
  const box = made("div", "league-edit");
  const buttons = made("div", "buttons");
  buttons.append(
    action(doing, async () => {
      if (await change(path, body(), "league-players-note")) {
        editing = null;
        await loadPlayers();
      }
    }, kind),
    action(back, stopEditing, "secondary"),
  );
  box.append(...parts, buttons);
  return box;
}

/** @param {Player} player */
function renaming(player) {
  const label = made("label", "", say("league.new_name"));
  const name = /** @type {HTMLInputElement} */ (made("input"));
  name.maxLength = /** @type {HTMLInputElement} */ ($("nickname-name")).maxLength; // a name's longest, as a phone's
  name.autocomplete = "off";
  name.value = player.name;
  label.append(name);
  return changing([label], "league.save", `/api/players/${player.id}/rename`, () => ({ name: name.value.trim() }));
}

/** @param {Player} player */
function merging(player) {
  const label = made("label", "", say("league.merge_into", { name: player.name }));
  const into = /** @type {HTMLSelectElement} */ (made("select"));
  for (const other of players.filter((p) => p.id !== player.id)) {
    const option = /** @type {HTMLOptionElement} */ (made("option", "", other.name));
    option.value = String(other.id);
    into.append(option);
  }
  label.append(into);
  return changing([label], "league.merge", `/api/players/${player.id}/merge`, () => ({ into: Number(into.value) }));
}

// deleting says first that all the player's data goes
/** @param {Player} player */
function deleting(player) {
  const warning = made("p", "league-warning", say("league.delete_warning", { name: player.name }));
  return changing(
    [warning], "league.delete_for_good", `/api/players/${player.id}/delete`, () => ({}), "league.keep", "danger",
  );
}

// --- the seasons ---------------------------------------------------------------------
export async function loadSeasons() {
  const response = await fetch("/api/seasons");
  if (!response.ok) return;
  /** @type {Season[]} */
  const seasons = await response.json();
  $("league-seasons-none").hidden = seasons.length > 0;
  $("league-seasons-list").replaceChildren(...seasons.map(seasonItem));
}

/** @param {Season} season */
function seasonItem(season) {
  const item = made("li", "league-season");
  item.dataset.season = season.name;
  const day = (text) => sayTime(new Date(`${text}T12:00`), { dateStyle: "medium" });
  const days = say("league.season_days", { first: day(season.first), last: day(season.last) });
  item.append(made("span", "league-name", season.name), made("small", "", days));
  item.append(action("league.delete", async () => {
    if (await change("/api/seasons/delete", { name: season.name }, "league-seasons-note")) await loadSeasons();
  }, "secondary"));
  return item;
}

async function addSeason(event) {
  event.preventDefault();
  const season = {
    name: field("season-name").value.trim(), first: field("season-first").value, last: field("season-last").value,
  };
  if (!season.name || !season.first || !season.last) {
    $("league-seasons-note").textContent = say("league.season_incomplete");
    return;
  }
  if (await change("/api/seasons", season, "league-seasons-note")) {
    for (const id of ["season-name", "season-first", "season-last"]) field(id).value = "";
    await loadSeasons();
  }
}

// The referee page's league sections: each loads when opened, and again once the
// page speaks another language. Never on a pushed state: a name being typed stays.
export function wireLeague() {
  const loads = { "league-players": loadPlayers, "league-seasons": loadSeasons };
  const reload = () => { for (const [id, load] of Object.entries(loads)) if (isOpen(id)) load(); };
  for (const id of Object.keys(loads)) $(id).ontoggle = reload;
  new MutationObserver(reload).observe(document.documentElement, { attributeFilter: ["lang"] });
  $("season-add").onclick = addSeason;
}
