// @ts-check
// One script for every page; <body data-role="table|watch|referee|sim|play"> says
// which parts it shows. State arrives on the WebSocket; every change is a POST with a
// JSON body. The server decides; this page only shows and asks.
import "./boardcheck.js";
import { BoardView, GAMES, seatColour } from "./board.js";
import {
  $, chanceWords, computerThinking, connect, described, isOpen, drawWith, isCurrent, linkWords, loadLanguage,
  post, render, role, said, say, seat, seatName, seatWords, setBoard, setConnected, setState, state, token, view,
} from "./core.js";
import "./games/catch_the_hare.js";
import "./games/fang_den_hut.js";
import "./games/fang_den_hut_cards.js";
import "./games/haegar.js";
import "./games/hakenschlagen.js";
import "./games/sternhalma.js";
import { showCandidates } from "./candidates.js";
import { capitalised, showHeader } from "./header.js";
import { checkJoined, showJoinCodes, showStanding } from "./join_codes.js";
import { calm } from "./motion.js";
import { openNewGame, startNewGame } from "./newgame.js";
import { saysTheEnd, showOutcome } from "./outcome.js";
import { followNames, showNickname } from "./players.js";
import {
  cornerClicks, loadCameraView, loadDiagnostics, promptCorner, refereeSession, wireReferee,
} from "./referee.js";
import { seatTurn } from "./seat_turn.js";
import { correctingNow, refereeDrawing, tapRefereeCell } from "./referee_board.js";
import { clickSimCell, showSimSide, simMarks, simPieces, wireSim } from "./sim.js";
import { hearSaid } from "./speech.js";
import { showSpeechSettings } from "./speech_settings.js";
import { showStandings } from "./standings.js";
import { showUnseen } from "./unseen.js";
import { update, updateChildren } from "./update.js";

let lastDraw = null;

// --- language ------------------------------------------------------------------------
async function sayIn(lang) {
  await loadLanguage(lang);
  if (state) update($("link"), "textContent", linkWords(state.link));
  if (state) render();
}

// The socket to the service (it reconnects by itself, and the service then pushes
// its whole state at once): every state taken in the order it came, a state waiting
// while the board of the one before it loads.
let received = Promise.resolve();

function listen() {
  // only the simulator's page draws the virtual board: the others are not sent it, nor
  // a state in which nothing else changed
  const query = role === "play" ? `?seat=${seat}&token=${encodeURIComponent(token || "")}`
    : role === "sim" ? "?virtual=true" : "";
  connect(`/ws${query}`, (next) => {
    received = received.then(() => take(next)).catch((error) => console.error(error));
  }, (open) => {
    setConnected(open);
    if (open) joinedGame = null;
  }, sayIn);
}

// Show ``next``, unless it is older than the state shown; a state of another game (or
// another game started) draws its board afresh first, so no game's pieces stand on
// another's board.
async function take(next) {
  if (!isCurrent(next)) return;
  setState(next);
  hearSaid(next);
  update($("link"), "textContent", linkWords(next.link));
  const key = boardOf(next);
  if (key !== drawnBoard || !view) {
    await loadBoard();
    drawnBoard = key;
  }
  render();
  followNames();
}

// what a page's board drawing follows: the game, its seats and options, and which
// game of them (a new game lays out afresh)
let drawnBoard = null;
const boardOf = (s) => JSON.stringify([s.game, s.players, s.options, s.commitment]);

async function loadBoard() {
  const drawing = await (await fetch("/api/board")).json();
  const onCell = { sim: clickSimCell, referee: tapRefereeCell }[role] || null;
  setBoard(drawing, new BoardView($("board"), drawing, onCell, boardTurn(drawing)));
}

// How far this page turns the board: a phone to its seat (the player's own side at the
// bottom), a long board further to stand up on a tall screen.
function boardTurn(drawing) {
  const turn = role === "play" ? seatTurn(drawing, state, seat) : 0;
  return BoardView.standingUp(drawing, turn, innerWidth, innerHeight);
}

