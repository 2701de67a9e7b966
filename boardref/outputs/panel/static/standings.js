// @ts-check
// The game's standings on the kiosk between games (before the first move and after
// the end): place, player, rating, games, wins, last played, provisional ones marked,
// each row's games one tap away on the played-games page, and the CSV. The season is
// the one today falls in, else every game played here. It only reads.
import { $, role, say, sayTime, state } from "./core.js";
import { update } from "./update.js";

// what the standings were last fetched for: fetched again only when it changes
let shownFor = null;

const between = () => state.phase === "over" || state.plies === 0;

// the season today falls in (its first and last day both in it), or null
async function seasonNow() {
  const answer = await fetch("/api/seasons");
  if (!answer.ok) return null;
  const today = sayDay(new Date());
  return (await answer.json()).find((s) => s.first <= today && today <= s.last) || null;
}

// YYYY-MM-DD of this machine's day, as seasons are written
const sayDay = (date) => new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString().slice(0, 10);

function cell(tag, text) {
  const node = document.createElement(tag);
  node.textContent = text;
  return node;
}

// One player's row; ``named`` gives what shows the player's name: a way to the row's
// games, where the page has one.
function standingsRow(row, named) {
  const line = document.createElement("tr");
  line.dataset.player = row.player;
  if (row.provisional) line.classList.add("provisional");
  const who = document.createElement("td");
  who.append(named(row));
  if (row.provisional) who.append(" ", cell("small", say("standings.provisional")));
  const last = row.last_played ? sayTime(new Date(row.last_played), { dateStyle: "short" }) : "";
  line.append(
    cell("td", String(row.place)), who, cell("td", ratingText(row.rating)), cell("td", String(row.games)),
    cell("td", String(row.wins)), cell("td", last),
  );
  return line;
}

// a rating to one decimal, written the page language's way ("3,4" in German)
const ratingText = (value) => new Intl.NumberFormat(document.documentElement.lang || "en", {
  minimumFractionDigits: 1, maximumFractionDigits: 1,
}).format(value);

const COLUMNS = ["place", "player", "rating", "games", "wins", "last_played"];

/**
 * The standings ``rows`` as a table; ``named`` shows a row's player (see standingsRow).
 * @param {any[]} rows
 * @param {(row: any) => Node} named
 */
export function standingsTable(rows, named) {
  const table = document.createElement("table");
  table.className = "standings-table";
  const head = document.createElement("tr");
  head.append(...COLUMNS.map((column) => cell("th", say(`standings.${column}`))));
  const body = document.createElement("tbody");
  body.append(...rows.map((row) => standingsRow(row, named)));
  table.append(document.createElement("thead"), body);
  table.tHead.append(head);
  return table;
}

// A row's player as a link to their games on the played-games page.
function gamesLink(row) {
  const games = document.createElement("a");
  games.href = `/games?game=${state.game}&games=${row.game_ids.join(",")}`;
  games.textContent = row.player;
  return games;
}

export async function showStandings() {
  const box = $("standings");
  if (!box || role !== "table") return;
  const shown = between();
  update(box, "hidden", !shown);
  // the kiosk lays itself out for between games (panel.css): before the first move the
  // join codes come first, after the end the standings
  update(document.body.dataset, "between", shown ? (state.phase === "over" ? "over" : "start") : "no");
  const key = JSON.stringify([state.game, state.commitment, state.phase, document.documentElement.lang, shown]);
  if (!shown || key === shownFor) return;
  shownFor = key;
  let season, query, table;
  try {
    season = await seasonNow();
    query = new URLSearchParams({ game: state.game });
    if (season) query.set("season", season.name);
    const answer = await fetch(`/api/standings?${query}`);
    if (!answer.ok) return;
    table = await answer.json();
  } catch {
    shownFor = null; // the service is away (restarting): asked again at the next push
    return;
  }
  $("standings-title").textContent = season
    ? say("standings.title_season", { game: say(`game.${state.game}.title`), season: season.name })
    : say("standings.title", { game: say(`game.${state.game}.title`) });
  $("standings-rows").replaceChildren(...(table.rows.length ? [standingsTable(table.rows, gamesLink)] : []));
  // a game nobody rated yet is one line of hint: no title, no empty CSV, so the join
  // codes of six seats keep their room before the first move
  const none = table.rows.length === 0;
  update($("standings-none"), "hidden", !none);
  update($("standings-title"), "hidden", none);
  update($("standings-csv-line"), "hidden", none);
  /** @type {HTMLAnchorElement} */ ($("standings-csv")).href = `/api/standings.csv?${query}`;
}
