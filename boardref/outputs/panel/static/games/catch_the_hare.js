// @ts-check
// Catch the Hare's moves in the words of the players' pages: the hare or a hunter one
// step, the hare jumping over so many hunters, the board lighting the path (the
// computer's move comes worded from the service). The referee page keeps the notation;
// no page here decides anything.
import { registerGame } from "../board.js";
import { say } from "../core.js";
import { moverOf, stepsOf } from "./steps.js";

(() => {
  // who moves and how many hunters the hare jumps; null for what is no step or jump
  function said(text, state) {
    const move = stepsOf(text);
    if (!move) return null;
    if (move.jumps) return say("cth.hare_jumps", { count: move.jumps });
    return say(moverOf(move.cells, state) === "hare" ? "cth.hare_step" : "cth.hunter_step");
  }

  registerGame("catch_the_hare", {
    moveWords: (text, state) => said(text, state) || text,
  });
})();