// a long board is drawn anew, turned or not, when the screen is turned
matchMedia("(orientation: portrait)").addEventListener("change", () => {
  if (view && view.turn !== boardTurn(view.board)) {
    loadBoard().then(render);
  }
});

// --- drawing -------------------------------------------------------------------------
function renderPage() {
  if (!state || !view) return;
  const page = document.body.dataset;
  update(page, "phase", state.phase);
  update(page, "game", state.game);
  // for people's tests: how far the game is, and the move on the board (still open or played)
  update(page, "plies", String(state.plies));
  update(page, "last", state.tentative || state.last_played || "");
  // the virtual board shows what really stands there (sim.js)
  const onBoard = role === "sim" && state.virtual;
  // the referee's tools draw the position they work on (the one before the last move...)
  const [pieces, marks] = (role === "referee" && refereeDrawing())
    || (onBoard ? [simPieces(), simMarks()] : [state.position, state]);
  view.show(pieces, marks);
  if (cornerClicks) promptCorner(); // the cell to click stays lit
  showTurn();
  showHeader();
  const message = $("message");
  update(message, "textContent", state.notice && !saysTheEnd(state.notice) ? said(state.notice, true) : "");
  update(message.dataset, "kind", state.errors.length ? "error" : "info");
  update($("tentative"), "textContent", state.tentative ? say("tentative", { move: state.tentative }) : "");
  update($("last"), "textContent", state.last_played ? say("last_move", { move: state.last_played }) : "");
  showOutcome();
  showGamePanel();
  showDraw();
  showCandidates();
  showUnseen();
  showMoves();
  showControls();
  if (role === "play") showSeat();
  if (role === "table" || role === "referee") showJoinCodes();
  if (role === "table") showStandings();
  if (role === "sim") showSimSide();
  if (role === "referee") showSpeechSettings();
  if (role === "referee" && isOpen("diagnostics")) loadDiagnostics();
  if (role === "referee" && isOpen("camera-view")) loadCameraView();
}

// Whose move, roll or draw it is, in words and in the colour of their pieces.
function showTurn() {
  const turn = $("turn");
  const acting = state.acting;
  const rolling = state.chance !== null; // also the roll that ends a tentative move
  // a die is rolled, anything else (marbles, a coaster) drawn
  const [mine, theirs] = !rolling ? ["your_turn", "to_move"]
    : state.chance.startsWith("roll") ? ["your_roll", "to_roll"] : ["your_draw", "to_draw"];
  let line;
  if (state.phase === "over") line = say("phase_over");
  // the referee's own page while the last move is replaced: that, not whose turn
  else if (role === "referee" && correctingNow()) line = say("turn_correcting");
  else if (acting === null) line = say(`phase_${state.phase}`);
  // a turn held open is still its mover's: what is left to do, not the next draw
  else if (state.still_to_do && acting === state.tentative_seat) {
    // only the mover is told what to do; every other page says what may still happen
    line = role === "play" && acting === seat ? say("your_turn_left", { left: said(state.still_to_do) })
      : say("turn_left", { seat: seatWords(acting), left: described(state.still_to_do) });
  } else if (computerThinking(state)) line = say("computer_thinking", { seat: seatWords(acting) });
  else if (role === "play" && acting === seat) line = say(mine);
  else line = say(theirs, { seat: seatWords(acting) });
  update(turn, "textContent", capitalised(line));
  const colour = seatColour(state, acting);
  if (turn.style.getPropertyValue("--seat") !== colour) turn.style.setProperty("--seat", colour);
  if (role === "play") update(document.body.dataset, "yours", acting === seat ? "yes" : "no");
}

function showGamePanel() {
  const game = GAMES[state.game];
  if (game && game.panel) game.panel(state, $("game-panel"));
  else $("game-panel").replaceChildren();
}

