// @ts-check
// What every page's scripts share: who this page is (its role, a phone's seat and
// token), the words of its language, the table as the service last pushed it, the
// board drawing, and talking to the service. panel.js fills these in; the other
// modules read them (an import of a `let` follows its changes).
import { GAMES } from "./board.js";
import { formatMessage } from "./message.js";

export const role = document.body.dataset.role;
const params = new URLSearchParams(location.search);
export const seat = role === "play" ? Number(location.pathname.split("/").pop()) : null;
export const token = params.get("token");
export let words = {};
export let state = null;
export let board = null;
export let view = null;

/** @type {(id: string) => HTMLElement} */
export const $ = (id) => document.getElementById(id);
// the form control ``id`` (an input or a select), for its value
export const field = (id) => /** @type {HTMLInputElement | HTMLSelectElement} */ ($(id));
// the button ``id``, to be enabled or not
export const button = (id) => /** @type {HTMLButtonElement} */ ($(id));
// whether the section (a <details>) or dialog ``id`` is open
export const isOpen = (id) => /** @type {HTMLDetailsElement | HTMLDialogElement} */ ($(id)).open;

export function setWords(table) { words = table; }
export function setState(next) { state = next; }
export function setBoard(next, nextView) { board = next; view = nextView; }

// --- the build -----------------------------------------------------------------------
// The build this page was served with; the service names its own in what it pushes.
// A page of another build (the service was upgraded and restarted: the socket
// reconnected to the new one) reloads itself, so a kiosk never runs old scripts
// against a new API. It reloads once from one build to another: should the reload
// bring the old page back (a cache in between), it stays rather than reloading again.
const build = document.documentElement.dataset.build;
const RELOADED = "boardref-reloaded";

// True when the page reloads itself for the service's ``served`` build.
function reloadFor(served) {
  const change = `${build}>${served}`;
  if (!served || served === build || sessionStorage.getItem(RELOADED) === change) return false;
  sessionStorage.setItem(RELOADED, change);
  location.reload();
  return true;
}

// --- the page's language -------------------------------------------------------------
// The language a page opens in: the one chosen last, else the browser's.
export function chosenLanguage() {
  const saved = localStorage.getItem("boardref-lang");
  if (saved) return saved;
  return (navigator.language || "en").toLowerCase().startsWith("de") ? "de" : "en";
}

// Fetch the words of ``lang`` and say the page's fixed text in them (the elements
// marked data-say and data-say-placeholder, and the language choice); the page then
// redraws what it wrote itself.
export async function loadLanguage(lang) {
  setWords(await (await fetch(`/i18n/${lang}.json`)).json());
  document.documentElement.lang = lang;
  localStorage.setItem("boardref-lang", lang);
  for (const node of document.querySelectorAll("[data-say]")) {
    node.textContent = say(/** @type {HTMLElement} */ (node).dataset.say);
  }
  for (const node of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll("[data-say-placeholder]"))) {
    node.placeholder = say(node.dataset.sayPlaceholder);
  }
  const choice = /** @type {HTMLSelectElement} */ ($("language"));
  if (choice) choice.value = lang;
}

// Draw the page again: panel.js names the function that does.
let renderer = () => {};
export function render() { renderer(); }
export function drawWith(draw) { renderer = draw; }

// A key of the word table with its values filled in (message.js reads its plurals,
// places and cases). A value may itself be words ({key, params}: a seat's name, a
// reason) or a list of values; both are said too.
export function say(key, values = {}) {
  return sayIn(key, values, true);
}

// ``how``: {marked}: the values are the table's words of the moment (the referee's
// notice), whose cells the drawing highlights as it says them; {describing}: said
// about a player, not to them (every key in its "<key>.watching" form where it has one)
function sayIn(key, values, top, how = {}) {
  // a name the table has no words for (a coaster's id) is shown as it is
  const text = words[key] || key.split(".").pop();
  const valueWords = (value, name, grammaticalCase) => sayValue(value, name, grammaticalCase, how);
  return formatMessage(text, values, document.documentElement.lang || "en", valueWords, top);
}

// Moves and cells are said the game's way (a hat's home, a card, a marble); a value
// named "move", "replaced", "chosen" (the moves of a correction), "cell", "cells" or
// "origin" is one.
const SAID_AS = { move: (v) => sayMove(v), cell: (v) => sayCell(v), cells: (v) => sayCell(v), origin: (v) => sayCell(v) };
SAID_AS.replaced = SAID_AS.chosen = SAID_AS.move;
// the names the service gives cells by in what it says
const CELL_NAMES = ["cell", "cells", "allowed", "origin", "over", "at", "land", "dest", "to", "first_free"];

