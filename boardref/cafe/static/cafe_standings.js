// @ts-check
// The café's standings on the dashboard: one table per game, from the records every
// table sent, within the season's days chosen (none: every game), the provisional
// ones marked, each row as the kiosk shows it, and a player's games one tap away: a
// tap on the name lists them, each with its record. It reads; it sends nothing.
import { say, sayTime } from "./core.js";
import { standingsTable } from "./standings.js";

/** what the standings shown were worked out from: the records and the season */
let shownFrom = "";

const seasonFirst = /** @type {HTMLInputElement} */ (document.getElementById("season-first"));
const seasonLast = /** @type {HTMLInputElement} */ (document.getElementById("season-last"));

/** @param {string} game */
function standingsQuery(game) {
  const query = new URLSearchParams({ game });
  if (seasonFirst.value) query.set("first", seasonFirst.value);
  if (seasonLast.value) query.set("last", seasonLast.value);
  return query;
}

/**
 * @param {string[]} names the games the café has records of
 * @returns {Promise<any[]>} each game's standings, where it has any rows
 */
async function everyGame(names) {
  const answers = await Promise.all(names.map((game) => fetch(`/api/standings?${standingsQuery(game)}`)));
  const found = await Promise.all(answers.map((a) => (a.ok ? a.json() : null)));
  return found.filter((f) => f && f.rows.length);
}

/** A day of the day book (YYYY-MM-DD) in the page's language. @param {string} day */
const sayDay = (day) => sayTime(new Date(`${day}T12:00:00`), { dateStyle: "medium" });

/**
 * The games behind a row, each a link to its record in the day book.
 * @param {any} row
 * @param {Record<string, {day: string, table: string, number: number}>} where
 */
function gamesOf(row, where) {
  const list = document.createElement("ul");
  list.className = "player-games";
  for (const id of row.game_ids) {
    const { day, table, number } = where[id];
    const link = document.createElement("a");
    link.href = `/api/day/${day}/${encodeURIComponent(table)}/${number}`;
    link.setAttribute("download", "");
    link.textContent = say("standings.record_of", { day: sayDay(day), table, number });
    const item = document.createElement("li");
    item.append(link);
    list.append(item);
  }
  return list;
}

/**
 * A row's player as a button that shows and hides their games under the row.
 * @param {Record<string, {day: string, table: string, number: number}>} where
 */
function gamesButton(where) {
  return (row) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "player-name";
    button.textContent = row.player;
    button.setAttribute("aria-expanded", "false");
    button.onclick = () => {
      const line = button.closest("tr");
      const open = line.nextElementSibling && line.nextElementSibling.classList.contains("games-of");
      if (open) line.nextElementSibling.remove();
      else {
        const games = document.createElement("tr");
        games.className = "games-of";
        games.dataset.player = row.player;
        const cell = document.createElement("td");
        cell.colSpan = line.cells.length;
        cell.append(gamesOf(row, where));
        games.append(cell);
        line.after(games);
      }
      button.setAttribute("aria-expanded", String(!open));
    };
    return button;
  };
}

/** @param {boolean} always whether to ask again though no record came since */
async function showStandings(always) {
  const heard = await fetch("/api/standings/games");
  if (!heard.ok) return;
  /** @type {{games: string[], records: number}} */
  const { games: names, records } = await heard.json();
  const from = JSON.stringify([records, seasonFirst.value, seasonLast.value]);
  if (!always && from === shownFrom) return;
  shownFrom = from;
  const games = await everyGame(names);
  const boxes = games.map((found) => {
    const box = document.createElement("section");
    box.className = "standings";
    box.dataset.game = found.game;
    const title = document.createElement("h3");
    title.textContent = say(`game.${found.game}.title`);
    const csv = document.createElement("a");
    csv.className = "button secondary";
    csv.href = `/api/standings.csv?${standingsQuery(found.game)}`;
    csv.setAttribute("download", "");
    csv.textContent = say("standings.csv");
    box.append(title, standingsTable(found.rows, gamesButton(found.games)), csv);
    return box;
  });
  document.getElementById("standings-games").replaceChildren(...boxes);
  document.getElementById("standings-none").hidden = boxes.length > 0;
}

const season = document.getElementById("season");
season.addEventListener("change", () => showStandings(true));
season.addEventListener("submit", (event) => event.preventDefault());
document.addEventListener("boardref:words", () => showStandings(true));
showStandings(true);
setInterval(() => showStandings(false), 5000); // rated again only when a record came
