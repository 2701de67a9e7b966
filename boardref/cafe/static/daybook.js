// @ts-check
// The café's day of games on the dashboard: each table's ended games with their
// results and records, and the whole day as one zip. It reads; it sends nothing.
import { said, say, sayTime } from "./core.js";

const dayChosen = /** @type {HTMLInputElement} */ (document.getElementById("day-chosen"));

function localDay() {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, "0")}-${String(now.getDate()).padStart(2, "0")}`;
}

function timeOf(stamp) {
  return stamp ? sayTime(new Date(stamp), { hour: "2-digit", minute: "2-digit" }) : "";
}

function result(game) {
  if (game.abandoned) return say("fleet.day_abandoned");
  if (!game.winners.length) return say("fleet.day_draw");
  const named = (seat, n) => (game.winners_named[n] ? say("players.named_seat", { name: game.winners_named[n], seat: said(seat) }) : said(seat));
  return say("fleet.day_won", { names: game.winners_said.map(named).join(", ") });
}

async function showDay() {
  const day = dayChosen.value || localDay();
  const answer = await (await fetch(`/api/day?day=${day}`)).json();
  /** @type {HTMLAnchorElement} */ (document.getElementById("day-archive")).href = `/api/day/${day}.zip`;
  const boxes = Object.entries(answer.tables).map(([table, games]) => {
    const box = document.createElement("section");
    box.className = "day-table";
    box.dataset.table = table;
    const title = document.createElement("h3");
    title.textContent = say("fleet.day_games", { table, count: games.length });
    const list = document.createElement("ol");
    for (const game of games) {
      const item = document.createElement("li");
      item.dataset.game = game.game;
      const name = say(`game.${game.game}.title`);
      item.textContent = `${timeOf(game.end)} ${say("fleet.day_game", { game: name, plies: game.plies, result: result(game) })} `;
      const link = document.createElement("a");
      link.href = `/api/day/${day}/${encodeURIComponent(table)}/${game.number}`;
      link.textContent = say("fleet.day_record");
      link.setAttribute("download", "");
      item.appendChild(link);
      list.appendChild(item);
    }
    box.append(title, list);
    return box;
  });
  document.getElementById("day-tables").replaceChildren(...boxes);
  document.getElementById("day-none").hidden = boxes.length > 0;
}

dayChosen.value = localDay();
dayChosen.addEventListener("change", showDay);
document.addEventListener("boardref:words", showDay);
showDay();
setInterval(showDay, 5000);
