// @ts-check
// Moves of pieces from hole to hole as the notation writes them ("l4-k5" one step,
// "p4:l4:n6" a chain of jumps), read for the words of the players' pages. It reads;
// it never checks a move (the referee did).
import { role } from "../core.js";

// The cells of a step or a chain of jumps, and how many jumps it makes, as a player's
// page says it; null on the referee's page (it keeps the notation) and for anything
// else.
export function stepsOf(text) {
  if (role === "referee") return null;
  const jumping = text.includes(":");
  const cells = text.split(jumping ? ":" : "-");
  if (cells.length < 2 || !cells.every(Boolean)) return null;
  return { cells, jumps: jumping ? cells.length - 1 : 0 };
}

// The piece that makes the move: at its origin while the move is still to be carried
// out (the computer's), at its end once played.
export function moverOf(cells, state) {
  const at = state.position || {};
  return at[cells[0]] || at[cells[cells.length - 1]] || null;
}
