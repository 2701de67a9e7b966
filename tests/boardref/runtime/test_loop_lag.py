"""The loop-lag timer's figures: over all its samples, or over those taken after a
mark (a bench's game, from its first move), on a loop whose clock the test moves."""

from __future__ import annotations

from boardref.runtime.loop_lag import LoopLag


class Clock:
    """A loop's ``time`` and ``call_at``, the test deciding when the timer fires."""

    def __init__(self):
        self.now, self.due = 0.0, None

    def time(self) -> float:
        return self.now

    def call_at(self, due, callback, *args):
        self.due = (due, callback, args)

    def fire(self, late_s: float) -> None:
        due, callback, args = self.due
        self.now = due + late_s
        callback(*args)


def test_figures_after_a_mark_leave_out_the_stall_before_it():
    clock = Clock()
    lag = LoopLag(clock, 0.05)
    lag.start()
    clock.fire(0.3)  # the loop held while the page loaded
    clock.fire(0.0)
    mark = lag.figures()["taken"]
    for late in (0.001, 0.002, 0.004):
        clock.fire(late)
    assert lag.figures()["max_ms"] == 300.0 and lag.figures()["samples"] == 5
    game = lag.figures(after=mark)
    assert game == {"taken": 5, "samples": 3, "p50_ms": 2.0, "p99_ms": 4.0, "max_ms": 4.0}


def test_a_mark_past_every_sample_gives_no_figures():
    clock = Clock()
    lag = LoopLag(clock, 0.05)
    lag.start()
    clock.fire(0.01)
    assert lag.figures(after=1) == {"taken": 1, "samples": 0}
