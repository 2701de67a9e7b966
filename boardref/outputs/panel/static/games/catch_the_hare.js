// @ts-check
// Catch the Hare's moves in the words of the players' pages: the hare or a hunter one
// step, the hare jumping over so many hunters, the board lighting the path; the
// computer's move in a whole sentence. The referee page keeps the notation; no page
// here decides anything.
import { registerGame } from "../board.js";
import { say } from "../core.js";
import { moverOf, stepsOf } from "./steps.js";

(() => {
  // the word key of ``text`` under ``prefix`` ("cth." or "cth.computer_"), and how many
  // hunters the hare jumps; null for what is no step or jump
  function said(text, state, prefix) {
    const move = stepsOf(text);
    if (!move) return null;
    if (move.jumps) return say(`${prefix}hare_jumps`, { count: move.jumps });
    return say(`${prefix}${moverOf(move.cells, state) === "hare" ? "hare" : "hunter"}_step`);
  }

  registerGame("catch_the_hare", {
    moveWords: (text, state) => said(text, state, "cth.") || text,
    computerWords: (text, state) => said(text, state, "cth.computer_"),
  });
})();
