// @ts-check
// Sternhalma's moves in the words of the players' pages: whose piece went one step or
// jumped how many times, the board lighting the path (the computer's move comes
// worded from the service). The referee page keeps the notation; no page here decides
// anything.
import { registerGame } from "../board.js";
import { say, seatName } from "../core.js";
import { moverOf, stepsOf } from "./steps.js";

(() => {
  function mover(cells, state) {
    const token = moverOf(cells, state);
    const seat = state.seats.findIndex((s) => s.colour === token || s.name === token);
    return seat >= 0 ? seatName(seat) : say("stern.someone");
  }

  registerGame("sternhalma", {
    moveWords(text, state) {
      const move = stepsOf(text);
      if (!move) return text;
      return say(move.jumps ? "stern.jumps" : "stern.step", { seat: mover(move.cells, state), count: move.jumps });
    },
  });
})();
