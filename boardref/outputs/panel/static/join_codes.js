// @ts-check
// The join codes on the kiosk, and what a phone is told about its seat. A seat's code
// is shown until a phone joins the seat; then the kiosk marks it joined and offers to
// hand it over (a new code appears, and the phone that had joined is told). The codes
// follow the state the service pushes: a seat joining, a handover or a new game shows
// the new codes without a reload.
import { seatColour } from "./board.js";
import { $, post, role, say, seat, seatName, seatWords, state, token } from "./core.js";
import { capitalised } from "./header.js";
import { rejoin } from "./outcome.js";
import { hasPlayers, loadPlayers, namesShown, playerPicker } from "./players.js";

// what the codes were last drawn for (drawn again only when it changes), and the
// drawing of them, which whoever asks again meanwhile waits for too
let drawnFor = null;
let drawing = Promise.resolve();

// The kiosk shows the codes; the referee's page too, once logged in (the codes and the
// handover are the table's and the referee's alone).
const showsCodes = () => role === "table" || document.body.dataset.referee !== "no";

/** @returns {Promise<void>} */
export function showJoinCodes() {
  const box = $("join-codes");
  const shown = JSON.stringify([
    state.commitment, state.players, state.computer, state.joined, state.handovers,
    document.documentElement.lang, showsCodes(), namesShown(),
  ]);
  if (!box || shown === drawnFor) return drawing;
  drawnFor = shown;
  drawing = drawCodes(box);
  return drawing;
}

async function drawCodes(box) {
  if (!showsCodes()) {
    box.replaceChildren();
    return;
  }
  let join;
  try {
    [join] = await Promise.all([(await fetch("/api/join")).json(), loadPlayers()]);
  } catch {
    drawnFor = null; // the service is away (restarting): drawn again at the next push
    return;
  }
  const warning = $("join-warning");
  warning.textContent = join.loopback ? say("join_loopback", { url: join.url }) : "";
  warning.hidden = !join.loopback;
  const seats = [...Array(state.players).keys()].filter((n) => !state.computer.includes(n));
  box.replaceChildren(...seats.map(codeOf));
}

// A seat's figure: its code, or, once a phone joined it, the mark and the handover.
function codeOf(n) {
  const figure = document.createElement("figure");
  figure.dataset.seat = n;
  if (state.joined.includes(n)) {
    figure.dataset.joined = "yes";
    const mark = document.createElement("p");
    mark.className = "joined-mark";
    mark.textContent = say("seat_joined");
    const handOver = document.createElement("button");
    handOver.className = "hand-over";
    handOver.textContent = say("hand_over");
    handOver.title = say("hand_over_seat", { seat: seatWords(n) });
    handOver.onclick = () => post("/api/hand-over", { seat: n });
    figure.append(mark, handOver);
  } else {
    const image = document.createElement("img");
    // the round in the address: a handed-over seat's new code is fetched, not the cached one
    image.src = `/api/qr/${n}?game=${encodeURIComponent(state.commitment)}&round=${state.handovers}`;
    image.alt = say("join_code", { seat: seatWords(n) });
    figure.append(image);
  }
  const caption = document.createElement("figcaption");
  caption.textContent = capitalised(seatName(n)); // a name under its code stands alone
  caption.style.setProperty("--seat", seatColour(state, n));
  figure.append(caption);
  if (hasPlayers()) figure.append(playerPicker(n)); // no pick while the café has no players
  return figure;
}

// A phone: whether it holds its seat (the first phone to show the seat's token claims
// it), and if not, why, in words: another phone holds it, or it was handed over.
const STANDING_WORDS = { elsewhere: "server.seat_elsewhere", handed_over: "server.seat_handed_over" };

export async function checkJoined() {
  const answer = await (await fetch(`/api/join/${seat}?token=${encodeURIComponent(token || "")}`)).json();
  if (!answer.ok && await rejoin()) return;
  document.body.dataset.joined = answer.ok ? "yes" : "no";
  document.body.dataset.standing = answer.detail;
}

export function showStanding() {
  const box = $("seat-standing");
  const key = STANDING_WORDS[document.body.dataset.standing];
  box.textContent = key ? say(key) : "";
  box.hidden = !key;
}

// the referee's page draws the codes as the referee logs in or out
if (role === "referee") {
  new MutationObserver(() => { if (state) showJoinCodes(); })
    .observe(document.body, { attributes: true, attributeFilter: ["data-referee"] });
}
