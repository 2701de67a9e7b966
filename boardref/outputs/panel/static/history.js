// @ts-check
// The played games: the list with its filters (/games) and one game's replay
// (/games/{id}) on the panel's board drawing. It never changes a game; the referee,
// logged in, may say here whether a game the rules leave out of the standings counts.
import { BoardView, dieFace, GAMES } from "./board.js";
import {
  $, ask, button, chosenLanguage, connected, field, loadLanguage, post, said, say, sayTime, sayValue, seatName, setBoard, setState,
  state, view, words,
} from "./core.js";
import "./games/fang_den_hut.js";
import "./games/fang_den_hut_cards.js";
import "./games/haegar.js";
import "./games/hakenschlagen.js";
import { namedSeat } from "./players.js";

// the words, the frame shown (the games' drawings read it as the table) and the board
// drawing are the panel's own (core.js)
let replay = null;
let step = 0;
let timer = null;
const gameId = Number(location.pathname.split("/")[2]) || null;

function gameTitle(name) { return words[`game.${name}.title`] || name; }

async function sayIn(lang) {
  await loadLanguage(lang);
  document.title = say("history.title");
  if (replay) show(step); else await refreshList();
}

// --- the list ------------------------------------------------------------------------
async function loadGameNames() {
  const select = $("filter-game");
  for (const info of await (await fetch("/api/catalogue")).json()) {
    const option = document.createElement("option");
    option.value = info.name;
    option.dataset.game = info.name;
    select.appendChild(option);
  }
  if (asked.get("game")) field("filter-game").value = asked.get("game");
}

function when(seconds) {
  return sayTime(seconds, { dateStyle: "short", timeStyle: "short" });
}

// the named seats of the games listed: game id to seat to the player's name
const namesOf = new Map();
// the games listed that the rules leave out of the standings: game id to the
// referee's word (true: counted after all, null: left out)
const leftOut = new Map();
// whether the referee is logged in on this browser: only then the word can be given
let referee = false;

function resultWords(game) {
  if (game.abandoned) return say("history.abandoned");
  if (!game.winners.length) return say("history.draw");
  const names = namesOf.get(game.id) || {};
  const seats = game.winners.map((n, i) => (names[n] ? namedSeat(names[n], said(game.winners_said[i])) : game.winners_said[i]));
  return say("history.won_by", { seats });
}

function gameRow(game) {
  const row = document.createElement("tr");
  row.dataset.game = game.game;
  row.dataset.id = String(game.id);
  const players = Object.values(namesOf.get(game.id) || {}).join(", ");
  for (const text of [
    when(game.started), game.table, gameTitle(game.game), players, say("history.plies_count", { plies: game.plies }),
    resultWords(game),
  ]) {
    const cell = document.createElement("td");
    cell.textContent = text;
    row.appendChild(cell);
  }
  const links = document.createElement("td");
  const open = document.createElement("a");
  open.href = `/games/${game.id}`;
  open.className = "button";
  open.textContent = say("history.replay");
  links.appendChild(open);
  if (referee && leftOut.has(game.id)) links.append(...refereeWord(game));
  row.appendChild(links);
  return row;
}

// For a game abandoned or corrected by the referee: whether it counts in the
// standings, and the button that changes it (back to the rule: left out).
function refereeWord(game) {
  const counted = leftOut.get(game.id) === true;
  const now = document.createElement("p");
  now.className = "hint rated-now";
  now.textContent = say(counted ? "history.rated_counted" : "history.rated_left_out");
  const change = document.createElement("button");
  change.className = "secondary rated-change";
  change.textContent = say(counted ? "history.rated_leave_out" : "history.rated_count");
  change.onclick = async () => {
    if (await post(`/api/games/${game.id}/rated`, { rated: counted ? null : true }, now)) {
      leftOut.set(game.id, counted ? null : true);
      change.closest("tr").replaceWith(gameRow(game));
    }
  };
  return [now, change];
}