// Cells the service names: their coordinates only on the referee page (and in
// records); every other page says the board's own name for a cell where the game has
// one, else the highlight the drawing shows it with: "the marked place(s)", and
// where a piece may go ("allowed"), "one of the glowing places". A list the board
// names only in part (a gate and two ring fields) is said by its highlight as a whole:
// a name beside a coordinate would read as both.
function sayPlace(ids, name) {
  const named = ids.map(sayCell);
  if (role === "referee" || named.every((said, i) => said !== ids[i])) return named.join(", ");
  if (name === "allowed") return say("cell.glowing");
  return say(ids.length > 1 ? "cell.marked_many" : "cell.marked");
}

// One value in a sentence; words asked for in a grammatical case get it as "case".
/**
 * @param {any} value
 * @param {string | null} [name]
 * @param {string | null} [grammaticalCase]
 * @param {{marked?: boolean, describing?: boolean}} [how]
 * @returns {string}
 */
export function sayValue(value, name = null, grammaticalCase = null, how = {}) {
  const ids = [value].flat();
  if (how.marked && CELL_NAMES.includes(name) && ids.length && ids.every((id) => typeof id === "string")) {
    return sayPlace(ids, name);
  }
  if (Array.isArray(value)) return value.map((v) => sayValue(v, name, grammaticalCase, how)).join(", ");
  if (typeof value === "string" && SAID_AS[name]) return SAID_AS[name](value);
  if (typeof value === "string") return sayName(value);
  if (value && typeof value === "object" && "key" in value) {
    const params = grammaticalCase ? { ...value.params, case: grammaticalCase } : value.params;
    return sayIn(watched(value.key, how), params || {}, false, how);
  }
  return String(value);
}

// Whether the computer is thinking for the seat to act (``table``: a state): its seat
// is to move and it has announced no move yet. How long it thought comes with the move.
export function computerThinking(table) {
  return table.phase === "move" && table.computer.includes(table.acting) && !table.expected;
}

// The chance at hand as the draw button names it: {chance: "die" | "bag" | "tile" |
// "deal" | "disks", count}, from the service's "roll a d6", "draw 2 from the bag",
// "draw a tile", "shuffle 32 cards" (a shuffle deals the card game's deck, and lays
// out Hakenschlagen's disks).
export function chanceWords(table) {
  const [verb, count] = (table.chance || "").split(" ");
  if (verb === "roll") return { chance: "die" };
  if (verb === "shuffle") return { chance: table.game === "hakenschlagen" ? "disks" : "deal" };
  if (verb === "draw" && count === "a") return { chance: "tile" };
  if (verb === "draw") return { chance: "bag", count: Number(count) };
  return { chance: "" };
}

// What the service said ({key, params}), in the page's language. A spectator is told
// what happens, not what to do: where the table has the sentence's "<key>.watching",
// the watching page says that. ``marked`` where the drawing highlights the cells it
// names (the referee's notice).
/**
 * @param {{key: string, params?: object}} spoken
 * @param {boolean} [marked]
 * @returns {string}
 */
export function said(spoken, marked = false) {
  return tell(spoken, { marked });
}

// A sentence told about a player, not to them (the kiosk and the other phones about
// a turn held open): every key in it said in its "<key>.watching" form where it has one.
export function described(spoken) {
  return tell(spoken, { describing: true });
}

function tell(spoken, how) {
  const computer = COMPUTER_SAYS[spoken.key];
  const sentence = computer !== undefined && sayComputerMove();
  const told = !sentence ? sayIn(watched(spoken.key, how), spoken.params || {}, true, how)
    : computer ? say(watched(computer, how), { sentence }) : sentence;
  // how long the computer thought for the move it announces
  const thought = computer !== undefined && spoken.params.seconds;
  if (!thought) return told;
  const seconds = Number(thought).toLocaleString(document.documentElement.lang || "en", { maximumFractionDigits: 1 });
  return say("computer_thought", { sentence: told, seconds });
}

const watched = (key, how) =>
  ((role === "watch" || how.describing) && `${key}.watching` in words ? `${key}.watching` : key);

// The computer's move announced in a sentence of its game's own ("The computer lays
// its coaster ..."), as the service words it for the table to hear (the state's
// computer_move), where the game has one; at a board the players are asked to carry it
// out. The referee's page keeps the notation.
const COMPUTER_SAYS = { "referee.computer_plays": null, "referee.computer_moves": "computer_carry_out" };

function sayComputerMove() {
  if (role === "referee" || !state || !state.computer_move) return null;
  return sayValue(state.computer_move);
}

// A name in a sentence (a card, a piece, a marble), said the game's way where it has
// one, else as the word table names that piece or marble, else as it is.
export function sayName(value) {
  const game = state && GAMES[state.game];
  const named = game && game.valueWords ? game.valueWords(value, state) : null;
  if (named) return named;
  if (words[`token.${value}`]) return say(`token.${value}`);
  if (words[`marble_${value}`]) return say(`marble_${value}`);
  return value;
}

// A move in the game's notation as a person says it (the game's moveWords hook).
export function sayMove(text) {
  const game = state && GAMES[state.game];
  return game && game.moveWords ? game.moveWords(text, state) : text;
}

