"""PendingConstants: a graph's constant arrays filled by a background thread while the front
half's first passes and calibration run (the zoo's weight draws: compiler.zoo.params).

Every pending array is allocated up front (its shape and dtype are known, so the graph, its
types and every structural rewrite can be built at once) and filled by exactly the numpy
calls that would have filled it in line, so the values are the same bytes. One worker runs
the jobs: the ordered ones (draws from one generator: their order is their values) strictly
in turn, and before each a derived one (a pass's fold or copy of pending arrays, added as
the pass meets it) whose inputs are ready, so the constants a calibration sample needs next
appear as early as possible. A reader waits for the arrays it reads (wait), a pass that does
not know about pending arrays runs after all of them (compiler.passes.base.PassManager), and
a job's exception is raised in every thread that waits afterwards (and in wait_all), as the
same exception the in-line call would have raised."""

from __future__ import annotations

import threading
from collections import deque


class PendingConstants:
    """Jobs that fill arrays, run by one worker thread once start() is called."""

    def __init__(self):
        self._ordered: deque = deque()   # (outputs, fn): run in turn
        self._derived: list = []         # (inputs, outputs, fn): run once inputs are ready
        self._pending: set = set()       # id() of every array not filled yet
        self._cond = threading.Condition()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._closed = False             # start() called: no more ordered jobs

    # ------------------------------------------------------------- adding work
    def add(self, outputs: list, fn) -> None:
        """An ordered job: fn() fills `outputs` (allocated by the caller), after every
        ordered job added before it."""
        with self._cond:
            if self._closed:
                raise RuntimeError("ordered jobs are added before start()")
            self._ordered.append((outputs, fn))
            self._pending.update(id(a) for a in outputs)

    def derive(self, inputs: list, outputs: list, fn) -> None:
        """fn() fills `outputs` from `inputs` (arrays, pending or not) once they are filled;
        run at once, in this thread, when none is pending any more."""
        with self._cond:
            if self._error is None and any(self._is_pending(a) for a in inputs):
                self._derived.append((list(inputs), outputs, fn))
                self._pending.update(id(a) for a in outputs)
                self._cond.notify_all()
                return
        self.wait(*inputs)  # raises a job's error, as reading the inputs in line would
        fn()

    def queued(self) -> bool:
        """Whether any array is still to be filled."""
        with self._cond:
            return bool(self._pending)

    def start(self) -> None:
        with self._cond:
            self._closed = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, daemon=True,
                                                name="npusim-constants")
                self._thread.start()

    # ------------------------------------------------------------- waiting
    def is_pending(self, array) -> bool:
        with self._cond:
            return self._is_pending(array)

    def _is_pending(self, a) -> bool:
        # a view (a reshape, a transpose) of a pending array is pending too: numpy's .base
        # is the array that owns the memory
        return id(a) in self._pending or \
            (getattr(a, "base", None) is not None and id(a.base) in self._pending)

    def wait(self, *arrays) -> None:
        """Return once every one of `arrays` is filled; raise the job's error if one failed."""
        with self._cond:
            while True:
                if self._error is not None:
                    raise self._error
                if not any(self._is_pending(a) for a in arrays):
                    return
                self._cond.wait()

    def wait_all(self) -> None:
        """Return once every job has run (the worker has finished); raise a job's error."""
        with self._cond:
            while self._error is None and self._pending:
                self._cond.wait()
            if self._error is not None:
                raise self._error

    # ------------------------------------------------------------- the worker
    def _next(self):
        """The next job to run (a ready derived one first), or None when all are done."""
        with self._cond:
            while True:
                for k, (inputs, outputs, fn) in enumerate(self._derived):
                    if not any(self._is_pending(a) for a in inputs):
                        del self._derived[k]
                        return outputs, fn
                if self._ordered:
                    return self._ordered.popleft()
                if not self._derived:
                    return None  # all filled; a later derive() runs in its caller
                # derived jobs whose inputs no job will fill: a bug, not a wait forever
                self._error = RuntimeError(
                    "pending constants: a derived job waits for arrays no job fills")
                self._derived.clear()
                self._cond.notify_all()
                return None

    def _work(self) -> None:
        while True:
            job = self._next()
            if job is None:
                return
            outputs, fn = job
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 -- handed to every waiting reader
                with self._cond:
                    self._error = exc
                    self._ordered.clear()
                    self._derived.clear()
                    self._cond.notify_all()
                return
            with self._cond:
                self._pending.difference_update(id(a) for a in outputs)
                self._cond.notify_all()

    def __reduce__(self):
        # a graph pickled (a cache entry) after its constants are filled keeps no worker
        self.wait_all()
        return (_filled, ())


def _filled() -> None:
    return None


def pending_of(graph) -> PendingConstants | None:
    """The graph's PendingConstants, or None (every constant is filled)."""
    return getattr(graph, "pending", None)


def wait_for(graph, names) -> None:
    """Wait until the graph's constants among `names` are filled (no-op for other names)."""
    pending = pending_of(graph)
    if pending is not None:
        consts = graph.constants
        pending.wait(*(consts[v] for v in names if v in consts))


def fill(graph, inputs: list, outputs: list, fn) -> None:
    """fn() fills `outputs` from `inputs`: now, or, where an input is a pending constant of
    `graph`, once the inputs are filled (PendingConstants.derive)."""
    pending = pending_of(graph)
    if pending is None:
        fn()
    else:
        pending.derive(inputs, outputs, fn)
