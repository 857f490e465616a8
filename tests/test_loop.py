"""Unit tests of qwem_lib.book.loop, the one training loop of the book's trainers: the log schedule, the
checkpoints (by count and by time), a requested stop and Ctrl-C, resumption, and the input checks. Each is
checked against the steps a hand-written loop would take (a counter whose state is the number of steps)."""

from __future__ import annotations

import numpy as np
import pytest

from qwem_lib.book import loop
from qwem_lib.book.loop import Logs, TrainingInterrupted, run_steps


class Counter:
    """A trainer whose state is the number of steps it has taken: every call is easy to predict."""

    def __init__(self, at: int = 0) -> None:
        self.n = at
        self.records: list[tuple[int, int]] = []
        self.saves: list[tuple[int, int]] = []

    def advance(self, s: int) -> None:
        assert s == self.n, "a step starts from the state of the steps done"
        self.n += 1

    def record(self, n: int) -> None:
        self.records.append((n, self.n))

    def save(self, n: int) -> None:
        self.saves.append((n, self.n))


def test_logs_at_the_schedule_and_at_zero_only_from_scratch():
    c = Counter()
    assert run_steps(c.advance, start=0, stop=10, log_at=[0, 3, 10, 99], record=c.record) == 10
    assert c.records == [(0, 0), (3, 3), (10, 10)]  # a log step past the end is never reached
    r = Counter(4)  # a resumed run does not log step 0 again, nor the steps before its start
    run_steps(r.advance, start=4, stop=10, log_at=[0, 3, 6], record=r.record)
    assert r.records == [(6, 6)] and r.n == 10


def test_checkpoints_every_k_steps_never_after_the_last():
    c = Counter()
    run_steps(c.advance, start=0, stop=10, save=c.save, checkpoint_every=3)
    assert c.saves == [(3, 3), (6, 6), (9, 9)]
    d = Counter()
    run_steps(d.advance, start=0, stop=9, save=d.save, checkpoint_every=3)
    assert d.saves == [(3, 3), (6, 6)]  # not at 9: the result replaces the checkpoint there


def test_checkpoints_by_time(monkeypatch):
    """A save when more than checkpoint_s seconds have passed since the last one (or the start): with a clock
    that moves one second at each reading, checkpoint_s=2 saves after steps 3 and 6 (a save at exactly 2
    seconds, or at every step, would give other steps)."""

    def ticking(start: float = 0.0):
        clock = iter(np.arange(start, start + 100.0, 1.0))
        monkeypatch.setattr(loop.time, "time", lambda: float(next(clock)))

    ticking()
    c = Counter()
    run_steps(c.advance, start=0, stop=8, save=c.save, checkpoint_s=2.0)
    assert c.saves == [(3, 3), (6, 6)]
    ticking(1e9)  # the clock's origin does not matter, only the time since the last save
    d = Counter()
    run_steps(d.advance, start=0, stop=8, save=d.save, checkpoint_s=2.0)
    assert d.saves == [(3, 3), (6, 6)]
    ticking()
    e = Counter()
    run_steps(e.advance, start=0, stop=4, save=e.save, checkpoint_s=0.0)  # 0 s: after every step
    assert e.saves == [(1, 1), (2, 2), (3, 3)]
    f = Counter()
    run_steps(f.advance, start=0, stop=8, save=f.save, checkpoint_s=None)
    assert f.saves == []


def test_a_requested_stop_saves_then_raises_and_the_run_resumes_to_the_same_end():
    c = Counter()
    with pytest.raises(TrainingInterrupted, match="after 4 of 10"):
        run_steps(c.advance, start=0, stop=10, log_at=[0, 5, 10], record=c.record, save=c.save,
                  stop_after=4)  # fmt: skip
    assert c.n == 4 and c.saves == [(4, 4)] and c.records == [(0, 0)]
    run_steps(c.advance, start=c.saves[-1][0], stop=10, log_at=[0, 5, 10], record=c.record)
    assert c.n == 10 and c.records == [(0, 0), (5, 5), (10, 10)]
    k = Counter()  # a simulated kill: no save
    with pytest.raises(InterruptedError):
        run_steps(k.advance, start=0, stop=10, save=k.save, stop_after=4, save_on_stop=False)
    assert k.saves == [] and k.n == 4


