"""Sternhalma (Chinese checkers) on the 121-hole star.

Each player brings ten pieces from their point of the star into the opposite point.
A move is one step to an adjacent hole, or a chain of jumps over single pieces onto
the free hole behind, each piece jumped at most once per move; steps and jumps never
mix, and a move never ends where it started. A player with no move passes.

Seats sit on the points listed in the board file (2: opposite points; 3: every other
point; 4 and 6 as an extension). Options:

- ``no_leaving_goal`` (False): a piece standing in its target point must end its
  move inside that point.
- ``blocked_goal`` (False): a player also wins when every hole of their target point
  is occupied and at least one of them by an own piece.
- ``first_seat`` (0): the seat that moves first (the book leaves it to the table).
- ``max_plies`` (None): the game is drawn after this many moves (kiosks, simulations).

Readings of the book this engine follows (it has no draw; a kiosk game must end):

- A game in which every player passes in turn is drawn: nobody can move any more.
- The same position with the same seat to move coming up a third time draws the
  game, in every variant. Without it ``no_leaving_goal`` could lock a game for ever:
  an opponent's piece trapped in a full target point never moves, the owner's pieces
  may not leave, nobody can win and nobody has to pass. The state carries the
  positions seen so far (``seen``, digests that its record keeps too) and how often
  the current one has come up (``repeats``).
- Who starts is decided at the table; ``first_seat`` names that seat.

>>> from engines import load_game
>>> game = load_game("sternhalma", players=2)
>>> state = game.initial_state()
>>> len(game.legal_moves(state))
14
>>> move = game.parse_move(state, "l4-k5")
>>> game.observe(game.apply(state, move))["k5"]
'red'
"""

from __future__ import annotations

import hashlib
import random
import re
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import compress, count
from operator import itemgetter, ne
from typing import Any

from engines.core import FIRST_SEAT, PASS, Game, Move, Option, Outcome, colour_words
from engines.errors import IllegalMove, RecordError
from engines.observation import PIECE
from engines.words import Words, words

EMPTY = -1
PIECES_PER_PLAYER = 10
#: the position that comes up this often with the same seat to move draws the game
REPEATS_DRAW = 3
#: how many written-out moves are kept for reuse before the store starts over
MOVES_KEPT = 50_000


#: bits of a digest per level of ``Seen``'s tree, and so its nodes' width
_LEVEL_BITS = 4
_WIDTH = 1 << _LEVEL_BITS
_NO_NODE = (None,) * _WIDTH


class Seen:
    """The positions a game has seen with the seat to move, each as its digest with how
    often it occurred: a persistent map. Every state of a long game holds the whole
    history, so a state after a move shares all of the one before but the few nodes
    on its new position's path (a trie on the digest's bits, 16 ways a level): memory
    and time per move stay flat in the length of the game.

    A node is a tuple of ``_WIDTH`` slots: None, a leaf ``(digest, count)`` or a node.
    A leaf sits as high as the digests beside it allow, so equal histories are equal
    tuples however they were built, and compare without walking what they share.
    """

    __slots__ = ("root", "size", "_hash")

    def __init__(self, root: tuple = _NO_NODE, size: int = 0, hashed: int = 0) -> None:
        self.root, self.size = root, size
        #: the XOR of every record's hash, kept up to date by ``counted``: hashing the
        #: tree would walk the whole history (states are dictionary keys)
        self._hash = hashed

    def count(self, digest: int) -> int:
        """How often the position with ``digest`` occurred (0: never)."""
        node, shift = self.root, 0
        while True:
            slot = node[(digest >> shift) % _WIDTH]
            if slot is None:
                return 0
            if len(slot) == 2:
                return slot[1] if slot[0] == digest else 0
            node, shift = slot, shift + _LEVEL_BITS

    def counted(self, digest: int, count: int, before: int | None = None) -> Seen:
        """This history with ``digest``'s position having occurred ``count`` times
        instead of ``before`` times (looked up when not given: every move knows it)."""
        if before is None:
            before = self.count(digest)
        hashed = self._hash ^ hash((digest, count))
        if before:
            hashed ^= hash((digest, before))
        return Seen(_put(self.root, digest, count, 0), self.size + (not before), hashed)

    def items(self) -> list[tuple[int, int]]:
        """Every ``(digest, count)``, sorted by digest."""
        found: list[tuple[int, int]] = []
        nodes = [self.root]
        for node in nodes:  # grows while iterated
            for slot in node:
                if slot is not None:
                    (found if len(slot) == 2 else nodes).append(slot)
        return sorted(found)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Seen) and self.size == other.size and self.root == other.root

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Seen({self.size} positions)"


