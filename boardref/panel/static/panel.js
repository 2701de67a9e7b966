// One script for every page; <body data-role="table|watch|referee|sim|play"> says
// which parts it shows. State arrives on the WebSocket; every change is a POST with a
// JSON body. The server decides; this page only shows and asks.
"use strict";

const role = document.body.dataset.role;
const params = new URLSearchParams(location.search);
const seat = role === "play" ? Number(location.pathname.split("/").pop()) : null;
const token = params.get("token");
let words = {};
let state = null;
let board = null;
let view = null;
let lastDraw = null;

const $ = (id) => document.getElementById(id);

// --- language ------------------------------------------------------------------------
function chosenLanguage() {
  const saved = localStorage.getItem("boardref-lang");
  if (saved) return saved;
  return (navigator.language || "en").toLowerCase().startsWith("de") ? "de" : "en";
}

async function loadLanguage(lang) {
  words = await (await fetch(`/i18n/${lang}.json`)).json();
  document.documentElement.lang = lang;
  localStorage.setItem("boardref-lang", lang);
  for (const node of document.querySelectorAll("[data-say]")) node.textContent = say(node.dataset.say);
  for (const node of document.querySelectorAll("[data-say-placeholder]")) {
    node.placeholder = say(node.dataset.sayPlaceholder);
  }
  $("language").value = lang;
  if (state) render();
}

function say(key, values = {}) {
  const text = words[key] || key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in values ? values[name] : `{${name}}`));
}

// --- talking to the service ----------------------------------------------------------
async function post(path, body = {}) {
  if (role === "play") Object.assign(body, { seat, token });
  const response = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (!response.ok) {
    let detail = response.statusText;
    try { detail = (await response.json()).detail; } catch (_) { /* not JSON */ }
    if (typeof detail !== "string") detail = JSON.stringify(detail);
    showRefusal(detail);
    return null;
  }
  return response.json();
}

