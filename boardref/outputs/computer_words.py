"""The computer's announced move in a sentence of its game, as the table hears it and
every players' page shows it: "The computer moves a hat from the red home 3 fields on
along the lit path", "The computer lays its coaster in the place of the first coaster,
its top edge to the north". One source of these words: the service sends them with
the table's state and the pages show them as sent.

It reads the move's notation, the board file and the public snapshot. It never says a
cell's label, an arrow or an identifier (a cell the board does not name is left to the
lit path or the marks on the drawing), and never a card that is still in a hand.
"""

from __future__ import annotations

import re
from typing import Any

from boardref.outputs.places import board_of, colour_words, place
from boardref.referee.snapshot import TableState
from engines.words import Words, words

#: a card of the card game: "red7", "blue_blank"
CARD = re.compile(r"^([a-z]+?)(?:_(blank)|(\d+))$")
#: a hat of Fang den Hut! in a move: "red", "gold/red", "red[blue,green]"
HAT = re.compile(r"^(gold/)?([a-z]+)(?:\[([a-z,]*)\])?$")
#: Hägar: a coaster laid ("c03 n1e0 north"), a token put ("hagar n0e0_nw"), a Hägar moved
PLACEMENT = re.compile(r"^(\w+) ([nsew0-9]+) (north|east|south|west)$")
TOKEN_MOVE = re.compile(r"^(hagar|gold) ([nsew0-9]+_(?:nw|ne|sw|se))$")
HAGAR_MOVE = re.compile(r"^([nsew0-9]+_(?:nw|ne|sw|se))-([nsew0-9]+_(?:nw|ne|sw|se))$")
SPOT = re.compile(r"^([ns])(\d+)([ew])(\d+)$")


def computer_words(move: str, state: TableState) -> Words | None:
    """The computer's ``move`` in its game's own sentence; None where the game has none
    for it (the move then glows on the board, or is shown played)."""
    if move == "pass":
        return _passes(state.game)
    said = {"catch_the_hare": _hare, "sternhalma": _star, "fang_den_hut": _hats,
            "hakenschlagen": _marbles, "haegar": _coasters, "fang_den_hut_cards": _cards}
    sentence = said.get(state.game)
    return sentence(move, state) if sentence else None


def _passes(game: str) -> Words | None:
    if game == "fang_den_hut":
        return words("fdh.computer_pass", "The computer cannot move")
    if game == "hakenschlagen":
        return words("hks.computer_pass", "The computer uses no marble")
    if game == "haegar":
        return words("haegar.computer_passes", "The computer leaves its Hägars where they are")
    return None


def steps(move: str) -> tuple[list[str], int] | None:
    """The cells of a step ("l4-k5") or a chain of jumps ("p4:l4:n6"), and how many jumps."""
    jumping = ":" in move
    cells = move.split(":" if jumping else "-")
    if len(cells) < 2 or not all(cells) or " " in move:
        return None
    return cells, len(cells) - 1 if jumping else 0


def _hare(move: str, state: TableState) -> Words | None:
    found = steps(move)
    if found is None:
        return None
    cells, jumps = found
    hare = state.position.get(cells[0]) == "hare" or state.position.get(cells[-1]) == "hare"
    ends = {"from": place(cells[0], state), "to": place(cells[-1], state)}
    if None not in ends.values():
        if jumps:
            return words("cth.computer_hare_jumps_to", "The computer's hare jumps from {from} "
                         "over {count, plural, one {one hunter} other {# hunters}} to {to}",
                         count=jumps, **ends)
        if hare:
            return words("cth.computer_hare_moves",
                         "The computer moves the hare from {from} to {to}", **ends)
        return words("cth.computer_hunter_moves",
                     "The computer moves a hunter from {from} to {to}", **ends)
    # a board whose file names no places: the lit path shows where
    if jumps:
        return words("cth.computer_hare_jumps", "The computer's hare jumps over {count, plural, "
                     "one {one hunter} other {# hunters}} along the lit path", count=jumps)
    if hare:
        return words("cth.computer_hare_step",
                     "The computer moves the hare one step along the lit path")
    return words("cth.computer_hunter_step",
                 "The computer moves a hunter one step along the lit path")