def test_ctrl_c_saves_the_last_finished_step_and_re_raises():
    for save_on_stop, expected in ((True, [(6, 6)]), (False, [])):
        c = Counter()

        def advance(s: int, c: Counter = c) -> None:
            if s == 6:
                raise KeyboardInterrupt
            c.advance(s)

        with pytest.raises(KeyboardInterrupt):
            run_steps(advance, start=0, stop=10, save=c.save, save_on_stop=save_on_stop)
        assert c.saves == expected and c.n == 6


def test_a_non_finite_step_stops_the_run_with_the_trainers_message():
    def advance(s: int) -> None:
        if s == 2:
            raise FloatingPointError("W became non-finite at step 3; lower the learning rate")

    saves: list[int] = []
    with pytest.raises(FloatingPointError, match="lower the learning rate"):
        run_steps(advance, start=0, stop=5, save=saves.append, checkpoint_every=1)
    assert saves == [1, 2]  # the diverged state is never saved


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(start=-1, stop=3), "start"),
        (dict(start=4, stop=3), "start"),
        (dict(start=0, stop=3, checkpoint_every=0), "checkpoint_every"),
        (dict(start=0, stop=3, checkpoint_every=1.5), "checkpoint_every"),
        (dict(start=0, stop=3, checkpoint_s=-1.0), "checkpoint_s"),
        (dict(start=0, stop=3, checkpoint_s=float("nan")), "checkpoint_s"),
    ],
)
def test_inputs_are_checked(kw, msg):
    with pytest.raises(ValueError, match=msg):
        run_steps(lambda s: None, **kw)


def test_a_progress_bar_runs_the_same_steps():
    c = Counter()
    run_steps(
        c.advance,
        start=0,
        stop=4,
        log_at=[2],
        record=c.record,
        desc="test",
        postfix=lambda: {"n": "x"},
    )
    assert c.n == 4 and c.records == [(2, 2)]


def test_logs_round_trip_through_a_checkpoint():
    logs = Logs("steps", "sv", "loss")
    for s in (0, 5):
        logs["steps"].append(s)
        logs["sv"].append(np.array([2.0, 1.0]) * (s + 1))
        logs["loss"].append(float(s) / 3)
    back = Logs("steps", "sv", "loss", "extra").restore(logs.saved("log_"), "log_")
    for name, a in logs.arrays().items():
        np.testing.assert_array_equal(back.arrays()[name], a)
    assert back.arrays()["steps"].dtype == np.int64 and back["extra"] == []
    assert set(logs.saved("h_")) == {"h_steps", "h_sv", "h_loss"}
    with pytest.raises(ValueError, match="distinct"):
        Logs("a", "a")
    with pytest.raises(ValueError, match="distinct"):
        Logs()


def test_an_empty_run_and_a_first_step_interrupted():
    c = Counter(3)
    assert (
        run_steps(c.advance, start=3, stop=3, log_at=[3], record=c.record) == 3 and c.records == []
    )
    d = Counter(2)

    def advance(s: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_steps(advance, start=2, stop=5, save=d.save)
    assert d.saves == [(2, 2)]  # nothing done in this call: the state of its start is saved


def test_the_progress_bar_shows_the_postfix_after_each_record():
    c, shown = Counter(), []

    def postfix() -> dict[str, str]:
        shown.append(c.n)
        return {"n": str(c.n)}

    run_steps(
        c.advance, start=0, stop=6, log_at=[2, 4], record=c.record, desc="test", postfix=postfix
    )
    assert shown == [2, 4]
    shown.clear()
    run_steps(
        Counter().advance, start=0, stop=6, log_at=[2], record=lambda n: None, postfix=postfix
    )
    assert shown == []  # no bar, no postfix


def test_logs_arrays_keep_their_types():
    logs = Logs("steps", "loss")
    a = logs.arrays()
    assert a["steps"].dtype == np.int64 and a["steps"].shape == (0,)  # even when empty
    logs["steps"].append(3)
    logs["loss"].append(1.5)
    a = logs.arrays()
    assert (
        a["steps"].dtype == np.int64
        and a["loss"].tolist() == [1.5]
        and a["loss"].dtype == np.float64
    )