function showRefusal(detail) {
  const box = $("refusal");
  if (!box) return;
  box.textContent = say("refused", { detail });
  box.hidden = false;
  clearTimeout(showRefusal.timer);
  showRefusal.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

function connect() {
  const query = role === "play" ? `?seat=${seat}&token=${encodeURIComponent(token || "")}` : "";
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws${query}`);
  socket.onmessage = async (message) => {
    const next = JSON.parse(message.data);
    const newBoard = !state || next.game !== state.game || next.players !== state.players;
    state = next;
    if (newBoard || !view) await loadBoard();
    if (role === "sim") await loadSimBoard();
    render();
  };
  socket.onclose = () => setTimeout(connect, 1000);
}

async function loadBoard() {
  board = await (await fetch("/api/board")).json();
  view = new BoardView($("board"), board, role === "sim" ? clickSimCell : null);
}

// --- drawing -------------------------------------------------------------------------
function render() {
  if (!state || !view) return;
  document.body.dataset.phase = state.phase;
  let pieces = state.position;
  if (role === "sim") {
    // the virtual board shows what really stands there, coloured where the game knows
    pieces = {};
    for (const [cell, present] of Object.entries(simPieces)) {
      if (present) pieces[cell] = state.position[cell] || placed[cell] || "piece";
    }
  }
  view.show(pieces, { ...state, selected: inHand ? inHand.cell : null });
  if (cornerClicks) promptCorner(); // the cell to click stays lit
  const turn = $("turn");
  if (state.phase === "over") turn.textContent = say("phase_over");
  else if (state.seat_name === null) turn.textContent = say(`phase_${state.phase}`);
  else if (role === "play") {
    turn.textContent = state.to_move === seat ? say("your_turn") : say("not_your_turn", { seat: state.seat_name });
  } else turn.textContent = say("to_move", { seat: state.seat_name });
  turn.style.setProperty("--seat", seatColour(state, state.to_move));
  const message = $("message");
  message.textContent = state.notice ? say(state.notice.key, state.notice.params) : "";
  message.dataset.kind = state.errors.length ? "error" : "info";
  $("tentative").textContent = state.tentative ? say("tentative", { move: state.tentative }) : "";
  $("last").textContent = state.last_move.length && !state.tentative ? say("last_move", { move: state.last_move.join(" ") }) : "";
  showOutcome();
  showGamePanel();
  showDraw();
  showCandidates();
  showMoves();
  showControls();
  if (role === "play") showSeat();
  if (role === "table") showJoinCodes();
  if (role === "sim") $("hand").textContent = inHand ? say("in_hand", { cell: inHand.cell }) : say("sim_help");
  if (role === "referee" && $("diagnostics").open) loadDiagnostics();
  if (role === "referee" && $("camera-view").open) loadCameraView();
  $("link").textContent = state.link === "up" || state.link === "none" ? "" : say("offline");
}

function showOutcome() {
  const box = $("outcome");
  if (!state.outcome) { box.hidden = true; return; }
  const names = state.outcome.winners.map((s) => state.seats[s].name);
  box.textContent = names.length ? say("winner", { names: names.join(", ") }) : say("draw_game");
  if (state.outcome.scores) {
    const scores = state.outcome.scores.map((score, s) => `${state.seats[s].name} ${score}`);
    box.textContent += ` (${scores.join(", ")})`;
  }
  box.hidden = false;
}

function showGamePanel() {
  const game = GAMES[state.game];
  if (game && game.panel) game.panel(state, $("game-panel"));
  else $("game-panel").replaceChildren();
}

function showDraw() {
  const box = $("drawn");
  const value = state.last_draw === null ? null : JSON.stringify(state.last_draw);
  if (value === null) { box.hidden = true; return; }
  box.hidden = false;
  const game = GAMES[state.game];
  if (!(game && game.drawn && game.drawn(state, box))) {
    box.textContent = say("drawn", { value: [].concat(state.last_draw).join(" ") });
  }
  if (value !== lastDraw) {
    box.classList.remove("rolling");
    void box.offsetWidth; // restart the animation
    box.classList.add("rolling");
    lastDraw = value;
  }
}

function showCandidates() {
  const box = $("candidates");
  box.replaceChildren();
  const mayChoose = role !== "watch" && (role !== "play" || state.to_move === seat);
  for (const move of state.candidates) {
    const button = document.createElement("button");
    button.textContent = move;
    button.disabled = !mayChoose;
    button.onclick = () => post("/api/choose", { move });
    box.appendChild(button);
  }
}

function showMoves() {
  // a panel table: the legal moves this page may see, one button each
  const box = $("moves");
  box.replaceChildren();
  if (role === "watch") return;
  const game = GAMES[state.game];
  for (const move of game && game.moves ? game.moves(state) : state.moves) {
    const button = document.createElement("button");
    button.textContent = move;
    button.onclick = () => post("/api/play", { move });
    box.appendChild(button);
  }
}

function showControls() {
  const myTurn = role !== "play" || state.to_move === seat;
  for (const [id, enabled] of [
    ["draw", state.phase === "chance" && myTurn],
    ["confirm", !!state.tentative && myTurn],
    ["takeback", state.phase !== "over" && state.plies > 0 || !!state.tentative],
  ]) {
    const button = $(id);
    if (button) button.disabled = !enabled;
  }
}

// a phone: its seat, or, without the seat's token, that it has not joined and how to
// (a game with a hidden hand shows it in its own side panel). A new game has new
// tokens, so the token is checked again for each game.
let joinedGame = null;
function showSeat() {
  if (joinedGame !== state.commitment) {
    joinedGame = state.commitment;
    checkJoined().then(showSeat);
  }
  const mine = state.seats[seat];
  const joined = document.body.dataset.joined === "yes";
  $("me").textContent = mine && joined ? say("you_are", { seat: mine.name }) : "";
  $("not-joined").hidden = document.body.dataset.joined !== "no";
}

async function checkJoined() {
  const answer = await (await fetch(`/api/join/${seat}?token=${encodeURIComponent(token || "")}`)).json();
  document.body.dataset.joined = answer.ok ? "yes" : "no";
}

// the kiosk: a join code for each seat a person plays, and a warning in words when
// the codes point at this machine's own address, which no phone reaches
let joinCodesShown = null;
async function showJoinCodes() {
  const box = $("join-codes");
  const shown = `${state.commitment} ${state.players} ${state.computer} ${document.documentElement.lang}`;
  if (!box || shown === joinCodesShown) return;
  joinCodesShown = shown;
  const join = await (await fetch("/api/join")).json();
  const warning = $("join-warning");
  warning.textContent = join.loopback ? say("join_loopback", { url: join.url }) : "";
  warning.hidden = !join.loopback;
  box.replaceChildren();
  for (let n = 0; n < state.players; n++) {
    if (state.computer.includes(n)) continue;
    const figure = document.createElement("figure");
    figure.dataset.seat = n;
    const image = document.createElement("img");
    image.src = `/api/qr/${n}?game=${encodeURIComponent(state.commitment)}`;
    image.alt = say("join_code", { seat: state.seats[n].name });
    const caption = document.createElement("figcaption");
    caption.textContent = state.seats[n].name;
    caption.style.setProperty("--seat", seatColour(state, n));
    figure.append(image, caption);
    box.appendChild(figure);
  }
}

function wire() {
  $("language").onchange = (e) => loadLanguage(e.target.value);
  const on = (id, handler) => { if ($(id)) $(id).onclick = handler; };
  on("draw", () => post("/api/draw"));
  on("confirm", () => post("/api/confirm"));
  on("takeback", () => post("/api/takeback"));
  on("new-game-open", openNewGame);
  on("new-game-start", (e) => { e.preventDefault(); startNewGame(); });
  on("new-game-cancel", (e) => { e.preventDefault(); $("new-game").close(); });
  if (role === "referee") wireReferee();
}

wire();
if (role === "referee") refereeSession();
loadLanguage(chosenLanguage()).then(connect);