def _star(move: str, state: TableState) -> Words | None:
    found = steps(move)
    if found is None:
        return None
    if found[1]:
        return words("stern.computer_jumps", "The computer jumps a piece {count, plural, one "
                     "{once} other {# times}} along the lit path", count=found[1])
    return words("stern.computer_step", "The computer moves a piece one step along the lit path")


def _cards(move: str, state: TableState) -> Words | None:
    # only what the computer plays is said: the card leaves its hand as it is said
    card, _, target = move.partition(":")
    if not CARD.match(card) or (target and not CARD.match(target)):
        return None
    if target:
        return words("cards.computer_captures", "The computer plays {card} and captures {target}",
                     card=card_words(card), target=card_words(target))
    return words("cards.computer_alone", "The computer plays {card} on its own",
                 card=card_words(card))


def card_words(card: str) -> Words:
    """A card of the card game in words: "red 7", "blue blank"."""
    found = CARD.match(card)
    if found is None:
        return words("speech.that_card", "that card")
    colour, blank, value = found.groups()
    return words("cards.card", "{colour} {value}", colour=Words(f"token.{colour}", colour),
                 value=words("blank", "blank") if blank else value)


def _hats(move: str, state: TableState) -> Words | None:
    """Each leg of a move of hats: which hat goes from which named place (a home, a gate,
    the centre) how many fields on, and how often it turns back on the way."""
    legs = [leg.split(" ") for leg in move.split(", ")]
    if any(len(leg) != 2 or not HAT.match(leg[0]) for leg in legs):
        return None
    said = []
    for hat, cells in legs:
        path = [cell for cell in re.split(r"[-+]", cells) if cell]
        if not path:
            return None
        said.append(_leg(hat, path, state))
    return words("fdh.computer_moves", "The computer moves {legs} along the lit path",
                 legs=said)


def _leg(hat: str, path: list[str], state: TableState) -> Words:
    which = _hat(hat, state)
    start, end = place(path[0], state), place(path[-1], state)
    count = len(path) - 1
    if start is not None and end is not None:
        leg = words("fdh.leg_between", "{hat} from {from, case, from} to {to, case, to}",
                    hat=which, **{"from": start, "to": end})
    elif start is not None:
        leg = words("fdh.leg_out", "{hat} from {from, case, from} {count, plural, one "
                    "{one field} other {# fields}} on", hat=which, count=count, **{"from": start})
    elif end is not None:
        leg = words("fdh.leg_in", "{hat} {count, plural, one {one field} other {# fields}} on "
                    "to {to, case, to}", hat=which, count=count, to=end)
    else:
        leg = words("fdh.leg_on", "{hat} {count, plural, one {one field} other {# fields}} on",
                    hat=which, count=count)
    turns = sum(1 for k in range(1, len(path) - 1) if path[k - 1] == path[k + 1])
    if not turns:
        return leg
    return words("fdh.leg_turning", "{leg}, turning back {count, plural, one {once} other "
                 "{# times}}", leg=leg, count=turns)


def _hat(hat: str, state: TableState) -> Words:
    found = HAT.match(hat)
    assert found is not None
    golden, _, captives = found.groups()
    if not captives:
        if golden:
            return words("fdh.moved_golden_hat", "the golden hat")
        return words("fdh.moved_hat", "a hat")
    under = [colour_words(colour, state) for colour in captives.split(",")]
    if golden:
        return words("fdh.moved_golden_tower", "the golden tower over {captives}",
                     captives=under)
    return words("fdh.moved_tower", "the tower over {captives}", captives=under)


def _marbles(move: str, state: TableState) -> Words:
    """Each marble the turn spends and what it moves, at a start space or turning point
    where it lands on one (the drawing marks the other places)."""
    return words("hks.computer_turn", "The computer plays {uses} (the places are marked)",
                 uses=[_use(use, state) for use in move.split(" ")])


