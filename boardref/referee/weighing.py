"""How the referee weighs what the camera sees: a camera observation becomes the
reading to judge (with hall sensors, only once the camera has seen the board since
they last felt it change, and where the two disagree, what the hall sensors feel),
and a settled reading is weighed against the legal outcomes it may show
(``boardref.referee.fusion``). A part of the referee; the verdict itself is the
referee's, and it never changes the match beyond the reading it takes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from boardref.referee import fusion
from boardref.referee.kinds import Sensor
from boardref.referee.match import Match
from boardref.referee.successors import changes_between
from boardref.referee.verdicts import Reading
from engines.words import words

#: what the panel asks when the camera surely sees another board than the only one
#: the hall sensors feel
CAMERA_DOUBTS = words(
    "referee.camera_doubts",
    "The camera does not see the move the hall sensors feel: if it was played, choose "
    "it (the camera then learns the board again); if not, put the pieces back",
)


class Weighing:
    """The referee's camera readings: taken as seen, weighed when judged."""

    def __init__(self, match: Match):
        self.match = match

    def fuse(self, at: float) -> None:
        """The camera's observation as the reading to judge, as seen. With hall
        sensors, only once the camera has seen the board since they last felt it
        change, and where the two disagree, what the hall sensors feel. ``weigh``
        weighs it when it is judged."""
        m = self.match
        seen = m.observation
        if seen is None or m.game is None:
            return
        key = fusion.seen_key(seen, m.cell_ids)
        if m.sensor == Sensor.BOTH:
            if m.hall is None or m.observed_at < m.hall_since:
                return
            key = self._as_felt(key, m.key(m.hall))
        # the reader emits only views that have been still for a few frames: the
        # reading has settled already and counts at the next tick
        m.take(dict(zip(m.cell_ids, key)), at - m.settle)

    def weigh(self, reading: Reading) -> Reading:
        """The legal outcome a settled camera reading most likely shows: weighed
        against the position, its legal outcomes and those of a tentative move (with
        hall sensors, only those whose presence they feel). Near ties leave the
        reading as it is and note the tying readings in ``match.doubt`` (so does a camera
        surely against the only reading the hall sensors feel); a reading nothing
        explains stays as it is, for the referee to say what is wrong."""
        m = self.match
        seen, key = m.observation, m.key(reading)
        m.doubt = None
        hall = m.key(m.hall) if m.sensor == Sensor.BOTH and m.hall is not None else None
        states = [m.current(), m.positions[-1]]
        indexes = [m.successors_of(state) for state in m.wanted()]
        keys = [m.key_of(state) for state in states]
        presence = [tuple(m.rules.sense(state, Sensor.PRESENCE).values()) for state in states]
        if fusion.is_sure(seen) and (key in keys or any(key in i for i in indexes)):
            felt = dict(zip(keys, presence)).get(key)
            for index in indexes:
                if key in index:
                    felt = index.felt(index.changes(key))
            if hall is None or felt == hall:
                return reading
        own = fusion.Candidates.of(keys[0], [(), changes_between(keys[1], keys[0])])
        groups = [own]
        for index in indexes:
            if index.candidates is None:  # indexed for hall sensors alone: nothing to weigh
                return reading
            groups.append(index.candidates)
        keep = None
        if hall is not None:
            keep = [[felt == hall for felt in presence]]
            keep += [index.agreeing(hall) for index in indexes]

        def label(group: int, n: int) -> tuple:
            return keys[n] if group == 0 else indexes[group - 1].candidate(n)

        fused = fusion.fuse(seen, m.cell_ids, groups, m.tokens, label, keep)
        if fused is None:
            felt = None if keep is None else self._felt_alone(seen, keep, label)
            if felt is None:
                return reading
            if not fusion.surely_otherwise(seen, zip(m.cell_ids, felt)):
                return dict(zip(m.cell_ids, felt))
            # the camera surely sees another board than the hall sensors feel: a
            # misread or a wrong piece; only the players can tell
            m.doubt = (key, (felt,), CAMERA_DOUBTS)
            return reading
        if fused.ties:
            m.doubt = (key, fused.ties, None)
            return reading
        return dict(zip(m.cell_ids, fused.key))

    def _felt_alone(
        self, seen: Any, keep: list[Any], label: Callable[[int, int], tuple[Any, ...]]
    ) -> tuple[Any, ...] | None:
        """The reading the hall sensors allow when they allow only one (as they would
        decide alone), for a camera that fits no reading; None when several readings
        are felt alike. A camera whose references went wrong reads its pieces in
        doubt, and must not stop a table whose hall sensors feel a legal move."""
        allowed = {label(g, n) for g, kept in enumerate(keep) for n, ok in enumerate(kept) if ok}
        return allowed.pop() if len(allowed) == 1 else None

    def _as_felt(self, key: tuple, hall: tuple) -> tuple:
        """The camera's reading where the hall sensors agree with it, and where they do
        not, what they feel (a piece of unknown kind, or nothing): a board the sensors
        disagree on is never taken for a legal outcome."""
        m = self.match
        current = m.current()
        figure = {
            token: felt is not None
            for token, felt in zip(
                m.key_of(current), m.rules.sense(current, Sensor.PRESENCE).values()
            )
        }
        return tuple(
            token if figure.get(token, token is not None) == (felt is not None) else felt
            for token, felt in zip(key, hall)
        )