// A cell as a person calls it (the game's cellWords hook; else its printed label).
export function sayCell(id) {
  const game = state && GAMES[state.game];
  return game && game.cellWords ? game.cellWords(id, state) : id;
}

// A seat's name in the page's language.
export function seatName(n) {
  return said(seatWords(n));
}

// A seat's name as words ({key, params}), for a sentence that says it in its case.
export function seatWords(n) {
  const seat = state && state.seats[n];
  return seat ? seat.words : { key: "seat", params: { n: n + 1 } };
}

// A moment (a Date, or seconds since 1970) in the page's language, as Intl writes it
// there (a German page a 24-hour clock); ``options`` are Intl.DateTimeFormat's.
export function sayTime(moment, options) {
  const date = moment instanceof Date ? moment : new Date(moment * 1000);
  return new Intl.DateTimeFormat(document.documentElement.lang || "en", options).format(date);
}

// --- the connection ------------------------------------------------------------------
// The page's socket to the service at ``path`` (the panel's and the café dashboard's
// alike), opened once the page speaks its language, and coming back by itself when it
// drops: tried again 1 s after the loss, then after twice as long each time up to
// 10 s, and after 1 s again once it has opened. A message that names another build
// reloads the page (reloadFor); ``heard`` gets every other message's JSON, ``opened``
// whether the socket is open now. ``sayPageIn`` says the page in a language: first the
// one chosen last, then whichever the page's language choice is given; the socket
// opens even when the words could not be fetched.
const RETRY_FIRST_MS = 1000;
const RETRY_LAST_MS = 10000;

/**
 * @param {string} path
 * @param {(pushed: any) => void} heard
 * @param {(open: boolean) => void} opened
 * @param {(lang: string) => Promise<void>} sayPageIn
 */
export function connect(path, heard, opened, sayPageIn) {
  let retryMs = RETRY_FIRST_MS;
  const open = () => {
    const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`);
    socket.onopen = () => {
      retryMs = RETRY_FIRST_MS;
      opened(true);
    };
    socket.onmessage = (message) => {
      const pushed = JSON.parse(message.data);
      if (!reloadFor(pushed.build)) heard(pushed);
    };
    socket.onclose = () => {
      opened(false);
      setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_LAST_MS);
    };
  };
  const choice = /** @type {HTMLSelectElement} */ ($("language"));
  choice.addEventListener("change", () => sayPageIn(choice.value));
  sayPageIn(chosenLanguage()).finally(open);
}

// Whether the socket to the service is open (null until it first opens or fails).
// While it is not, the page says so and refuses every change: a click must never seem
// to be taken by a service that cannot hear it.
export let connected = null;

export function setConnected(open) {
  connected = open;
  document.body.dataset.connected = open ? "yes" : "no";
  const banner = $("connection");
  if (banner) banner.hidden = open;
}

// ``fetch(path)`` on a page without a socket (the played games): a request that
// reaches no service shows the page's lost-connection line (and throws, as fetch
// does), an answered one clears it.
export async function ask(path) {
  try {
    const response = await fetch(path);
    setConnected(true);
    return response;
  } catch (error) {
    setConnected(false);
    throw error;
  }
}

// Whether ``next`` may replace the state shown: any state of another service run (it
// restarted), else one no older than the shown one. A state that arrives late must
// never bring back a table that has moved on.
export function isCurrent(next) {
  return !state || next.run !== state.run || next.seq >= state.seq;
}

// The board link as words ("" while it is up, or where there is no board).
export function linkWords(link) {
  return link === "up" || link === "none" ? "" : say(link === "connecting" ? "link_connecting" : "link_down");
}

// --- talking to the service ----------------------------------------------------------
// A change sent to the service: its answer, or null when refused, the refusal said in
// ``refusedIn`` (a section's own note, beside what was pressed), else at the page's top.
/** @param {string} path @param {object} [body] @param {HTMLElement | null} [refusedIn] */
export async function post(path, body = {}, refusedIn = null) {
  const refuse = (detail) => (refusedIn ? (refusedIn.textContent = detail) : showRefusal(detail));
  if (connected === false) {
    refuse(say("connection_lost"));
    return null;
  }
  if (role === "play") Object.assign(body, { seat, token });
  const response = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (!response.ok) {
    let answer = {};
    try { answer = await response.json(); } catch (_) { /* not JSON: a proxy's page */ }
    refuse(answer.said ? said(answer.said) : say("server.failed", { status: response.status }));
    return null;
  }
  return response.json();
}

let refusalShown = 0; // the timer that hides the refusal shown

export function showRefusal(detail) {
  const box = $("refusal");
  if (!box) return;
  box.textContent = say("refused", { detail });
  box.hidden = false;
  clearTimeout(refusalShown);
  refusalShown = setTimeout(() => { box.hidden = true; }, 6000);
}
