"""Fang den Hut! card game (Reiner Knizia, "Das Kartenspiel" in the Fang den Hut! box).
Knows the rules only; it never shows one player's
hand, the draw pile or the cards set aside to another (``view``), and never draws
chance itself.

The deck (``[game]`` of ``engines/boards/fang_den_hut_cards.toml``): every value
0-9 and one blank card in each of three colours, 33 cards. Each game of a match
starts with a shuffle drawn from the chance stream (``engines.chance.Shuffle``);
``resolve`` deals it: 2 players 6 cards each and the rest a face-down draw pile;
3 players 10, 4 players 8, 5 players 6 each, the rest set aside unseen.

A turn is one move: the player first takes the card or stack whose hat tip points
at them (face down, counted and never shown again), then plays one card from the
hand, either alone (``red7``; its tip points at the player) or onto the top card of
a stack pointing at another player to capture the stack (``red7:blue7``; the stack
is turned to point at the player). With two players the player then draws the top
card of the draw pile while it lasts. Only the top card of a stack counts:

- same colour: a higher value on a lower; the lowest value on the highest (0 on
  9); a blank on any value; any value on a blank;
- different colours: an equal value; a blank on a blank.

A game ends when every card is played; each player then takes the stacks pointing
at them. The hats are scored from the cards each player took; a match is as many
games as players, each player starting one of them, and whoever holds most hats wins.

Readings of the book this engine follows:

- Since a player turns only one stack to themselves per turn and takes it at their
  next turn, at most one stack points at each player; the table has one place per
  player (``stack_N``) and one for the face-down pile of cards taken (``taken_N``).
- The take happens inside the player's move, as at the table: until they play,
  their stack still lies there, and nobody else may capture it in between. A player
  can never capture the stack pointing at themselves (they took it first).
- Scoring, three or more players: a placing is one card count, highest first;
  placings 1, 2 and 3 are worth 3, 2 and 1 hats. A placing shared by several
  players is worth one hat less to each of them, and so is every later placing
  (shifts add up; never below 0). So 10, 10, 7, 5 cards give 2, 2, 1, 0 hats and
  10, 8, 8, 5 give 3, 1, 1, 0. A placing is a placing even with no cards.
- Two players: 1 hat per full 5 cards taken.
- Players tied for most hats after the match share the win.
- The book does not name the three colours; the data file says red, yellow, blue
  (an owner whose deck differs edits the file). Cards are named ``red7``, and
  ``red_blank`` for a blank.
- ``view`` shows each stack's top card and size, not the cards beneath: they are
  covered at the table, and the rule book has taken cards counted, never looked at.
- Seats are "player 1" ... "player 5". Who starts is decided at the table (the
  book says the youngest player): option ``first_seat`` names the seat that starts
  the first game; game k of the match is started by the k-th seat after it, so each
  player starts once, and play goes clockwise. The deal is drawn by the table, so
  ``drawer(state)`` is None.
- ``observe`` reports what lies on the table: the top card of each stack,
  "face_down" for a non-empty taken pile and for the deck in the middle (before a
  deal, the draw pile, or the cards set aside). After each game the cards are
  gathered into the deck, so the last play of a game is not told apart on the
  table (every card is face down by then). Hands are never observed (they live
  on the phones). With no sensor other than the camera, ``sense`` is the
  ordinary projection of ``observe``.

Options:

- ``single_game`` (False): play one game instead of a match of as many games as
  players; the hats of that game decide.
- ``first_seat`` (0): the seat that starts the first game.

>>> from engines import load_game
>>> game = load_game("fang_den_hut_cards", players=3)
>>> state = game.initial_state()
>>> str(game.chance(state)), game.to_move(state)
('shuffle 33 cards', None)
>>> state = game.resolve(state, game.deck)  # the deck unshuffled, for the example
>>> game.view(state, 1)["hand"][:3]
['red_blank', 'yellow0', 'yellow1']
>>> state = game.apply(state, game.parse_move(state, "red5"))
>>> [str(m) for m in game.legal_moves(state) if m.target]
['red_blank:red5', 'yellow5:red5']
>>> state = game.apply(state, game.parse_move(state, "yellow5:red5"))
>>> game.observe(state)["stack_1"], game.observe(state)["stack_2"]
(None, 'yellow5')
"""

