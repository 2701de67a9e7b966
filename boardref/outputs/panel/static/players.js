// @ts-check
// The café's players on the panel's pages: the name each seat of the game on the
// table is played under, a phone's nickname and the kiosk's pick of a seat's player.
// The pushed state carries no names, so the names are asked for again for each game
// and after a push that says they may have changed (``names_seq``), not after every
// push: a move brings several. A phone plays anonymously unless its player gives a name; the name is then
// remembered by that phone (and only offered again, never sent by itself). It names
// seats; it never rates a game or changes anything but who plays a seat.
import { $, field, post, render, role, say, seat, seatName, state } from "./core.js";

const REMEMBERED = "boardref-nickname";

// seat (from 0) to its player's name, for the game ``namesOf``
let names = {};
let namesOf = null;
let asked = null; // the game and names push the names were last asked for
let asking = false;

// The name a seat is played under, or null (anonymous).
export const playerOf = (n) => (state && namesOf === state.commitment && names[n]) || null;

// A seat as a list names it: its player's name with the seat, else the seat alone.
export function namedSeat(player, seatText) {
  return player ? say("players.named_seat", { name: player, seat: seatText }) : seatText;
}

export const seatWithPlayer = (n, seatText = seatName(n)) => namedSeat(playerOf(n), seatText);

// Ask for the seats' names for a new game or after a push that may have changed them
// (one question at a time; such a push that arrives meanwhile is asked about once it
// is answered), and draw the page again when they changed.
const namesPush = () => `${state.run}:${state.commitment}:${state.names_seq}`;

export async function followNames() {
  const push = namesPush();
  if (asking || asked === push) return;
  asking = true;
  asked = push;
  const commitment = state.commitment;
  try {
    const answer = await (await fetch("/api/players/seated")).json();
    const changed = JSON.stringify(answer.seats) !== JSON.stringify(names) || namesOf !== commitment;
    names = answer.seats;
    namesOf = commitment;
    if (changed) render();
  } catch {
    asked = ""; // the service is away (restarting): asked again at the next push
  } finally {
    asking = false;
  }
  if (namesPush() !== push) followNames();
}

// --- a phone's nickname --------------------------------------------------------------
// The form under a joined phone's seat: the name remembered by this phone offered,
// "play anonymously" the default (nothing is sent until the player taps).
export function showNickname() {
  const box = $("nickname");
  const joined = document.body.dataset.joined === "yes" && state.seats[seat];
  box.hidden = !joined;
  if (!joined) return;
  const mine = playerOf(seat);
  const line = $("nickname-now");
  line.textContent = mine ? say("players.playing_as", { name: mine }) : say("players.playing_anonymously");
  const input = field("nickname-name");
  if (!input.value && document.activeElement !== input) input.value = localStorage.getItem(REMEMBERED) || "";
  $("nickname-anonymous").hidden = !mine;
}

async function giveName(event) {
  event.preventDefault();
  const name = field("nickname-name").value.trim();
  if (!name) return;
  if (await post("/api/players/seat", { name })) {
    localStorage.setItem(REMEMBERED, name);
    asked = null;
    followNames();
  }
}

async function playAnonymously(event) {
  event.preventDefault();
  if (await post("/api/players/seat", {})) {
    asked = null;
    followNames();
  }
}

// --- the kiosk's pick ----------------------------------------------------------------
// The café's players, fetched when the kiosk draws its seats' codes.
let known = [];

export async function loadPlayers() {
  try {
    const answer = await fetch("/api/players");
    known = answer.ok ? await answer.json() : [];
  } catch {
    known = []; // the service is away (restarting): the seats are picked from none
  }
}

/** Whether the café has players to pick from. */
export const hasPlayers = () => known.length > 0;

// A seat's choice of the café's players on the kiosk ("anonymous" first).
export function playerPicker(n) {
  const picker = document.createElement("select");
  picker.className = "seat-player";
  picker.dataset.seat = String(n);
  picker.setAttribute("aria-label", say("players.pick", { seat: seatName(n) }));
  const anonymous = new Option(say("players.anonymous"), "");
  picker.append(anonymous, ...known.map((player) => new Option(player.name, String(player.id))));
  const current = known.find((player) => player.name === playerOf(n));
  picker.value = current ? String(current.id) : "";
  picker.onchange = async () => {
    const body = picker.value ? { seat: n, player: Number(picker.value) } : { seat: n };
    await post("/api/players/seat", body);
    asked = null;
    followNames();
  };
  return picker;
}

// what the kiosk's codes show of the names, for redrawing them when it changes
export const namesShown = () => JSON.stringify([namesOf, names, known.length]);

if (role === "play") {
  $("nickname-form").addEventListener("submit", giveName);
  $("nickname-anonymous").addEventListener("click", playAnonymously);
}