// The list is asked for a page at a time (a year of history is thousands of games);
// "More games" adds the next page below the ones shown.
let nextPage = null;

// A standings row's games (/games?game=G&games=3,5,8): the list shows only those.
const asked = new URLSearchParams(location.search);
const onlyGames = asked.get("games") ? new Set(asked.get("games").split(",").map(Number)) : null;

function listQuery() {
  const query = new URLSearchParams();
  if (onlyGames) query.set("limit", "500");
  if (field("filter-game").value) query.set("game", field("filter-game").value);
  if (field("filter-day").value) query.set("day", field("filter-day").value);
  if (field("filter-table").value.trim()) query.set("table", field("filter-table").value.trim());
  return query;
}

async function loadPage(query) {
  const response = await ask(`/api/games?${query}`);
  const page = response.ok ? await response.json() : { games: [], next: null, names: {}, left_out: {} };
  for (const [id, names] of Object.entries(page.names)) namesOf.set(Number(id), names);
  for (const [id, rated] of Object.entries(page.left_out)) leftOut.set(Number(id), rated);
  nextPage = page.next;
  $("more").hidden = nextPage === null;
  return page.games.filter((game) => !onlyGames || onlyGames.has(game.id)).map(gameRow);
}

async function loadList() {
  for (const option of /** @type {HTMLSelectElement} */ ($("filter-game")).options) {
    if (option.dataset.game) option.textContent = gameTitle(option.dataset.game);
  }
  const rows = await loadPage(listQuery());
  $("games").querySelector("tbody").replaceChildren(...rows);
  const day = field("filter-day").value;
  $("day-archive").hidden = !day || rows.length === 0;
  if (day) /** @type {HTMLAnchorElement} */ ($("day-archive")).href = `/api/games/day.zip?day=${day}`;
  $("none").hidden = rows.length > 0;
  $("games").hidden = rows.length === 0;
}

async function loadMore() {
  const query = listQuery();
  query.set("before", String(nextPage));
  $("games").querySelector("tbody").append(...await loadPage(query));
}

// The list again; while the service cannot be reached the page says so and tries
// again every few seconds until it answers.
const RETRY_LIST_MS = 5000;
let retryList = null;
async function refreshList() {
  clearTimeout(retryList);
  try {
    await loadList();
  } catch (error) {
    if (connected !== false) throw error;
    retryList = setTimeout(refreshList, RETRY_LIST_MS);
  }
}

// --- the replay ----------------------------------------------------------------------
async function loadReplay() {
  const response = await fetch(`/api/games/${gameId}/replay`);
  const answer = await response.json();
  $("list").hidden = true;
  $("replay").hidden = false;
  if (!response.ok) { $("replay-step").textContent = said(answer.said); return; }
  replay = answer;
  const turn = BoardView.standingUp(replay.board, 0, innerWidth, innerHeight); // a long board on a phone
  setBoard(replay.board, new BoardView($("board"), replay.board, null, turn));
  /** @type {HTMLInputElement} */ ($("scrub")).max = String(replay.frames.length - 1);
  /** @type {HTMLAnchorElement} */ ($("download")).href = `/api/games/${gameId}?form=text`;
  /** @type {HTMLAnchorElement} */ ($("download-json")).href = `/api/games/${gameId}?form=json`;
  $("download-json").setAttribute("download", `game-${gameId}.json`);
  const lines = replay.frames.map((frame, n) => {
    const item = document.createElement("li");
    item.textContent = frame.line || "…";
    item.dataset.kind = frame.kind;
    item.addEventListener("click", () => show(n));
    return item;
  });
  $("record-lines").replaceChildren(...lines);
  show(0);
}

// a seat of the game replayed, with its player's name where the record names one
const seatOfReplay = (n) => namedSeat(replay.names[n], seatName(n));