from __future__ import annotations

import random
import re
from bisect import insort
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engines.chance import Shuffle, deal
from engines.core import FIRST_SEAT, Game, Option, Outcome, joined
from engines.errors import BoardFileError, IllegalMove, NotationError, RecordError, RulesError
from engines.geometry import Board
from engines.words import words

#: cards dealt to each player, by player count
HAND_SIZES = {2: 6, 3: 10, 4: 8, 5: 6}
#: hats for the first, second and third placing (three or more players)
PLACING_HATS = (3, 2, 1)
#: with two players each full this many cards taken is worth one hat
CARDS_PER_HAT = 5
FACE_DOWN = "face_down"
BLANK = "blank"
CAPTURE = ":"
COLOUR = re.compile(r"^[a-z]+$")


@dataclass(frozen=True)
class Card:
    """One card: its name (``red7``, ``red_blank``), colour and value (None: blank)."""

    name: str
    colour: str
    value: int | None


def hats_for_game(cards: Sequence[int]) -> tuple[int, ...]:
    """The hats each player earns for the number of cards they took in one game."""
    if len(cards) == 2:
        return tuple(count // CARDS_PER_HAT for count in cards)
    worth, shared = {}, 0
    for placing, count in enumerate(sorted(set(cards), reverse=True)):
        if cards.count(count) > 1:
            shared += 1
        base = PLACING_HATS[placing] if placing < len(PLACING_HATS) else 0
        worth[count] = max(0, base - shared)
    return tuple(worth[count] for count in cards)


@dataclass(frozen=True)
class Play:
    """Play ``card`` alone, or onto the stack whose top card is ``target``."""

    card: str
    target: str | None = None

    def __str__(self) -> str:
        return self.card if self.target is None else f"{self.card}{CAPTURE}{self.target}"


@dataclass(frozen=True)
class CardsState:
    """Everything on and around the table; card tuples are in deck order except
    ``table`` stacks (bottom card first) and ``draw_pile`` (top card first).

    No card in any hand means the next game waits for its deal (or the match is
    over); ``results`` holds the cards each player took in every finished game.
    """

    hands: tuple[tuple[str, ...], ...]
    table: tuple[tuple[str, ...], ...]
    taken: tuple[tuple[str, ...], ...]
    draw_pile: tuple[str, ...] = ()
    set_aside: tuple[str, ...] = ()
    turn: int = 0
    results: tuple[tuple[int, ...], ...] = ()


class FangDenHutCards(Game[CardsState]):
    name = "fang_den_hut_cards"
    player_counts = (2, 3, 4, 5)
    default_players = 3
    state_type = CardsState
    OPTIONS = (
        Option("single_game", False, "play one game, not a match of one per player"),
        FIRST_SEAT,
    )
    # hands are private and cards lie face up or down: no hall sensor can read them
    SENSORS = ("camera", "panel")

    def __init__(self, players: int | None = None, **options: Any) -> None:
        super().__init__(players, **options)
        self.board = _seated(self.board, self.players)
        self.cards = _read_deck(self.board)
        #: the card names in deck order (colour by colour, values then the blank)
        self.deck: tuple[str, ...] = tuple(self.cards)
        self._rank = {name: i for i, name in enumerate(self.deck)}
        values = [card.value for card in self.cards.values() if card.value is not None]
        self._lowest, self._highest = min(values), max(values)
        #: per card, the top cards it captures (listing moves asks this most)
        self._captures = {
            card: frozenset(top for top in self.deck if self.can_capture(card, top))
            for card in self.deck
        }
        #: per card, the cards that capture it when it lies on top
        self._captured_by = {
            top: frozenset(card for card in self.deck if top in self._captures[card])
            for top in self.deck
        }
        #: ``_captures`` and ``_captured_by`` by the cards' places in the deck (a
        #: playout's cards)
        self._rank_captures = [
            frozenset(self._rank[top] for top in self._captures[card]) for card in self.deck
        ]
        self._rank_captured_by = [
            frozenset(self._rank[card] for card in self._captured_by[top]) for top in self.deck
        ]
        self._shuffle = Shuffle(self.deck)
        #: the outcome of a match by the hats each seat won (``_ending``)
        self._endings: dict[tuple[int, ...], Outcome] = {}
        self.games = 1 if self.options["single_game"] else self.players
        self.hand_size = HAND_SIZES[self.players]
        if self.hand_size * self.players > len(self.deck):
            raise BoardFileError(
                f"{_source(self.board)}: {len(self.deck)} cards cannot deal "
                f"{self.hand_size} each to {self.players} players"
            )
        #: cards a game puts into play (and the card counts of a game add up to)
        self.cards_in_play = len(self.deck) if self.players == 2 else self.hand_size * self.players

    def initial_state(self) -> CardsState:
        nothing = ((),) * self.players
        return CardsState(nothing, nothing, nothing, turn=self.starter(0))

    def starter(self, game: int) -> int:
        """The seat that starts game ``game`` (0 first) of the match."""
        return (int(self.options["first_seat"]) + game) % self.players

    def _to_move(self, state: CardsState) -> int:
        return state.turn

    # --- the deal -------------------------------------------------------------------

    def chance(self, state: CardsState) -> Shuffle | None:
        self._require_state(state)
        if any(state.hands) or len(state.results) >= self.games:
            return None
        return self._shuffle

    def resolve(self, state: CardsState, outcome: Any) -> CardsState:
        """Deal the shuffled ``outcome`` (every card, top first)."""
        if self.chance(state) is None:
            raise RulesError(
                words(
                    "rules.fang_den_hut_cards.no_deal_pending_cards",
                    "no deal is pending: the cards are in play or the match is over",
                )
            )
        if not (
            isinstance(outcome, tuple | list)
            and all(isinstance(card, str) for card in outcome)
            and Counter(outcome) == Counter(self.deck)
        ):
            raise RulesError(
                words(
                    "rules.fang_den_hut_cards.deal_order_cards_deck",
                    "a deal is an order of the {count, plural, one {# card} other {# cards}} of "
                    "the deck",
                    count=len(self.deck),
                )
            )
        hands, rest = deal(tuple(outcome), [self.hand_size] * self.players)
        two = self.players == 2
        return CardsState(
            hands=tuple(self._sorted(hand) for hand in hands),
            table=state.table,
            taken=state.taken,
            draw_pile=rest if two else (),
            set_aside=() if two else self._sorted(rest),
            turn=state.turn,
            results=state.results,
        )

    # --- moves ----------------------------------------------------------------------

    def _legal_moves(self, state: CardsState) -> list[Play]:
        return [Play(card, top) for card, caught in self._plays(state) for top in (None, *caught)]

    def _plays(self, state: CardsState) -> list[tuple[str, list[str]]]:
        """Each card in the hand of the seat to act, with the top cards it may capture."""
        me = state.turn
        tops = [stack[-1] for seat, stack in enumerate(state.table) if stack and seat != me]
        return [
            (card, [top for top in tops if top in self._captures[card]]) for card in state.hands[me]
        ]

    def random_play(self, state: CardsState, pick: random.Random) -> tuple[Play, CardsState]:
        """As ``Game.random_play`` (a legal move drawn uniformly, with the same draw
        from ``pick``), counted rather than listed: only the move drawn is written out."""
        if self.to_move(state) is None:
            return super().random_play(state, pick)  # says why nobody may move
        me = state.turn
        tops = [stack[-1] for seat, stack in enumerate(state.table) if stack and seat != me]
        card, target = _drawn_play(pick, state.hands[me], tops, self._captures, self._captured_by)
        return Play(card, target), self._played(state, card, target)

    def _made(self, state: CardsState, move: Play) -> CardsState:
        return self._played(state, move.card, move.target)

    def playout(
        self,
        state: CardsState,
        pick: random.Random,
        sample: Callable[[Any], Any],
        limit: int,
        tick: Callable[[], None] = lambda: None,
    ) -> Outcome | CardsState:
        """``engines.playouts.played_out`` with the cards as numbers in deck order in lists changed
        in place (no state, play or sentence a step): the same draws from ``pick``
        and ``sample`` as ``random_play`` and ``resolve`` step by step, several times
        as fast. The clock is read once: a whole match is a few milliseconds."""
        self._require_state(state)
        tick()
        rank, players = self._rank, self.players
        captures, captured_by = self._rank_captures, self._rank_captured_by
        hands = [sorted(rank[card] for card in hand) for hand in state.hands]
        table = [[rank[card] for card in stack] for stack in state.table]
        taken = [[rank[card] for card in pile] for pile in state.taken]
        # the draw pile top last, to be drawn with pop()
        pile = [rank[card] for card in reversed(state.draw_pile)]
        set_aside, turn, results = state.set_aside, state.turn, list(state.results)
        plies = 0
        while True:
            if not any(hands):
                if len(results) >= self.games:
                    return self._ending(results)
                dealt, rest = deal(sample(self._shuffle), [self.hand_size] * players)
                hands = [sorted(rank[card] for card in hand) for hand in dealt]
                pile = [rank[card] for card in reversed(rest)] if players == 2 else []
                set_aside = () if players == 2 else self._sorted(rest)
                continue
            if plies >= limit:
                deck = self.deck
                return CardsState(
                    tuple(tuple(deck[card] for card in hand) for hand in hands),
                    tuple(tuple(deck[card] for card in stack) for stack in table),
                    tuple(tuple(deck[card] for card in sorted(cards)) for cards in taken),
                    tuple(deck[card] for card in reversed(pile)),
                    set_aside,
                    turn,
                    tuple(results),
                )
            plies += 1
            me, hand = turn, hands[turn]
            tops = [stack[-1] for seat, stack in enumerate(table) if stack and seat != me]
            card, target = _drawn_play(pick, hand, tops, captures, captured_by)
            taken[me] += table[me]
            captured: list[int] = []
            if target is not None:
                seat = next(s for s, stack in enumerate(table) if stack and stack[-1] == target)
                captured, table[seat] = table[seat], []
            captured.append(card)
            table[me] = captured
            hand.remove(card)
            if pile:
                insort(hand, pile.pop())
            if any(hands):
                turn = (me + 1) % players
                continue
            # every card is played: each player takes the stacks pointing at them
            results.append(tuple(len(cards) + len(stack) for cards, stack in zip(taken, table)))
            table, taken = [[] for _ in range(players)], [[] for _ in range(players)]
            turn = self.starter(len(results))

    def can_capture(self, card: str, top: str) -> bool:
        """Whether ``card`` played onto a stack whose top card is ``top`` captures it
        (both names of cards in ``self.deck``)."""
        played, lying = self.cards[card], self.cards[top]
        if played.colour == lying.colour:
            if played.value is None or lying.value is None:
                return True
            return played.value > lying.value or (
                played.value == self._lowest and lying.value == self._highest
            )
        return played.value == lying.value

    def _parse(self, text: str) -> Play:
        if not isinstance(text, str):
            raise NotationError(
                words(
                    "rules.fang_den_hut_cards.play_is_text",
                    "a card play is text like 'red7' or 'red7:blue7', not {text}: write it so",
                    text=repr(text),
                )
            )
        parts = [part.strip() for part in text.strip().lower().split(CAPTURE)]
        if len(parts) > 2 or not all(part in self.cards for part in parts):
            raise NotationError(
                words(
                    "rules.fang_den_hut_cards.not_card_play_write_card",
                    (
                        "{text} is not a card play: write a card ('red7', 'red_blank') or a card "
                        "and the top card it captures ('red7:blue7')"
                    ),
                    text=repr(text),
                )
            )
        return Play(*parts)

    def _apply(self, state: CardsState, move: Any) -> CardsState:
        card, target = self._check(state, move)
        return self._played(state, card, target)

    def _played(self, state: CardsState, card: str, target: str | None) -> CardsState:
        """The state after playing ``card`` (capturing ``target``), known to be legal."""
        me = state.turn
        table, taken = list(state.table), list(state.taken)
        taken[me] = self._sorted(taken[me] + table[me])
        table[me] = ()
        captured: tuple[str, ...] = ()
        if target is not None:
            seat = next(s for s, stack in enumerate(table) if stack and stack[-1] == target)
            captured, table[seat] = table[seat], ()
        table[me] = captured + (card,)
        hand = tuple(c for c in state.hands[me] if c != card) + state.draw_pile[:1]
        hands = state.hands[:me] + (self._sorted(hand),) + state.hands[me + 1 :]
        if any(hands):
            return CardsState(
                hands,
                tuple(table),
                tuple(taken),
                state.draw_pile[1:],
                state.set_aside,
                (me + 1) % self.players,
                state.results,
            )
        # every card is played: each player takes the stacks pointing at them
        counts = tuple(len(pile) + len(stack) for pile, stack in zip(taken, table))
        results = state.results + (counts,)
        nothing = ((),) * self.players
        return CardsState(
            nothing, nothing, nothing, turn=self.starter(len(results)), results=results
        )

    def _check(self, state: CardsState, move: Any) -> tuple[str, str | None]:
        """The card and target of ``move`` if it is legal here, else ``IllegalMove``."""
        if not isinstance(move, Play) or not isinstance(move.card, str):
            raise IllegalMove(
                words(
                    "rules.fang_den_hut_cards.not_card_play_like_red",
                    "{move} is not a card play like 'red7' or 'red7:blue7': choose a card in your "
                    "hand",
                    move=repr(move),
                )
            )
        me, card, target = state.turn, move.card, move.target
        who = self.seat_words(me)
        if card not in self.cards:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut_cards.there_no_card_deck",
                    "there is no card {card} in this deck: choose a card in your hand",
                    card=repr(card),
                ),
                move=str(move),
            )
        if card not in state.hands[me]:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut_cards.not_in_hand",
                    "{card} is not in {who}'s hand: play a card from that hand",
                    card=card,
                    who=who,
                ),
                move=str(move),
            )
        if target is None:
            return card, None
        if not isinstance(target, str) or target not in self.cards:
            raise IllegalMove(
                words(
                    "rules.fang_den_hut_cards.there_no_card_deck",
                    "there is no card {card} in this deck: choose a card in your hand",
                    card=repr(target),
                ),
                move=str(move),
            )
        if state.table[me][-1:] == (target,):
            raise IllegalMove(
                words(
                    "rules.fang_den_hut_cards.stack_under_points_who",
                    (
                        "the stack under {target} points at {who}, who takes it before playing: "
                        "take that stack first"
                    ),
                    target=target,
                    who=who,
                ),
                move=str(move),
            )
        if not any(stack[-1:] == (target,) for stack in state.table):
            raise IllegalMove(
                words(
                    "rules.fang_den_hut_cards.not_top_card_stack_table",
                    "{target} is not the top card of a stack on the table: choose a top card",
                    target=target,
                ),
                move=str(move),
            )
        if not self.can_capture(card, target):
            if self.cards[card].colour == self.cards[target].colour:
                rule = words(
                    "rules.fang_den_hut_cards.same_colour_captures",
                    "of one colour, a higher value captures a lower, {lowest} captures "
                    "{highest}, and a blank captures or is captured by any value",
                    lowest=self._lowest,
                    highest=self._highest,
                )
            else:
                rule = words(
                    "rules.fang_den_hut_cards.other_colour_captures",
                    "of different colours, only an equal value or a blank on a blank captures",
                )
            raise IllegalMove(
                words(
                    "rules.fang_den_hut_cards.cannot_capture",
                    "{card} cannot capture {target} ({rule}): play another card",
                    card=card,
                    target=target,
                    rule=rule,
                ),
                move=str(move),
            )
        return card, target

    # --- the end --------------------------------------------------------------------

    def hats(self, state: CardsState) -> tuple[int, ...]:
        """Every player's hats from the games finished so far."""
        self._require_state(state)
        return self._hats(state.results)

    def _hats(self, results: Sequence[Sequence[int]]) -> tuple[int, ...]:
        totals = [0] * self.players
        for counts in results:
            for seat, won in enumerate(hats_for_game(counts)):
                totals[seat] += won
        return tuple(totals)

    def outcome(self, state: CardsState) -> Outcome | None:
        self._require_state(state)
        if len(state.results) < self.games:
            return None
        return self._ending(state.results)

    def _ending(self, results: Sequence[Sequence[int]]) -> Outcome:
        """The outcome of a match over with ``results`` (the cards each took, a game):
        the same hats end a match the same way, so each is worded once (a search ends
        thousands of matches a second)."""
        hats = self._hats(results)
        ended = self._endings.get(hats)
        if ended is None:
            ended = self._endings[hats] = self._ended_with(hats)
        return ended

    def _ended_with(self, hats: tuple[int, ...]) -> Outcome:
        """The outcome of a match that gave each seat ``hats``."""
        most = max(hats)
        winners = tuple(seat for seat, won in enumerate(hats) if won == most)
        names = joined(self.seat_words(seat) for seat in winners)
        games = words(
            "rules.fang_den_hut_cards.games",
            "{n, plural, =1 {the game} other {# games}}",
            n=self.games,
        )
        return Outcome(
            winners,
            words(
                "rules.fang_den_hut_cards.most_hats_after",
                "most hats ({most}) after {games}: {names}",
                most=most,
                games=games,
                names=names,
            ),
            hats,
        )

    # --- what players and sensors see, and records ----------------------------------

    def observe(self, state: CardsState) -> dict[str, str | None]:
        self._require_state(state)
        gathered = not any(state.hands)
        seen: dict[str, str | None] = {
            "deck": FACE_DOWN if gathered or state.draw_pile or state.set_aside else None
        }
        for seat in range(self.players):
            stack, pile = state.table[seat], state.taken[seat]
            seen[f"stack_{seat + 1}"] = stack[-1] if stack else None
            seen[f"taken_{seat + 1}"] = FACE_DOWN if pile else None
        return {cell.id: seen[cell.id] for cell in self.board.cells}

    def report(self, state: CardsState) -> dict:
        """What lies open on the table: each stack's top card, size and the player
        its tip points at, and the count of face-down cards per player."""
        self._require_state(state)
        return {
            "table": [
                {"points_at": s, "top": stack[-1], "cards": len(stack)}
                for s, stack in enumerate(state.table)
                if stack
            ],
            "taken": [len(pile) for pile in state.taken],
        }

    def view(self, state: CardsState, seat: int) -> dict:
        """What ``seat`` may know: their own hand and, on their turn, the plays it
        allows (``moves``, in notation); of everything else only what lies open on
        the table (each stack's top card and size) and how many cards are where."""
        self._require_state(state)
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in range(self.players):
            raise RulesError(
                words(
                    "rules.fang_den_hut_cards.no_seat_among_players",
                    "{game}: no seat {seat} among {players, plural, one {# player} other {# "
                    "players}}",
                    game=self.name,
                    seat=repr(seat),
                    players=self.players,
                )
            )
        outcome = self.outcome(state)
        moving = self.to_move(state) == seat
        return {
            "game": self.name,
            "players": self.players,
            "seat": seat,
            "seat_names": [self.seat_name(s) for s in range(self.players)],
            "game_number": min(len(state.results) + 1, self.games),
            "games": self.games,
            "dealing": self.chance(state) is not None,
            "to_move": self.to_move(state),
            "hand": list(state.hands[seat]),
            "moves": [str(move) for move in self._legal_moves(state)] if moving else [],
            "hand_sizes": [len(hand) for hand in state.hands],
            "table": [
                {"points_at": s, "top": stack[-1], "cards": len(stack)}
                for s, stack in enumerate(state.table)
                if stack
            ],
            "taken": [len(pile) for pile in state.taken],
            "draw_pile": len(state.draw_pile),
            "set_aside": len(state.set_aside),
            "results": [
                {"cards": list(counts), "hats": list(hats_for_game(counts))}
                for counts in state.results
            ],
            "hats": list(self.hats(state)),
            "winners": None if outcome is None else list(outcome.winners),
        }

    def _state_to_json(self, state: CardsState) -> dict:
        return {
            "hands": [list(hand) for hand in state.hands],
            "table": [list(stack) for stack in state.table],
            "taken": [list(pile) for pile in state.taken],
            "draw_pile": list(state.draw_pile),
            "set_aside": list(state.set_aside),
            "turn": state.turn,
            "results": [list(counts) for counts in state.results],
        }

    def _state_from_json(self, data: Any) -> CardsState:
        hands = self._per_seat(data["hands"], "hands")
        table = tuple(tuple(stack) for stack in self._per_seat(data["table"], "table"))
        taken = self._per_seat(data["taken"], "taken")
        draw_pile = tuple(self._card_list(data["draw_pile"], "draw_pile"))
        set_aside = self._card_list(data["set_aside"], "set_aside")
        turn, results = data["turn"], data["results"]
        if isinstance(turn, bool) or not isinstance(turn, int) or turn not in range(self.players):
            raise RecordError(
                words(
                    "rules.fang_den_hut_cards.turn_must_seat_not",
                    "turn must be a seat from 0 to {number}, not {turn}",
                    number=self.players - 1,
                    turn=repr(turn),
                )
            )
        results = self._results(results)
        everywhere = [c for group in (*hands, *table, *taken, draw_pile, set_aside) for c in group]
        dealt = bool(everywhere)
        if dealt and Counter(everywhere) != Counter(self.deck):
            raise RecordError(
                words(
                    "rules.fang_den_hut_cards.record_does_not_hold_every",
                    "the record does not hold every card of the deck exactly once",
                )
            )
        if (draw_pile and self.players != 2) or (set_aside and self.players == 2):
            raise RecordError(
                words(
                    "rules.fang_den_hut_cards.only_two_players_draw",
                    "only two players draw; only more than two set cards aside",
                )
            )
        if dealt and self.players != 2 and len(set_aside) != len(self.deck) - self.cards_in_play:
            raise RecordError(
                words(
                    "rules.fang_den_hut_cards.cards_set_aside_deal",
                    "{count, plural, one {# card} other {# cards}} set aside; the deal leaves "
                    "another number",
                    count=len(set_aside),
                )
            )
        if dealt and (not any(hands) or len(results) >= self.games):
            raise RecordError(
                words(
                    "rules.fang_den_hut_cards.cards_lie_table_but",
                    "cards lie on the table but no game is being played",
                )
            )
        if dealt and not hands[turn]:
            raise RecordError(
                words(
                    "rules.fang_den_hut_cards.move_no_card_hand",
                    "{seat} is to move with no card in hand",
                    seat=self.seat_words(turn),
                )
            )
        if not dealt and turn != self.starter(len(results)):
            raise RecordError(
                words(
                    "rules.fang_den_hut_cards.next_game_started",
                    "the next game is started by {seat}",
                    seat=self.seat_words(self.starter(len(results))),
                )
            )
        return CardsState(
            tuple(self._sorted(hand) for hand in hands),
            table,
            tuple(self._sorted(pile) for pile in taken),
            draw_pile,
            self._sorted(set_aside),
            turn,
            results,
        )

    def _per_seat(self, data: Any, what: str) -> list[list[str]]:
        if not isinstance(data, list) or len(data) != self.players:
            raise RecordError(
                words(
                    "rules.fang_den_hut_cards.must_list_one_card",
                    "{what} must be a list of one card list per player",
                    what=what,
                )
            )
        return [self._card_list(cards, what, seat) for seat, cards in enumerate(data)]

    def _card_list(self, data: Any, what: str, seat: int | None = None) -> list[str]:
        """``data`` if it lists card names, else ``RecordError`` naming ``what`` (of
        ``seat``): the name is written only then, as the search reads a record a playout."""
        if not isinstance(data, list) or not all(
            isinstance(card, str) and card in self.cards for card in data
        ):
            if seat is not None:
                what = f"{what} of {self.seat_name(seat)}"
            raise RecordError(
                words(
                    "rules.fang_den_hut_cards.must_list_card_names",
                    "{what} must be a list of card names such as 'red7'",
                    what=what,
                )
            )
        return data

    def _results(self, data: Any) -> tuple[tuple[int, ...], ...]:
        """The card counts of the finished games, each adding up to the cards in play."""
        if not isinstance(data, list) or len(data) > self.games:
            raise RecordError(
                words(
                    "rules.fang_den_hut_cards.results_must_list_most",
                    "results must be a list of at most {games, plural, one {# game} other {# "
                    "games}}",
                    games=self.games,
                )
            )
        results = []
        for counts in data:
            if not (
                isinstance(counts, list)
                and len(counts) == self.players
                and all(type(count) is int and count >= 0 for count in counts)
                and sum(counts) == self.cards_in_play
            ):
                raise RecordError(
                    words(
                        "rules.fang_den_hut_cards.each_result_cards_each",
                        (
                            "each result is the cards each of {players, plural, one {# player} "
                            "other {# players}} took, adding up to {cards_in_play}"
                        ),
                        players=self.players,
                        cards_in_play=self.cards_in_play,
                    )
                )
            results.append(tuple(counts))
        return tuple(results)

    def _sorted(self, cards: Sequence[str]) -> tuple[str, ...]:
        return tuple(sorted(cards, key=self._rank.__getitem__))


