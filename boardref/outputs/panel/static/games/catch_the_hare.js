// @ts-check
// Catch the Hare's moves in the words of the players' pages: the hare or a hunter one
// step, the hare jumping over so many hunters, the board lighting the path (the
// computer's move comes worded from the service); its points by the names the board
// file gives them. The referee page keeps the notation; no page here decides anything.
import { registerGame } from "../board.js";
import { board, role, say } from "../core.js";
import { moverOf, stepsOf } from "./steps.js";

(() => {
  // who moves and how many hunters the hare jumps; null for what is no step or jump
  function said(text, state) {
    const move = stepsOf(text);
    if (!move) return null;
    if (move.jumps) return say("cth.hare_jumps", { count: move.jumps });
    return say(moverOf(move.cells, state) === "hare" ? "cth.hare_step" : "cth.hunter_step");
  }

  // a point by the name its board file gives it ("the top left corner"), on the
  // players' pages; the referee's page keeps the label
  function cellWords(id, state, grammaticalCase = null) {
    const places = (board && board.game && board.game.places) || {};
    return role !== "referee" && places[id] ? say(places[id], { case: grammaticalCase }) : id;
  }

  registerGame("catch_the_hare", {
    cellWords,
    moveWords: (text, state) => said(text, state) || text,
  });
})();