function stepWords(frame) {
  if (frame.kind === "start") return say("history.start");
  if (frame.kind === "ply") return say("history.ply", { n: frame.ply, seat: seatOfReplay(frame.seat), move: frame.table.last_played });
  if (frame.kind === "draw") return say("history.drawn", { n: frame.ply });
  if (frame.kind === "takeback") return say("history.takeback", { n: frame.ply });
  if (frame.kind === "position") return say("history.position", { n: frame.ply });
  return say("history.computer", { n: frame.ply });
}

function show(n) {
  step = Math.max(0, Math.min(n, replay.frames.length - 1));
  const frame = replay.frames[step];
  setState(frame.table);
  document.body.dataset.step = String(step);
  document.body.dataset.steps = String(replay.frames.length);
  $("replay-title").textContent = gameTitle(state.game);
  $("replay-players").textContent = Object.keys(replay.names).map(Number).map(seatOfReplay).join(" · ");
  $("replay-step").textContent = `${step + 1}/${replay.frames.length} · ${stepWords(frame)}`;
  $("replay-line").textContent = frame.line;
  view.show(state.position, state);
  showDraw(frame);
  showOutcome();
  const game = GAMES[state.game];
  if (game && game.panel) game.panel(state, $("game-panel"));
  else $("game-panel").replaceChildren();
  field("scrub").value = String(step);
  $("commitment").textContent = say("history.commitment", { commitment: state.commitment });
  for (const [i, item] of [...$("record-lines").children].entries()) {
    item.classList.toggle("current", i === step);
  }
  const current = $("record-lines").children[step];
  if (current) current.scrollIntoView({ block: "nearest" });
  for (const id of ["first", "back"]) button(id).disabled = step === 0;
  for (const id of ["last", "forward"]) button(id).disabled = step === replay.frames.length - 1;
  if (step === replay.frames.length - 1) stop();
}

function showDraw(frame) {
  const box = $("drawn");
  if (frame.kind !== "draw" || state.last_draw === null) { box.hidden = true; return; }
  box.hidden = false;
  const game = GAMES[state.game];
  if (game && game.drawn && game.drawn(state, box)) return;
  if (typeof state.last_draw === "number") box.replaceChildren(dieFace(state.last_draw));
  else box.textContent = say("drawn", { value: [].concat(state.last_draw).map((value) => sayValue(value)).join(" ") });
}

function showOutcome() {
  const box = $("outcome");
  if (!state.outcome) { box.hidden = true; return; }
  const names = state.outcome.winners.map(seatOfReplay);
  box.textContent = `${names.length ? say("winner", { names: names.join(", ") }) : say("draw_game")} · ${said(state.outcome.reason)}`;
  box.hidden = false;
}

function stop() {
  clearInterval(timer);
  timer = null;
  $("play").textContent = say("history.play");
}

function play() {
  if (timer) { stop(); return; }
  if (step === replay.frames.length - 1) show(0);
  $("play").textContent = say("history.pause");
  timer = setInterval(() => show(step + 1), Number(field("speed").value));
}

function wire() {
  $("language").addEventListener("change", () => sayIn(field("language").value));
  $("filters").addEventListener("change", refreshList);
  $("filters").addEventListener("submit", (e) => { e.preventDefault(); refreshList(); });
  $("more").addEventListener("click", loadMore);
  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(step - 1));
  $("forward").addEventListener("click", () => show(step + 1));
  $("last").addEventListener("click", () => show(replay.frames.length - 1));
  $("play").addEventListener("click", play);
  $("speed").addEventListener("change", () => { if (timer) { stop(); play(); } });
  $("scrub").addEventListener("input", () => show(Number(field("scrub").value)));
  document.addEventListener("keydown", (e) => {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement;
    if (!replay || typing) return;
    if (e.key === "ArrowLeft") show(step - 1);
    if (e.key === "ArrowRight") show(step + 1);
  });
}

(async () => {
  wire();
  if (gameId) await loadReplay();
  else {
    referee = (await (await fetch("/api/referee/session")).json()).ok === true;
    await loadGameNames();
  }
  await sayIn(chosenLanguage());
})();
