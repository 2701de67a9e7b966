// @ts-check
// The café's standings on the dashboard: one table per game, from the records every
// table sent, the provisional ones marked, each row as the kiosk shows it. It reads;
// it sends nothing.
import { say } from "./core.js";
import { standingsTable } from "./standings.js";

/** how many records the standings shown were worked out from */
let shownFrom = -1;

/**
 * @param {string[]} names the games the café has records of
 * @returns {Promise<[string, any[]][]>} each game with its rows, where it has any
 */
async function everyGame(names) {
  const answers = await Promise.all(
    names.map((game) => fetch(`/api/standings?game=${encodeURIComponent(game)}`)),
  );
  const found = await Promise.all(answers.map((a) => (a.ok ? a.json() : null)));
  return found.filter((f) => f && f.rows.length).map((f) => [f.game, f.rows]);
}

/** @param {boolean} always whether to ask again though no record came since */
async function showStandings(always) {
  const heard = await fetch("/api/standings/games");
  if (!heard.ok) return;
  /** @type {{games: string[], records: number}} */
  const { games: names, records } = await heard.json();
  if (!always && records === shownFrom) return;
  shownFrom = records;
  const games = await everyGame(names);
  const boxes = games.map(([game, rows]) => {
    const box = document.createElement("section");
    box.className = "standings";
    box.dataset.game = game;
    const title = document.createElement("h3");
    title.textContent = say(`game.${game}.title`);
    box.append(title, standingsTable(rows, null));
    return box;
  });
  document.getElementById("standings-games").replaceChildren(...boxes);
  document.getElementById("standings-none").hidden = boxes.length > 0;
}

document.addEventListener("boardref:words", () => showStandings(true));
showStandings(true);
setInterval(() => showStandings(false), 5000); // rated again only when a record came