def _put(node: tuple, digest: int, count: int, shift: int) -> tuple:
    """``node`` with ``digest``'s leaf set to ``count``: the nodes on its path copied,
    a leaf already in its slot moved down until the two digests part."""
    at = (digest >> shift) % _WIDTH
    slot = node[at]
    if slot is None or (len(slot) == 2 and slot[0] == digest):
        placed: tuple = (digest, count)
    elif len(slot) == 2:
        deeper = shift + _LEVEL_BITS
        moved_down = _put(_NO_NODE, slot[0], slot[1], deeper)
        placed = _put(moved_down, digest, count, deeper)
    else:
        placed = _put(slot, digest, count, shift + _LEVEL_BITS)
    copied = list(node)  # faster than joining slices: every move puts a position
    copied[at] = placed
    return tuple(copied)


_NOTHING_SEEN = Seen()


@dataclass(frozen=True)
class SternhalmaState:
    """``holes[i]`` is the seat whose piece stands on cell ``i``, or -1 (empty)."""

    holes: tuple[int, ...]
    turn: int = 0
    ply: int = 0
    passes: int = 0
    #: every position so far with the seat to move and how often it occurred
    seen: Seen = _NOTHING_SEEN
    #: how often the current position has occurred with this seat to move
    repeats: int = 1


#: a hole's owner as a signed byte (-1 for empty) to the byte digested: the owner + 1
_PLUS_ONE = bytes((b + 1) % 256 for b in range(256))


@cache
def _packer(size: int) -> Callable[..., bytes]:
    """Packs ``size`` owners as signed bytes: compiled once (every move digests)."""
    return struct.Struct(f"{size}b").pack


def _digest(holes: tuple[int, ...], turn: int) -> int:
    """A position with its seat to move as 64 bits, the same on every machine (records
    carry them, so Python's ``hash``, which differs between 32- and 64-bit, will not do):
    the digest of each hole's owner + 1 (0 for empty), then the seat to move."""
    return _digest_of(_owners(holes), turn)


def _owners(holes: tuple[int, ...]) -> bytes:
    """Each hole's owner + 1 (0 for empty), a byte each: what ``_digest`` digests."""
    return _packer(len(holes))(*holes).translate(_PLUS_ONE)


def _digest_of(owners: bytes, turn: int) -> int:
    """``_digest`` of the holes whose ``_owners`` are ``owners``."""
    data = owners + bytes((turn,))
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


def _holes_of(holes: tuple[int, ...], seat: int) -> list[int]:
    """The holes of ``seat``'s pieces, in board order (found by the tuple's own search)."""
    found, at = [], -1
    for _ in range(holes.count(seat)):
        at = holes.index(seat, at + 1)
        found.append(at)
    return found


def _arrive(
    holes: tuple[int, ...],
    turn: int,
    ply: int,
    passes: int,
    seen: Seen,
    owners: bytes | None = None,
) -> SternhalmaState:
    """The state with ``holes`` and ``turn`` reached, counted among the positions seen
    (``owners``: the holes' ``_owners``, when known)."""
    digest = _digest_of(_owners(holes) if owners is None else owners, turn)
    before = seen.count(digest)
    repeats = before + 1
    return SternhalmaState(holes, turn, ply, passes, seen.counted(digest, repeats, before), repeats)