def _use(use: str, state: TableState) -> Words:
    spent, _, cells = use.partition(":")
    marbles, _, kind = spent.partition("=")
    named = _together([Words(f"marble_{marble}", marble) for marble in marbles.split("+")])
    at = _landmark(cells.split("-")[-1], state) if cells else None
    if kind:
        as_kind = Words(f"marble_{kind}", kind)
        if at is None:
            return words("hks.joker_only", "{marbles} as {kind}", marbles=named, kind=as_kind)
        return words("hks.joker", "{marbles} as {kind} to {cell}", marbles=named, kind=as_kind,
                     cell=at)
    if at is None:
        return words("hks.use_only", "{kind}", kind=named)
    return words("hks.use", "{kind} to {cell}", kind=named, cell=at)


def _together(marbles: list[Words]) -> Words:
    """The marbles one use spends, joined as the players' pages write them ("lettuce +
    lettuce"): a comma already parts one use from the next."""
    if len(marbles) == 1:
        return marbles[0]
    return words("hks.together", "{marbles} + {last}", marbles=_together(marbles[:-1]),
                 last=marbles[-1])


def _landmark(cell: str, state: TableState) -> Words | None:
    board = board_of(state)
    if board is None or cell not in board.index:
        return None
    kind = board.cell(cell).kind
    if kind == "start":
        return words("hks.place_start", "a start space")
    if kind == "turning_point":
        return words("hks.place_turning_point", "a turning point")
    return None


def _coasters(move: str, state: TableState) -> Words | None:
    laid = PLACEMENT.match(move)
    if laid:
        return words("haegar.computer_lays", "The computer lays its coaster in the place of "
                     "{spot}, its top edge to the {facing}", spot=_spot(laid[2]),
                     facing=Words(f"facing_{laid[3]}", laid[3]))
    token = TOKEN_MOVE.match(move)
    if token and token[1] == "hagar":
        return words("haegar.computer_puts_hagar", "The computer puts a Hägar on {field}",
                     field=_field(token[2], state))
    if token:
        return words("haegar.computer_puts_gold", "The computer puts its gold on {field}",
                     field=_field(token[2], state))
    moved = HAGAR_MOVE.match(move)
    if moved:
        return words("haegar.computer_moves_hagar", "The computer moves its Hägar from {from} "
                     "to {to}", **{"from": _field(moved[1], state), "to": _field(moved[2], state)})
    return None


def _spot(spot: str) -> Words:
    """A coaster's place by where it lies from the first: "2 up, 1 left of the first"."""
    found = SPOT.match(spot)
    if found is None:
        return words("speech.that_place", "that place")
    ns, rows, ew, columns = found.groups()
    parts = []
    if int(rows):
        parts.append(Words(f"haegar.steps_{ns}", "", (("n", int(rows)),)))
    if int(columns):
        parts.append(Words(f"haegar.steps_{ew}", "", (("n", int(columns)),)))
    if not parts:
        return words("haegar.first_coaster", "the first coaster")
    return words("haegar.from_first", "the coaster {steps} of the first", steps=parts)


def _field(field: str, state: TableState) -> Words:
    """A field of a coaster: its corner, its coaster's place, and what is printed on it."""
    spot, _, corner = field.partition("_")
    where = Words(f"haegar.field_{corner}", "", (("coaster", _spot(spot)),))
    printed = _print(state.position.get(field), state)
    if printed is None:
        return where
    return words("haegar.field_printed", "{field} ({print})", field=where, print=printed)


def _print(token: str | None, state: TableState) -> Words | None:
    """What the coaster under ``token`` shows on that field: "forest with gold"."""
    board = board_of(state)
    if not token or board is None:
        return None
    shown = token.split("+")[0]
    coaster, _, upright = shown.rpartition("_")
    entry: dict[str, Any] | None = next(
        (c for c in board.game.get("coaster", ()) if c["id"] == coaster), None
    )
    printed = entry.get(upright) if entry else None
    if not printed:
        return None
    marks = []
    if printed.get("gold"):
        marks.append(words("haegar.print_gold", "gold"))
    if printed.get("skull"):
        marks.append(words("haegar.print_skull", "skull"))
    if printed.get("shield"):
        marks.append(words("haegar.print_shield", "shield"))
    if printed.get("die"):
        marks.append(words("haegar.print_die", "die {die}", die=printed["die"]))
    land = Words(f"landscape_{printed['landscape']}", printed["landscape"])
    if not marks:
        return land
    return words("haegar.print_with", "{landscape} with {marks}", landscape=land, marks=marks)
