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
    render();
  };
  socket.onclose = () => setTimeout(connect, 1000);
}

async function loadBoard() {
  board = await (await fetch("/api/board")).json();
  view = new BoardView($("board"), board, role === "sim" ? clickSimCell : null);
  if (role === "table") showJoinCodes();
}

// --- drawing -------------------------------------------------------------------------
function render() {
  if (!state || !view) return;
  document.body.dataset.phase = state.phase;
  // the virtual board shows what really stands there (sim.js)
  const onBoard = role === "sim" && state.virtual;
  view.show(onBoard ? simPieces() : state.position, onBoard ? simMarks() : state);
  if (cornerClicks) promptCorner(); // the cell to click stays lit
  const turn = $("turn");
  if (state.phase === "over") turn.textContent = say("phase_over");
  else if (state.seat_name === null) turn.textContent = say(`phase_${state.phase}`);
  else if (role === "play") {
    turn.textContent = state.to_move === seat ? say("your_turn") : say("not_your_turn", { seat: state.seat_name });
  } else turn.textContent = say("to_move", { seat: state.seat_name });
  turn.style.setProperty("--seat", state.seat_colour ? tokenColour(state.seat_colour) : "transparent");
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
  if (role === "sim") showSimSide();
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

function showSeat() {
  const mine = state.seats[seat];
  $("me").textContent = mine ? say("you_are", { seat: mine.name }) : "";
  // a game with its own side panel shows the private view its way
  const shown = state.view && !(GAMES[state.game] && GAMES[state.game].panel);
  $("private").textContent = shown ? JSON.stringify(state.view.state || state.view, null, 1) : "";
}

function showJoinCodes() {
  const box = $("join-codes");
  if (!box) return;
  box.replaceChildren();
  for (let n = 0; n < state.players; n++) {
    const figure = document.createElement("figure");
    const image = document.createElement("img");
    image.src = `/api/qr/${n}?game=${encodeURIComponent(state.commitment)}`;
    image.alt = say("seat", { n });
    const caption = document.createElement("figcaption");
    caption.textContent = state.seats[n].name;
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
  on("login", async (e) => {
    e.preventDefault();
    if (await post("/api/referee/login", { pin: $("pin").value })) await refereeSession();
    $("pin").value = "";
  });
  on("logout", async () => { await post("/api/referee/logout"); await refereeSession(); });
  on("correct-apply", () => post("/api/correct", { move: $("correct-move").value }));
  on("settle-apply", () => post("/api/settings", { settle_ms: Number($("settle-ms").value) }));
  on("position-apply", () => {
    try { post("/api/position", { record: JSON.parse($("position-record").value) }); }
    catch (error) { showRefusal(String(error)); }
  });
  on("camera-corners", startCorners);
  on("camera-learn", learnBoard);
  if ($("camera-picture")) $("camera-picture").onclick = clickCorner;
  if ($("camera-view")) $("camera-view").ontoggle = () => { if ($("camera-view").open) loadCameraView(true); };
  if ($("diagnostics")) $("diagnostics").ontoggle = () => { if ($("diagnostics").open) loadDiagnostics(); };
}

wire();
if (role === "sim") wireSim();
if (role === "referee") refereeSession();
loadLanguage(chosenLanguage()).then(connect);

