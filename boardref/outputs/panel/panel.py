"""The panel of one service: who may do what (``access``), the pages kept up to date
(``hub``), the table as the service last pushed it (``Display``), and the app that
serves them (``boardref.outputs.panel.api``).

The app is built apart (``boardref.outputs.panel.api.build_app``): FastAPI and the
panel's routes take longer to load than the rest of the service, so ``boardref serve``
builds it once the panel listens (see ``boardref.outputs.panel.doorway``). The panel
draws its pages from the pushed display alone and gives the pages' commands through
``control`` (a ``TableControl``) alone; it never decides anything about the game.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from boardref.outputs.panel.access import Access
from boardref.outputs.panel.address import Names, public_base
from boardref.outputs.panel.hub import Hub
from boardref.outputs.panel.seats import Seats
from boardref.outputs.spoken import announced

if TYPE_CHECKING:
    from boardref.outputs.display import Display
    from boardref.outputs.panel import models
    from boardref.runtime.control import TableControl

#: the longest the pages are held from a state that is about to change again (``hold``):
#: the turn's moves are indexed in some 10-40 ms here, four times that on a Pi
HOLD_S = 0.25


class Panel:
    """The panel of one service: its access rules, its pages' hub and the table's
    controls."""

    def __init__(self, service, pin_hash: str | None, shown: Display, control: TableControl):
        self.service = service
        self.access = Access(pin_hash)
        self.hub = Hub()
        #: every command a page gives goes through it
        self.control = control
        #: the table as last pushed (see ``show``)
        self.shown = shown
        #: this service run, and how many states it has pushed: a page shows a state
        #: only if it is no older than the one it shows (a restarted service is a new run)
        self.run = secrets.token_hex(6)
        self.seq = 0
        #: the last push after which the seats' players may have changed (``show``)
        self.names_seq = 0
        #: the seats' tokens and the phones that hold them, kept in the event log
        self.seats = Seats(service.store, changed=self.show)
        #: the game a rematch replaced and the rematch, by game id, and the seat each
        #: seat's player took in it (``rematch``)
        self.rematched: tuple[int, int, tuple[int, ...]] | None = None
        #: while the pages are held (``hold``): when they are sent the state anyway
        self._held: asyncio.TimerHandle | None = None
        #: a state came while the pages were held
        self._due = False
        panel = service.config.panel
        public = urlsplit(panel.public_url).hostname if panel.public_url else None
        self.names = Names([panel.host, public, *panel.hosts])

    # --- state as pages see it ---------------------------------------------------------

    def state(self, seat: int | None = None, virtual: bool = True) -> models.State:
        """What one page shows: the pushed snapshot as it is, what ``seat`` alone may
        see, and the table's own facts pushed with it (the board link, and the
        simulator's virtual board where ``virtual``)."""
        from boardref.outputs.panel import models  # loaded with the app: a page is connected

        shown = self.shown
        state = shown.state
        fields = dict(state)
        fields["moves"] = state.moves_of(seat)
        board = shown.virtual if virtual else None
        return models.State.model_construct(
            **fields,
            link=shown.link,
            run=self.run,
            seq=self.seq,
            names_seq=self.names_seq,
            sim=shown.sim,
            view=state.view_of(seat),
            joined=self.seats.joined(shown.game_id),
            handovers=self.seats.handovers(shown.game_id),
            # every announcement is public (the announcer reads no hand): a phone
            # says the table's and its own seat's, a kiosk the table's
            said=[said.to_json() for said in shown.said],
            speech=shown.speech,
            computer_move=announced(state),
            # validated (the snapshot alone is trusted as it is): a plain dict here
            # would be sent as it is, with a serialiser warning for every page
            virtual=None if board is None else models.Virtual.model_validate(board),
        )

    def sent(self, seat: int | None, virtual: bool) -> tuple[str, str]:
        """The state as a page is sent it (``seat``'s own where the game hides hands,
        the virtual board where the page draws it), and what the page shows of it:
        the same without its place in the run's order (``seq``)."""
        if not self.shown.state.views:
            seat = None  # a seat's page is sent the public state
        shown = self.state(seat, virtual).model_dump_json(exclude={"seq"})
        return f'{shown[:-1]},"seq":{self.seq}}}', shown

    def show(self, shown: Display | None = None) -> None:
        """Push the table as ``shown`` to every page; with nothing, push the last one
        again, telling the pages to ask for the seats' players anew (a seat was
        joined, a player named or renamed). A page is sent only a state that shows it
        something new (``Hub.show``)."""
        self.seq += 1
        if shown is not None:
            self.shown = shown
        else:
            self.names_seq = self.seq
        if self._held is not None:
            self._due = True
            return
        self._push()

    def hold(self) -> None:
        """Send the pages no state until ``release``, or ``HOLD_S`` at the longest: the
        state about to be shown changes again in a moment (a turn's moves are being
        indexed, and the moves the board cannot feel come with them), and every page,
        the table's kiosk first, draws each state it is sent: one drawing, not two."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # shown from no loop (a test's own thread): nothing to wait on
            return
        if self._held is None:
            self._held = loop.call_later(HOLD_S, self.release)

    def release(self) -> None:
        """Send the pages what came while they were held (``hold``), if anything."""
        if self._held is None:
            return
        self._held.cancel()
        self._held = None
        if self._due:
            self._due = False
            self._push()

    def _push(self) -> None:
        """Offer every page the table as last shown (``show``)."""
        if not self.hub.subscribers:
            return
        texts: dict[tuple[int | None, bool], tuple[str, str]] = {}

        def sent(page) -> tuple[str, str]:
            kind = (page.seat if self.shown.state.views else None, page.virtual)
            if kind not in texts:
                texts[kind] = self.sent(*kind)
            return texts[kind]

        self.hub.show(sent)

    def public_base(self) -> str:
        panel = self.service.config.panel
        return public_base(panel.public_url, panel.host, panel.port, panel.scheme)
