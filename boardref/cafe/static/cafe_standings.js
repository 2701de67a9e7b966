// @ts-check
// The café's standings on the dashboard: one table per game, from the records every
// table sent, the provisional ones marked, each row as the kiosk shows it. It reads;
// it sends nothing.
import { say } from "./core.js";
import { standingsTable } from "./standings.js";

async function showStandings() {
  const answer = await fetch("/api/standings");
  if (!answer.ok) return;
  const games = Object.entries(await answer.json()).filter(([, rows]) => rows.length);
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

document.addEventListener("boardref:words", showStandings);
showStandings();
setInterval(showStandings, 5000);