def _source(board: Board) -> str:
    return f"engines/boards/{board.name}.toml"


def _seated(board: Board, players: int) -> Board:
    """The table with the places of players 1..``players`` only."""
    zones = {None} | {f"player_{seat}" for seat in range(1, players + 1)}
    cells = tuple(cell for cell in board.cells if cell.zone in zones)
    ids = {cell.id for cell in cells}
    needed = ["deck"] + [
        f"{kind}_{seat}" for seat in range(1, players + 1) for kind in ("stack", "taken")
    ]
    missing = [cell_id for cell_id in needed if cell_id not in ids]
    if missing:
        raise BoardFileError(f"{_source(board)}: the table has no place {', '.join(missing)}")
    lines = tuple(line for line in board.lines if set(line) <= ids)
    return Board(board.name, board.title, cells, lines, board.game)


def _read_deck(board: Board) -> dict[str, Card]:
    """The cards named by the board file's ``[game]`` colours and values, in deck order."""
    colours, values = board.game.get("colours"), board.game.get("values")
    if not (
        isinstance(colours, list)
        and colours
        and all(isinstance(colour, str) and COLOUR.match(colour) for colour in colours)
        and len(set(colours)) == len(colours)
    ):
        raise BoardFileError(
            f"{_source(board)}: [game] colours must be a list of distinct lower-case names"
        )
    if not (
        isinstance(values, list)
        and len(values) >= 2
        and all(type(value) is int and value >= 0 for value in values)
        and len(set(values)) == len(values)
    ):
        raise BoardFileError(
            f"{_source(board)}: [game] values must be a list of at least two distinct "
            "whole numbers >= 0"
        )
    cards = {}
    for colour in colours:
        for value in sorted(values):
            cards[f"{colour}{value}"] = Card(f"{colour}{value}", colour, value)
        cards[f"{colour}_{BLANK}"] = Card(f"{colour}_{BLANK}", colour, None)
    return cards


def _drawn_play(
    pick: random.Random,
    hand: Sequence[Any],
    tops: list[Any],
    captures: Any,
    captured_by: Any,
) -> tuple[Any, Any]:
    """The card of ``hand`` and its target (None: onto the player's own stack) drawn
    as ``engines.core.drawn_from`` draws over each card's plays (the card alone, then
    each of ``tops``, in order, that it captures): the same draw from ``pick``, without
    listing the plays (a playout draws one a move). ``captures[card]`` and
    ``captured_by[top]`` are the sets of what a card captures and of what captures a
    top; the plays are counted top by top."""
    plays = len(hand)
    for top in tops:
        plays += len(captured_by[top].intersection(hand))
    drawn = pick.randrange(plays)
    for card in hand:
        if not drawn:
            return card, None
        drawn -= 1
        caught = captures[card]
        for top in tops:
            if top in caught:
                if not drawn:
                    return card, top
                drawn -= 1
    raise ValueError("a draw from no plays")