class Sternhalma(Game[SternhalmaState]):
    name = "sternhalma"
    player_counts = (2, 3, 4, 6)
    default_players = 2
    state_type = SternhalmaState
    OPTIONS = (
        Option("no_leaving_goal", False, "a piece in its target point must stay in it"),
        Option("blocked_goal", False, "a full target point holding an own piece wins"),
        FIRST_SEAT,
        Option("max_plies", None, "draw after this many moves", kind=int, minimum=1),
    )

    def __init__(self, players: int | None = None, **options: Any) -> None:
        super().__init__(players, **options)
        data = self.board.game
        #: the star point each seat starts in, and the one it must fill
        self.homes: tuple[str, ...] = tuple(data["seats"][str(self.players)])
        self.targets: tuple[str, ...] = tuple(data["opposite"][home] for home in self.homes)
        #: the colour of each seat's pieces, as a camera reports them
        self.colours: tuple[str, ...] = tuple(data["colour"][home] for home in self.homes)
        #: what each sensor reports of a hole, by its owner (EMPTY, -1, is the last)
        self._shown = {
            "camera": (*self.colours, None),
            "presence": (PIECE,) * self.players + (None,),
        }
        #: per sensor, the holes it last read and what it reported: a referee reads
        #: each position after the one before, which differs from it in two holes
        self._last_read: dict[str, tuple[tuple[int, ...], dict[str, str | None]]] = {}
        self._home_cells = tuple(self.board.zone(home) for home in self.homes)
        self._goal_cells = tuple(self.board.zone(target) for target in self.targets)
        self._in_goal = tuple(frozenset(cells) for cells in self._goal_cells)
        #: who holds each hole of a seat's target point, read in one call
        self._goal_owners = tuple(itemgetter(*cells) for cells in self._goal_cells)
        self._names = tuple(cell.id for cell in self.board.cells)
        #: each hole's neighbours with the ``(path, leap)`` of a step there, made once
        self._steps = tuple(
            tuple((dest, ((origin, dest), False)) for dest in self.board.neighbours[origin])
            for origin in range(len(self.board.cells))
        )
        #: who holds each hole beside a hole, read in one call (a tip has two)
        self._beside = tuple(
            itemgetter(*self.board.neighbours[origin]) for origin in range(len(self.board.cells))
        )
        #: the holes of the last position a move led to, and their ``_owners``
        self._owners_known: tuple[tuple[int, ...], bytes] = ((), b"")
        #: the moves written out so far, by path (cell indices): a random playout asks
        #: for the same moves again and again
        self._written: dict[tuple[int, ...], Move] = {}
        #: the seats in the order their target points are judged, by the seat that
        #: moved last: that seat first, then the others in turn
        self._judging_order = tuple(
            tuple((mover + k) % self.players for k in range(self.players))
            for mover in range(self.players)
        )
        #: the last state ``outcome`` judged, and its outcome: a ply asks three times
        self._judged: tuple[Any, Outcome | None] = (None, None)
        #: the last position whose moves were listed, and those moves: a referee asks
        #: whether the seat must pass, then matches the board against the same moves
        self._listed: tuple[Any, tuple[Move, ...]] = (None, ())
        #: the positions seen that a record last wrote, and how it wrote them: the
        #: next state's are those and its own once more, so only that one is written
        self._seen_written: tuple[Seen, dict[str, int]] = (_NOTHING_SEEN, {})

    def __str__(self) -> str:
        return f"Sternhalma for {self.players} ({', '.join(self.colours)})"

    def seat_words(self, seat: int) -> Words:
        return colour_words(self.colours[seat])

    def seat_colour(self, seat: int) -> str:
        return self.colours[seat]

    def initial_state(self) -> SternhalmaState:
        holes = [EMPTY] * len(self.board.cells)
        for seat, cells in enumerate(self._home_cells):
            for i in cells:
                holes[i] = seat
        return _arrive(tuple(holes), self.options["first_seat"], 0, 0, _NOTHING_SEEN)

    def _to_move(self, state: SternhalmaState) -> int:
        return state.turn

    # --- move generation --------------------------------------------------------------

    def _legal_moves(self, state: SternhalmaState) -> list[Move]:
        listed, moves = self._listed
        if state != listed:
            moves = tuple(self._write_moves(state))
            self._listed = (state, moves)
        return list(moves)

    def must_pass(self, state: SternhalmaState) -> bool:
        """A free hole beside one of the mover's pieces is a move: asked after every
        move, this answers almost always without the jump search of ``_paths``."""
        if self.to_move(state) is None:
            return False
        holes, seat = state.holes, state.turn
        goal = self._in_goal[seat] if self.options["no_leaving_goal"] else ()
        origin = -1
        for _ in range(holes.count(seat)):
            origin = holes.index(seat, origin + 1)
            leaves = origin in goal
            for dest, _step in self._steps[origin]:
                if holes[dest] == EMPTY and not (leaves and dest not in goal):
                    return False
        return super().must_pass(state)

    def _write_moves(self, state: SternhalmaState) -> list[Move]:
        """The seat to move's moves, written out (or taken from those written before)."""
        self._keep_few_written()
        known, write = self._written.get, self._write
        moves = [
            # a step's path never equals a leap's: a jump lands further
            known(path) or write(path, leap)
            for path, leap in self._paths(state.holes, state.turn)
        ]
        return moves or [PASS]

    def _keep_few_written(self) -> None:
        """Start the written moves over once there are ``MOVES_KEPT``."""
        if len(self._written) > MOVES_KEPT:
            self._written.clear()

    def _write(self, path: tuple[int, ...], leap: bool) -> Move:
        """The move along ``path`` written out, and kept for the next time."""
        move = self._written[path] = Move(tuple(self._names[i] for i in path), leap=leap)
        return move

    def _moves_of(
        self, holes: tuple[int, ...], seat: int
    ) -> Iterator[tuple[int, int, tuple[int, ...], bool]]:
        """Yield ``(origin, destination, path, leap)`` once per distinct destination.

        Jump chains are searched breadth-first over landing holes, and the shortest
        path found stands for all paths to a destination. That is exact: a jump moves
        a piece by twice a unit vector, so on the star's lattice every landing hole
        of a chain has the same coordinates mod 2, and the only holes from which one
        piece can be jumped are the two on its far sides. Jumping a piece twice thus
        means landing on some hole twice, and cutting out that loop leaves a shorter
        valid chain to the same hole; a shortest chain never jumps a piece twice.
        """
        for path, leap in self._paths(holes, seat):
            yield path[0], path[-1], path, leap

    def _paths(self, holes: tuple[int, ...], seat: int) -> list[tuple[tuple[int, ...], bool]]:
        """``_moves_of`` as a list of ``(path, leap)``, piece by piece in board order
        (``_paths_from``)."""
        goal = self._in_goal[seat] if self.options["no_leaving_goal"] else ()
        paths: list[tuple[tuple[int, ...], bool]] = []
        origin = -1
        for _ in range(holes.count(seat)):
            origin = holes.index(seat, origin + 1)
            paths += self._paths_from(holes, origin, goal)
        return paths

    def _paths_from(
        self, holes: tuple[int, ...], origin: int, goal: Iterable[int]
    ) -> list[tuple[tuple[int, ...], bool]]:
        """The moves of the piece on ``origin`` as ``(path, leap)``: its steps, then its
        jump chains breadth-first; only those ending in ``goal`` when it stands there.
        The search itself, written for speed (the computer players and random play
        spend their time here). A jump chain never ends next to its start (it moves by
        even steps on the lattice), so steps and chains never share a destination."""
        jumps, empty = self.board.jumps, EMPTY
        paths: list[tuple[tuple[int, ...], bool]] = [
            step for dest, step in self._steps[origin] if holes[dest] == empty
        ]
        add = paths.append
        landed = {origin}
        chains: list[tuple[int, ...]] = [(origin,)]
        queue = chains.append
        for path in chains:  # grows while iterated: a breadth-first queue
            for over, land in jumps[path[-1]]:
                # the piece itself stands on its origin in ``holes``: never jumped
                if holes[over] == empty or holes[land] != empty or over == origin:
                    continue
                if land not in landed:
                    landed.add(land)
                    longer = path + (land,)
                    queue(longer)
                    add((longer, True))
        if origin in goal:  # no_leaving_goal: this piece ends inside its point
            return [move for move in paths if move[0][-1] in goal]
        return paths

    def _counted(self, holes: tuple[int, ...], seat: int) -> _CountedMoves:
        """The seat's moves as ``_paths`` lists them, counted piece by piece without
        writing a path: its free neighbours (read in one call), and the holes its jump
        chains reach. Those are the groups of free holes joined by jumps (over a piece
        onto a free hole and on) that its first jumps land in: a piece's chains all
        land on holes of its own class of the lattice (a jump moves by two), so no
        chain of the group jumps the piece itself, and pieces share groups. Each group
        is searched once a position."""
        jumps, empty, free_beside = self.board.jumps, EMPTY, self._beside
        group = [0] * len(holes)  # each free hole's group, numbered from 1
        sizes = [0]
        pieces: list[tuple[int, int, int]] = []
        origin = -1
        for _ in range(holes.count(seat)):
            origin = holes.index(seat, origin + 1)
            steps = moves = free_beside[origin](holes).count(empty)
            reached = []
            for over, land in jumps[origin]:
                if holes[over] == empty or holes[land] != empty:
                    continue
                number = group[land]
                if not number:
                    number = group[land] = len(sizes)
                    found = [land]
                    for at in found:  # grows while iterated: a breadth-first search
                        for hop_over, hop in jumps[at]:
                            if holes[hop_over] == empty or holes[hop] != empty or group[hop]:
                                continue
                            group[hop] = number
                            found.append(hop)
                    sizes.append(len(found))
                if number not in reached:
                    reached.append(number)
                    moves += sizes[number]
            pieces.append((moves, origin, steps))
        return _CountedMoves(self, holes, pieces)

    def _chain(self, holes: tuple[int, ...], origin: int, number: int) -> tuple[int, ...]:
        """The path of the jump chain ``_paths_from`` lists ``number``-th (from 0) for
        the piece on ``origin``: its breadth-first search run until that landing hole,
        and walked back from it."""
        jumps, empty = self.board.jumps, EMPTY
        landed, came_from = [origin], [origin]
        for at in landed:
            for over, land in jumps[at]:
                if holes[over] == empty or holes[land] != empty or land in landed:
                    continue
                landed.append(land)
                came_from.append(at)
                if len(landed) > number + 1:
                    path, back = [land], number + 1
                    while back:
                        path.append(came_from[back])
                        back = landed.index(came_from[back])
                    return tuple(reversed(path))
        raise IndexError(number)

    def random_play(self, state: SternhalmaState, pick: random.Random) -> tuple[Move, Any]:
        """The move ``pick.choice(legal_moves(state))`` would draw, and the state after
        it, without writing the other moves out or checking the one drawn again."""
        self._require_move_due(state)
        holes, seat = state.holes, state.turn
        paths: Sequence[tuple[tuple[int, ...], bool]]
        if self.options["no_leaving_goal"]:
            paths = self._paths(holes, seat)
        else:  # ``pick.choice`` asks for the length and one index: one piece listed
            paths = self._counted(holes, seat)
        if not paths:
            move = pick.choice([PASS])
            return move, self._apply(state, move)
        path, leap = pick.choice(paths)
        self._keep_few_written()
        return self._written.get(path) or self._write(path, leap), self._moved(state, path)

    def sensed_successors(
        self, state: SternhalmaState, sensors: tuple[str, ...]
    ) -> tuple[Iterable[tuple[Any, ...]], Callable[[Any], tuple[Any, Any]]]:
        """Each legal move with the two holes it changes (its start empties, its end
        shows the mover's piece): no position is built until a reading matches."""
        moves = self.legal_moves(state)
        if not set(sensors) <= {"camera", "presence"} or moves == [PASS]:
            return super().sensed_successors(state, sensors)
        shown = [self.colours[state.turn] if sensor == "camera" else PIECE for sensor in sensors]
        index = self.board.index
        ends = [(index[move.path[0]], index[move.path[-1]]) for move in moves]
        changes = [
            [(a, None, b, token) if a < b else (b, token, a, None) for a, b in ends]
            for token in shown
        ]
        return list(zip(moves, *changes)), lambda move: (move, self.apply(state, move))

    def can_extend(self, state: SternhalmaState, move: Move, sensor: str = "camera") -> bool:
        """A jump chain can go on when its piece, where it stands, has another jump
        over a piece it has not jumped yet, onto a hole other than its start (the
        search passes through the start hole, which a chain may cross)."""
        self._require_state(state)
        if not isinstance(move, Move) or not move.leap or len(move.path) < 2:
            return False
        path = self._cells_of(move)
        origin, holes, jump_over = path[0], state.holes, self.board.jump_over
        jumped = frozenset(jump_over.get(hop) for hop in zip(path, path[1:]))
        stack, seen = [(path[-1], jumped)], set()
        while stack:
            at, done = stack.pop()
            for over, land in self.board.jumps[at]:
                if over in done or over == origin or holes[over] == EMPTY:
                    continue
                if land != origin and holes[land] != EMPTY:
                    continue
                if land != origin:
                    return True
                if (land, done | {over}) not in seen:
                    seen.add((land, done | {over}))
                    stack.append((land, done | {over}))
        return False

    # --- applying a move --------------------------------------------------------------

    def _apply(self, state: SternhalmaState, move: Move) -> SternhalmaState:
        seat = state.turn
        if move == PASS:
            if any(True for _ in self._moves_of(state.holes, seat)):
                raise IllegalMove(
                    words(
                        "rules.sternhalma.can_move_so_may_not",
                        "{seat} can move, so may not pass: move a piece",
                        seat=self.seat_words(seat),
                    )
                )
            return _arrive(
                state.holes, (seat + 1) % self.players, state.ply + 1, state.passes + 1, state.seen
            )
        path = self._cells_of(move)
        self._check_path(state, seat, move, path)
        return self._moved(state, path)

    def _require_legal(self, state: SternhalmaState, move: Move) -> None:
        """A move's path checked as ``apply`` checks it, without the position after it."""
        self._require_move_due(state)
        if move == PASS:
            self._apply(state, move)
        else:
            self._check_path(state, state.turn, move, self._cells_of(move))

    def _moved(self, state: SternhalmaState, path: tuple[int, ...]) -> SternhalmaState:
        """The state after the seat to move takes its piece along ``path`` (legal)."""
        seat, start, end = state.turn, path[0], path[-1]
        holes = list(state.holes)
        holes[start] = EMPTY
        holes[end] = seat
        after = tuple(holes)
        # the holes' owners as digested, from the last position moved from when this
        # is the position it led to (random play), with the same two holes changed
        known, owners = self._owners_known
        changed = bytearray(owners if known is state.holes else _owners(state.holes))
        changed[start], changed[end] = 0, seat + 1
        owners = bytes(changed)
        self._owners_known = (after, owners)
        return _arrive(after, (seat + 1) % self.players, state.ply + 1, 0, state.seen, owners)

    def _check_path(
        self, state: SternhalmaState, seat: int, move: Move, path: tuple[int, ...]
    ) -> None:
        holes, names = state.holes, self._names
        origin = path[0]
        if len(path) < 2:
            raise IllegalMove(
                words(
                    "rules.sternhalma.move_needs_start_end",
                    "a move needs a start and an end hole: move the piece to another hole",
                ),
                move=str(move),
            )
        if holes[origin] == EMPTY:
            raise IllegalMove(
                words(
                    "rules.sternhalma.there_no_piece",
                    "there is no piece on {origin}: move one of your pieces",
                    origin=names[origin],
                ),
                move=str(move),
            )
        if holes[origin] != seat:
            owner = self.seat_words(holes[origin])
            raise IllegalMove(
                words(
                    "rules.sternhalma.not_your_piece",
                    "the piece on {origin} is {owner}'s, and {seat} moves: move a piece of {seat}",
                    origin=names[origin],
                    owner=owner,
                    seat=self.seat_words(seat),
                ),
                move=str(move),
            )
        if path[-1] == origin:
            raise IllegalMove(
                words(
                    "rules.sternhalma.move_must_end_different",
                    "a move must end on a different hole than it started: move the piece to "
                    "another hole",
                ),
                move=str(move),
            )
        if not move.leap:
            if len(path) != 2:
                raise IllegalMove(
                    words(
                        "rules.sternhalma.step_goes_one_adjacent",
                        "a step goes to one adjacent hole; jumps use ':': write the move again",
                    ),
                    move=str(move),
                )
            if path[1] not in self.board.neighbours[origin]:
                raise IllegalMove(
                    words(
                        "rules.sternhalma.not_next",
                        "{cell} is not next to {origin}: step to a hole next to it, or jump over "
                        "one piece",
                        cell=names[path[1]],
                        origin=names[origin],
                    ),
                    move=str(move),
                )
            if holes[path[1]] != EMPTY:
                raise IllegalMove(
                    words(
                        "rules.sternhalma.occupied",
                        "{cell} is occupied: move to a free hole",
                        cell=names[path[1]],
                    ),
                    move=str(move),
                )
        else:
            jumped: set[int] = set()
            for at, land in zip(path, path[1:]):
                over = self.board.jump_over.get((at, land))
                if over is None:
                    raise IllegalMove(
                        words(
                            "rules.sternhalma.not_jump_over_one_hole",
                            "that is neither a step to the next hole nor a jump over one piece: "
                            "step to a hole next to it, or jump over exactly one piece",
                        ),
                        move=str(move),
                    )
                if holes[over] == EMPTY or over == origin:
                    raise IllegalMove(
                        words(
                            "rules.sternhalma.there_no_piece_jump",
                            "there is no piece on {over} to jump over: jump over exactly one piece",
                            over=names[over],
                        ),
                        move=str(move),
                    )
                if over in jumped:
                    raise IllegalMove(
                        words(
                            "rules.sternhalma.piece_may_jumped_only",
                            "the piece on {over} may be jumped only once per move: jump over "
                            "another piece",
                            over=names[over],
                        ),
                        move=str(move),
                    )
                if holes[land] != EMPTY and land != origin:
                    raise IllegalMove(
                        words(
                            "rules.sternhalma.occupied",
                            "{cell} is occupied: move to a free hole",
                            cell=names[land],
                        ),
                        move=str(move),
                    )
                jumped.add(over)
        goal = self._in_goal[seat]
        if self.options["no_leaving_goal"] and origin in goal and path[-1] not in goal:
            raise IllegalMove(
                words(
                    "rules.sternhalma.piece_may_not_leave_target",
                    "a piece may not leave its target point (no_leaving_goal): move it within the "
                    "point",
                ),
                move=str(move),
            )

    # --- the end ----------------------------------------------------------------------

    def outcome(self, state: SternhalmaState) -> Outcome | None:
        judged, ended = self._judged
        if state is judged:
            return ended
        ended = self._outcome(state)
        self._judged = (state, ended)
        return ended

    def _outcome(self, state: SternhalmaState) -> Outcome | None:
        self._require_state(state)
        for seat in self._judging_order[(state.turn - 1) % self.players]:
            reason = self._goal_reason(state.holes, seat)
            if reason:
                return Outcome((seat,), reason)
        if state.passes >= self.players:
            return Outcome((), words("rules.sternhalma.no_player_can_move", "no player can move"))
        if state.repeats >= REPEATS_DRAW:
            return Outcome(
                (),
                words(
                    "rules.sternhalma.repetition",
                    "the same position with the same player to move came up a third time",
                ),
            )
        limit = self.options["max_plies"]
        if limit is not None and state.ply >= limit:
            return Outcome(
                (),
                words(
                    "rules.sternhalma.move_limit_reached",
                    "move limit of {limit} reached",
                    limit=limit,
                ),
            )
        return None

    def _goal_reason(self, holes: tuple[int, ...], seat: int) -> Words | None:
        owners = self._goal_owners[seat](holes)
        blocked = self.options["blocked_goal"]
        if owners.count(seat) < len(owners) and not (blocked and EMPTY not in owners):
            return None  # the common case, told before any words are made
        colour, target = self.seat_words(seat), self.targets[seat]
        if all(owner == seat for owner in owners):
            return words(
                "rules.sternhalma.filled_point",
                "{seat} filled the {target} point",
                seat=colour,
                target=target,
            )
        if self.options["blocked_goal"] and EMPTY not in owners and seat in owners:
            return words(
                "rules.sternhalma.holds_part_full_point",
                "{seat} holds part of the full {target} point (blocked_goal)",
                seat=colour,
                target=target,
            )
        return None

    # --- what sensors see, and records ------------------------------------------------

    def observe(self, state: SternhalmaState) -> dict[str, str | None]:
        return self.sense(state, "camera")

    def sense(self, state: SternhalmaState, sensor: str) -> dict[str, str | None]:
        """What ``sensor`` reports, read off the holes: what it reported of the holes
        read last, changed where they differ (the holes of a move), and otherwise
        looked up hole by hole."""
        shown = self._shown.get(sensor)
        if shown is None:
            return super().sense(state, sensor)  # says which sensors there are
        self._require_state(state)
        holes, names = state.holes, self._names
        last, reading = self._last_read.get(sensor, ((), {}))
        if len(last) != len(holes):
            reading = {name: shown[owner] for name, owner in zip(names, holes)}
        elif last is not holes:
            reading = reading.copy()
            for i in compress(count(), map(ne, holes, last)):
                reading[names[i]] = shown[holes[i]]
        self._last_read[sensor] = (holes, reading)
        return reading.copy()

    def render(self, state: SternhalmaState) -> str:
        """The star as text: each piece as the first letter of its colour."""
        return self.board.render(
            {k: v[0].upper() for k, v in self.observe(state).items() if v is not None}
        )

    def _state_to_json(self, state: SternhalmaState) -> dict:
        return {**self.shown_record(state), "seen": self._seen_record(state)}

    def shown_record(self, state: SternhalmaState) -> dict:
        self._require_state(state)
        names, holes = self._names, state.holes
        return {
            "pieces": [[names[i] for i in _holes_of(holes, seat)] for seat in range(self.players)],
            "turn": state.turn,
            "ply": state.ply,
            "passes": state.passes,
        }

    def _seen_record(self, state: SternhalmaState) -> dict[str, int]:
        """The positions ``state`` has seen as a record writes them: each one's digest
        (16 hex digits) with how often it occurred. The history grows with the game,
        so the last one written is kept; a state that adds its own position to it
        once more (the move after) writes only that one."""
        done, written = self._seen_written
        seen = state.seen
        if seen != done:
            digest = _digest(state.holes, state.turn)
            if done.counted(digest, state.repeats) == seen:
                written = {**written, f"{digest:016x}": state.repeats}
            else:
                written = {f"{d:016x}": n for d, n in seen.items()}
            self._seen_written = (seen, written)
        return dict(written)

    def _state_from_json(self, data: Any) -> SternhalmaState:
        pieces = data["pieces"]
        if not isinstance(pieces, list) or len(pieces) != self.players:
            raise RecordError(
                words(
                    "rules.sternhalma.pieces_must_list_holes",
                    "'pieces' must list the holes of each of {players, plural, one {# seat} other "
                    "{# seats}}",
                    players=self.players,
                )
            )
        holes = [EMPTY] * len(self.board.cells)
        for seat, cells in enumerate(pieces):
            indices = self._cell_list(cells, f"pieces of seat {seat}")
            if len(indices) != PIECES_PER_PLAYER:
                raise RecordError(
                    words(
                        "rules.sternhalma.seat_pieces_not",
                        "seat {seat} has {count, plural, one {# piece} other {# pieces}}, not 10",
                        seat=seat,
                        count=len(indices),
                    )
                )
            for i in indices:
                if holes[i] != EMPTY:
                    raise RecordError(
                        words(
                            "rules.sternhalma.two_pieces",
                            "two pieces on {cell}",
                            cell=self.board.cells[i].id,
                        )
                    )
                holes[i] = seat
        turn, ply, passes = data["turn"], data["ply"], data["passes"]
        for key, value in (("turn", turn), ("ply", ply), ("passes", passes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RecordError(
                    words(
                        "rules.sternhalma.must_whole_number_not",
                        "{field} must be a whole number >= 0, not {value}",
                        field=repr(key),
                        value=repr(value),
                    )
                )
        if turn >= self.players:
            raise RecordError(
                words(
                    "rules.sternhalma.turn_not_seat_players",
                    "turn {turn} is not a seat of {players, plural, one {# player} other {# "
                    "players}}",
                    turn=turn,
                    players=self.players,
                )
            )
        seen = data.get("seen", {})
        if not isinstance(seen, dict) or not all(
            isinstance(k, str) and re.fullmatch(r"[0-9a-f]{16}", k) and _is_count(n)
            for k, n in seen.items()
        ):
            raise RecordError(
                words(
                    "rules.sternhalma.seen_positions",
                    "'seen' maps positions (16 hex digits) to how often each occurred (1 or more)",
                )
            )
        records = _NOTHING_SEEN
        for key, n in seen.items():
            records = records.counted(int(key, 16), n)
        digest = _digest(tuple(holes), turn)
        repeats = records.count(digest)
        if not repeats:
            return _arrive(tuple(holes), turn, ply, passes, records)
        return SternhalmaState(tuple(holes), turn, ply, passes, records, repeats)


class _CountedMoves(Sequence[tuple[tuple[int, ...], bool]]):
    """The moves ``_paths`` lists, counted piece by piece (``pieces``: how many moves
    each piece has, its hole, and how many of them are steps): ``len`` is their
    number, and an index writes out the one move it stands for. What ``random.choice``
    draws from it is what it draws from the whole list."""

    def __init__(
        self, game: Sternhalma, holes: tuple[int, ...], pieces: list[tuple[int, int, int]]
    ) -> None:
        self.game, self.holes, self.pieces = game, holes, pieces
        self.total = sum(piece[0] for piece in pieces)

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, index: int) -> tuple[tuple[int, ...], bool]:  # type: ignore[override]
        if not 0 <= index < self.total:
            raise IndexError(index)
        holes = self.holes
        for moves, origin, steps in self.pieces:
            if index >= moves:
                index -= moves
            elif index < steps:
                return [step for dest, step in self.game._steps[origin] if holes[dest] == EMPTY][
                    index
                ]
            else:
                return self.game._chain(holes, origin, index - steps), True
        raise AssertionError("the pieces' counts add up to the total")


def _is_count(value: Any) -> bool:
    """A count a record may give (a 64-bit number, 1 or more)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value < 2**64
