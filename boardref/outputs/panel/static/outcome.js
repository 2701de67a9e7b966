// @ts-check
// The end of a game on every page: who won and why (said once: the line under the
// header stays quiet about it), the seats by place, each phone its own result, and
// on the kiosk and the referee's page a rematch with the same seats. It shows the
// outcome the service pushed; it never works out who won.
import { tokenColour } from "./board.js";
import { $, post, role, said, say, seat, state, token } from "./core.js";
import { capitalised } from "./header.js";
import { seatWithPlayer } from "./players.js";
import { update, updateChildren } from "./update.js";

// The seats by place: the winners first (a game may be won by who is left on the
// board, whatever the scores), then by score, highest first; equal ones share a place
// and the next place skips them (1, 2, 2, 4).
export function ranking(outcome) {
  const won = (seat) => outcome.winners.includes(seat);
  const ahead = (a, b) => (won(a) !== won(b) ? won(a) : outcome.scores[a] > outcome.scores[b]);
  const seats = outcome.scores.map((_, seat) => seat);
  return seats
    .map((seat) => ({ seat, place: 1 + seats.filter((other) => ahead(other, seat)).length }))
    .sort((a, b) => a.place - b.place || a.seat - b.seat);
}

// Whether the service's notice only says the game is over: the outcome box says it.
export const saysTheEnd = (notice) => Boolean(notice) && notice.key === "referee.game_over";

// "1st", "2nd", "3rd" in English, "2." in German: the language's ordinal rules
// (Intl.PluralRules) pick the word table's form.
function ordinal(n) {
  const form = new Intl.PluralRules(document.documentElement.lang || "en", { type: "ordinal" }).select(n);
  return say(`outcome.ordinal_${form}`, { n });
}

// What this phone's seat made of the game: won, drawn, or its place when there are
// places, else lost.
function ownResult(outcome) {
  if (outcome.winners.includes(seat)) return say("outcome.you_won");
  if (!outcome.winners.length) return say("outcome.you_drew");
  const mine = outcome.scores ? ranking(outcome).find((row) => row.seat === seat) : null;
  return mine ? say("outcome.you_placed", { place: ordinal(mine.place) }) : say("outcome.you_lost");
}

function line(tag, className, text) {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}

export function showOutcome() {
  const box = $("outcome");
  update(box, "hidden", !state.outcome);
  if (!state.outcome) return;
  const outcome = state.outcome;
  const names = outcome.winners.map((n) => capitalised(seatWithPlayer(n))); // after a label, as in the header
  const shown = [];
  if (role === "play" && state.seats[seat]) shown.push(line("strong", "own-result", ownResult(outcome)));
  shown.push(line("strong", "winners", names.length ? say("winner", { names: names.join(", ") }) : say("draw_game")));
  shown.push(line("span", "reason", capitalised(said(outcome.reason))));
  if (outcome.scores) {
    const table = document.createElement("ol");
    table.className = "scores";
    for (const { seat: ranked, place } of ranking(outcome)) {
      const row = line("li", ranked === seat && role === "play" ? "mine" : "",
                       capitalised(say("score", { seat: seatWithPlayer(ranked), score: outcome.scores[ranked] })));
      row.value = place;
      row.style.setProperty("--seat", tokenColour(state.seats[ranked].colour || "piece"));
      table.appendChild(row);
    }
    shown.push(table);
  }
  if (role === "table" || role === "referee") {
    const again = line("button", "rematch", say("outcome.rematch"));
    again.id = "rematch";
    again.onclick = () => post("/api/rematch");
    shown.push(again);
  }
  updateChildren(box, shown);
}

// A phone whose game a rematch replaced: it opens again with its seat's new token
// (true); false where the seat was not its own in the game before.
export async function rejoin() {
  if (!token) return false;
  const answer = await (await fetch(`/api/rejoin/${seat}?token=${encodeURIComponent(token)}`)).json();
  if (!answer.token) return false;
  location.replace(`/play/${seat}?token=${encodeURIComponent(answer.token)}`);
  return true;
}
