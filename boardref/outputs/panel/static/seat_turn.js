// @ts-check
// How far a player's phone turns the board: the seat's own side at the bottom, as the
// player sees the board from their chair (Sternhalma's home point, the hats' home, the
// hunters' rows, the hares' start, Hägar's table side, the card game's own stacks).
// The board's drawing says where each seat sits; this only picks the turn, a whole
// step of the board's symmetry.

// a table side as a direction on the drawing (x right, y down)
const SIDES = { south: [0, 1], north: [0, -1], west: [-1, 0], east: [1, 0] };

// the middle of some cells of the drawing, in drawing coordinates (y down)
function middle(board, ids) {
  const cells = board.cells.filter((cell) => ids.includes(cell.id));
  if (!cells.length) return null;
  return [cells.reduce((sum, c) => sum + c.x, 0) / cells.length, -cells.reduce((sum, c) => sum + c.y, 0) / cells.length];
}

const zone = (board, name) => board.cells.filter((cell) => cell.zone === name).map((cell) => cell.id);

// per game: where seat ``n`` sits, as a point or a direction from the board's middle,
// the step the board may turn by, and where the seat's side should come to lie (degrees
// clockwise from the right: 90 is straight down; a square board's home corner lies
// down on the left)
const SEATED = {
  sternhalma: { step: 60, at: (board, state, n) => middle(board, zone(board, board.game.seats[state.players][n])) },
  // the square board's home corner lies down on the left; the six-sided one's home side down
  fang_den_hut: { aim: 135, at: (board, state, n) => middle(board, zone(board, board.game.seats[state.players][n])),
                  shape: (board) => (board.game.seats["6"] ? { step: 60, aim: 90 } : {}) },
  // the hare sits across from the hunters
  catch_the_hare: { at: (board, state, n) => {
    const [x, y] = middle(board, board.game.hunters);
    const [cx, cy] = centre(board);
    return n === 0 ? [x, y] : [2 * cx - x, 2 * cy - y];
  } },
  hakenschlagen: { at: (board) => middle(board, board.game.hare_starts) },
  // the card game: each seat's stacks are one of five arms around the deck (a table of
  // fewer seats draws fewer arms, so the drawing's middle is not the deck's)
  fang_den_hut_cards: { step: 72, direction: (board, state, n) => {
    const [[x, y], [dx, dy]] = [middle(board, zone(board, `player_${n + 1}`)), middle(board, ["deck"])];
    return [x - dx, y - dy];
  } },
  haegar: { direction: (board, state, n) => {
    const chosen = state.options.seats ? state.options.seats.split(",").map((side) => side.trim()) : null;
    return SIDES[(chosen || board.game.sides[String(state.players)] || [])[n]] || null;
  } },
};

function centre(board) {
  const xs = board.cells.map((c) => c.x), ys = board.cells.map((c) => -c.y);
  return [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
}

// The turn of the board, in degrees clockwise, for the phone of ``seat`` (0: as drawn).
export function seatTurn(board, state, seat) {
  const seated = SEATED[state.game];
  if (!seated || seat === null || !state.seats[seat]) return 0;
  let direction;
  if (seated.direction) direction = seated.direction(board, state, seat);
  else {
    const at = seated.at(board, state, seat);
    const [cx, cy] = centre(board);
    direction = at && [at[0] - cx, at[1] - cy];
  }
  if (!direction || Math.hypot(...direction) < 1e-6) return 0;
  const { step = 90, aim = 90 } = { ...seated, ...(seated.shape ? seated.shape(board) : {}) };
  const turn = aim - (Math.atan2(direction[1], direction[0]) * 180) / Math.PI;
  return (((Math.round(turn / step) * step) % 360) + 360) % 360;
}
