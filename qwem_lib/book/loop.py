"""The one training loop of the book's trainers: steps, logs on a schedule, checkpoints, a clean stop.

Every trainer in the book (minibatch SGD on word pairs, gradient descent on the exact expected gradient, the
untied model, the Feature Collapse network) does the same bookkeeping around its own update rule:

* run steps ``start, start + 1, ..., stop - 1`` (a step takes the state from ``s`` to ``s + 1`` steps done);
* after a step, record the logs when the number of steps done is on the log schedule (and at 0, before the
  first step of a fresh run);
* save a checkpoint every ``checkpoint_s`` seconds or every ``checkpoint_every`` steps, so a long run
  resumes where it stopped;
* stop on request (``stop_after``, to test resumption) or on Ctrl-C, saving the state first.

:func:`run_steps` is that loop; the trainer gives it its update (``advance``), its logging (``record``) and
its checkpoint writer (``save``). :class:`Logs` holds the logs, and writes them into and restores them from a
checkpoint. The update rule's arithmetic is the trainer's own, so a run gives the same numbers through this
loop as it would in a hand-written one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

__all__ = ["TrainingInterrupted", "Logs", "run_steps"]


class TrainingInterrupted(InterruptedError):
    """A run stopped before its last step (``stop_after``, or Ctrl-C after its checkpoint was saved); the
    same call with the cache on resumes it from the checkpoint."""


class Logs:
    """Named logs of a run, each a list appended at the logged steps.

    ``logs["sv"].append(x)`` adds a value; :meth:`arrays` gives every log as an array (for the result);
    :meth:`saved` and :meth:`restore` write them into and read them back from a checkpoint's arrays, under
    ``prefix + name``.

    >>> logs = Logs("steps", "loss")
    >>> logs["steps"].append(0); logs["loss"].append(1.5)
    >>> back = Logs("steps", "loss").restore(logs.saved("log_"), "log_")
    >>> back.arrays()["loss"].tolist(), back.arrays()["steps"].dtype.kind
    ([1.5], 'i')
    """

    def __init__(self, *names: str) -> None:
        if not names or len(set(names)) != len(names):
            raise ValueError(f"Logs needs distinct names, got {names!r}")
        self.data: dict[str, list[Any]] = {n: [] for n in names}

    def __getitem__(self, name: str) -> list[Any]:
        return self.data[name]

    def arrays(self) -> dict[str, np.ndarray]:
        """Every log as an array (``steps`` as int64)."""
        return {
            n: np.asarray(v, dtype=np.int64) if n == "steps" else np.asarray(v)
            for n, v in self.data.items()
        }

    def saved(self, prefix: str) -> dict[str, np.ndarray]:
        """The arrays to write into a checkpoint, named ``prefix + name``."""
        return {prefix + n: a for n, a in self.arrays().items()}

    def restore(self, arrays: Mapping[str, np.ndarray], prefix: str) -> Logs:
        """Replace the logs by those a checkpoint holds (a log it lacks starts empty); returns ``self``."""
        for n in self.data:
            a = arrays.get(prefix + n)
            self.data[n] = [] if a is None else list(np.asarray(a))
        return self


def run_steps(
    advance: Callable[[int], None],
    *,
    start: int,
    stop: int,
    log_at: Iterable[int] = (),
    record: Callable[[int], None] | None = None,
    save: Callable[[int], None] | None = None,
    checkpoint_s: float | None = None,
    checkpoint_every: int | None = None,
    stop_after: int | None = None,
    save_on_stop: bool = True,
    desc: str | None = None,
    mininterval: float = 5.0,
    postfix: Callable[[], Mapping[str, str]] | None = None,
) -> int:
    """Run ``advance(s)`` for ``s = start, ..., stop - 1``; returns the number of steps done (``stop``).

    ``advance(s)`` takes the trainer's state from ``s`` to ``s + 1`` steps done, and raises
    ``FloatingPointError`` itself when the state stops being finite (its message says which learning rate to
    lower). ``record(n)`` logs the state after ``n`` steps, for ``n`` in ``log_at`` (``n = 0`` only when the
    run starts from scratch). ``save(n)`` writes a checkpoint of the state after ``n`` steps: every
    ``checkpoint_s`` seconds, every ``checkpoint_every`` steps (never after the last step: the result
    replaces it), and, when ``save_on_stop``, before a stop. ``stop_after``: stop (raising
    :class:`TrainingInterrupted`) once that many steps are done, counted from 0. On Ctrl-C the state of the
    last finished step is saved (when ``save_on_stop``) and ``KeyboardInterrupt`` re-raised; a trainer
    whose step updates its state in place in several parts passes ``save_on_stop=False``. ``desc``: show a
    progress bar with that label (``postfix()`` adds to it after each record).

    >>> state = {"x": 1.0}
    >>> def halve(s):
    ...     state["x"] /= 2
    >>> seen = []
    >>> run_steps(halve, start=0, stop=3, log_at=(0, 3), record=lambda n: seen.append((n, state["x"])))
    3
    >>> seen
    [(0, 1.0), (3, 0.125)]
    """
    start, stop = int(start), int(stop)
    if not 0 <= start <= stop:
        raise ValueError(f"run_steps needs 0 <= start <= stop, got start={start}, stop={stop}")
    if checkpoint_every is not None and (
        int(checkpoint_every) != checkpoint_every or checkpoint_every < 1
    ):
        raise ValueError(
            f"checkpoint_every must be None or a positive integer, got {checkpoint_every!r}"
        )
    if checkpoint_s is not None and not checkpoint_s >= 0:
        raise ValueError(f"checkpoint_s must be None or >= 0 seconds, got {checkpoint_s!r}")
    log_set = {int(n) for n in log_at}
    steps: Iterable[int] = range(start, stop)
    bar: Any = None
    if desc is not None:
        from tqdm.auto import tqdm

        bar = tqdm(steps, desc=desc, mininterval=mininterval)
        steps = bar
    done = start
    last_save = time.time()
    try:
        if start == 0 and 0 in log_set and record is not None:
            record(0)
        for s in steps:
            if stop_after is not None and s >= stop_after:
                if save is not None and save_on_stop:
                    save(s)
                raise TrainingInterrupted(f"stopped after {s} of {stop} steps")
            advance(s)
            done = s + 1
            if done in log_set and record is not None:
                record(done)
                if bar is not None and postfix is not None:
                    bar.set_postfix(postfix())
            if save is None or done >= stop:
                continue
            if (checkpoint_every is not None and done % checkpoint_every == 0) or (
                checkpoint_s is not None and time.time() - last_save > checkpoint_s
            ):
                save(done)
                last_save = time.time()
    except KeyboardInterrupt:
        if save is not None and save_on_stop:
            save(done)
        raise
    finally:
        if bar is not None:
            bar.close()
    return done