function showDraw() {
  const box = $("drawn");
  const value = state.last_draw === null ? null : JSON.stringify(state.last_draw);
  update(box, "hidden", value === null);
  if (value === null) return;
  const game = GAMES[state.game];
  if (!(game && game.drawn && game.drawn(state, box))) {
    update(box, "textContent", say("drawn", { value: [].concat(state.last_draw).join(" ") }));
  }
  if (value !== lastDraw && !calm()) rollIn(box);
  lastDraw = value;
}

// A new draw rolls in, unless the page keeps still (motion.js): each thing drawn (a
// marble, a die; marked "rolls") turns in on a layer of its own, so only the
// compositor moves it and nothing around it is laid out or painted again; a draw said
// only in words rolls in as a whole.
function rollIn(box) {
  const things = box.querySelectorAll(".rolls");
  for (const thing of things.length ? things : [box]) thing.animate(ROLL, { duration: 600, easing: "ease-out" });
}

const ROLL = [
  { transform: "rotate(-25deg) scale(.4)", opacity: 0 },
  { transform: "rotate(10deg) scale(1.2)", offset: 0.6 },
  { transform: "none", opacity: 1 },
];

function showMoves() {
  // a panel table: the legal moves this page may see, one button each
  const game = GAMES[state.game];
  const moves = role === "watch" ? [] : game && game.moves ? game.moves(state) : state.moves;
  updateChildren($("moves"), moves.map((move) => {
    const button = document.createElement("button");
    button.textContent = move;
    button.dataset.move = move;
    button.onclick = () => post("/api/play", { move });
    return button;
  }));
}

// The buttons a person may press now: a phone only for its own seat's roll, draw or
// move (the table screen and the referee for anyone).
function showControls() {
  const mine = (...seats) => role !== "play" || seats.includes(seat);
  const watching = role === "watch";
  const rolling = state.chance !== null; // also the roll that ends a tentative move
  for (const [id, enabled] of [
    ["draw", !watching && rolling && mine(state.drawer)],
    ["decline", !watching && rolling && state.chance_optional && mine(state.drawer)],
    ["confirm", !watching && state.can_confirm && mine(state.to_move, state.tentative_seat)],
    ["takeback", !watching && state.can_takeback],
  ]) {
    if ($(id)) update($(id), "disabled", !enabled);
  }
  update($("decline"), "hidden", !state.chance_optional);
  // a phone shows the roll only when it is its own; confirm only where a board is read
  update($("draw"), "hidden", role === "play" && !(rolling && state.drawer === seat));
  update($("confirm"), "hidden", state.sensor === "panel");
  update($("draw"), "textContent", state.chance_optional ? say("roll_again") : say("draw", chanceWords(state)));
}

// a phone: its seat, or, without the seat's token, that it has not joined and how to
// (a game with a hidden hand shows it in its own side panel). A new game has new
// tokens, and a seat may be handed over (its socket is closed), so the token is
// checked again for each game and each time the socket opens.
let joinedGame = null;
function showSeat() {
  if (joinedGame !== state.commitment) {
    joinedGame = state.commitment;
    checkJoined().then(showSeat);
  }
  const mine = state.seats[seat];
  const joined = document.body.dataset.joined === "yes";
  update($("me"), "textContent", mine && joined ? say("you_are", { seat: seatName(seat) }) : "");
  update($("not-joined"), "hidden", document.body.dataset.joined !== "no");
  showStanding();
  showNickname();
}

function wire() {
  const on = (id, handler) => { if ($(id)) $(id).onclick = handler; };
  on("draw", () => post("/api/draw"));
  on("decline", () => post("/api/decline"));
  on("confirm", () => post("/api/confirm"));
  on("takeback", () => post("/api/takeback"));
  on("new-game-open", openNewGame);
  on("new-game-start", (e) => { e.preventDefault(); startNewGame(); });
  on("new-game-cancel", (e) => { e.preventDefault(); /** @type {HTMLDialogElement} */ ($("new-game")).close(); });
  if (role === "referee") wireReferee();
}

drawWith(renderPage);
wire();
if (role === "sim") wireSim();
if (role === "referee") refereeSession();
listen();

