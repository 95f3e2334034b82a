"""The model's SimPy Environment: SimPy's own event loop and Timeout, with less Python per event."""

from __future__ import annotations

from heapq import heappop, heappush

import simpy
from simpy.core import StopSimulation
from simpy.events import NORMAL, PENDING, URGENT, Event, Process, Timeout


class _Process(Process):
    """simpy.Process with `_resume` leaner per yield: one bound method registered on every
    event it waits for (SimPy's builds a new one per yield) and the generator's `send` looked
    up once. The same protocol: a yielded event gets the process as a callback, a finished or
    failed generator triggers the process, exceptions are thrown in as SimPy throws them."""

    def __init__(self, env, generator):
        super().__init__(env, generator)
        self._wake = self._resume
        self._send = generator.send

    def _resume(self, event: Event) -> None:
        env = self.env
        env._active_proc = self
        while True:
            try:
                if event._ok:
                    event = self._send(event._value)
                else:  # as SimPy: the process handles the failed event or fails itself
                    event._defused = True
                    exc = type(event._value)(*event._value.args)
                    exc.__cause__ = event._value
                    event = self._generator.throw(exc)
            except StopIteration as e:
                event = None
                self._ok = True
                self._value = e.args[0] if len(e.args) else None
                env.schedule(self)
                break
            except BaseException as e:
                event = None
                self._ok = False
                e.__traceback__ = e.__traceback__.tb_next
                self._value = e
                env.schedule(self)
                break
            try:
                callbacks = event.callbacks
            except AttributeError:
                raise RuntimeError(f"Invalid yield value {event!r} in {self._desc()}") from None
            if callbacks is not None:  # not yet processed: resume when it is
                callbacks.append(self._wake)
                break
        self._target = event
        env._active_proc = None


class Alarm(Timeout):
    """A Timeout one process re-arms for each of its sleeps: `yield alarm.set(cycles)`, or
    `yield alarm.arm()` for an event another process triggers (a queue, semaphore or port
    hands it over with units.sync.succeed_later).

    SimPy's events fire once; a process that waits on one event at a time can reuse one,
    re-armed after it fired (set() and arm() refuse an armed one), which spares an allocation
    per wait. Scheduled as a fresh event is (time, NORMAL, next event id): the same order."""

    def __init__(self, env):
        self.env = env
        self.callbacks = None  # processed: free to arm
        self._ok = True
        self._value = None
        self._delay = 0

    def set(self, delay: int) -> Alarm:
        if self.callbacks is not None:
            raise RuntimeError("Alarm.set: already armed (its process sleeps on it)")
        if delay < 0:
            raise ValueError(f"Negative delay {delay}")
        self.callbacks = []
        self._delay = delay
        self._value = None
        env = self.env
        heappush(env._queue, (env._now + delay, NORMAL, next(env._eid), self))
        return self

    def arm(self) -> Alarm:
        """Armed, not scheduled: the process that hands over what it waits for triggers it."""
        if self.callbacks is not None:
            raise RuntimeError("Alarm.arm: already armed (its process waits on it)")
        self.callbacks = []
        self._value = PENDING
        return self


class Engine(simpy.Environment):
    """simpy.Environment with `run()` stepping in one loop (Environment.step inlined: a
    function call and an exception frame less per event), `timeout()` building its Timeout
    without Timeout.__init__'s call into `schedule()`, and processes resumed by `_Process`. Events, their order (time,
    priority, scheduling order) and every callback are SimPy's (docs/timing.md, "Events")."""

    def process(self, generator) -> Process:
        return _Process(self, generator)

    def timeout(self, delay: int = 0, value=None) -> Timeout:
        if delay < 0:
            raise ValueError(f"Negative delay {delay}")
        ev = Timeout.__new__(Timeout)
        ev.env = self
        ev.callbacks = []
        ev._value = value
        ev._delay = delay
        ev._ok = True
        heappush(self._queue, (self._now + delay, NORMAL, next(self._eid), ev))
        return ev

    def run(self, until=None):
        """Environment.run: until None (no events left) or a cycle (events at it still run)."""
        if until is not None:  # as SimPy: an URGENT event at `until` stops the loop
            if isinstance(until, Event):
                raise TypeError("Engine.run takes a cycle or None")
            if until <= self._now:
                raise ValueError(f"until ({until}) must be greater than the current "
                                 "simulation time")
            stop = Event(self)
            stop._ok = True
            stop._value = None
            self.schedule(stop, URGENT, until - self._now)
            stop.callbacks.append(StopSimulation.callback)
        queue = self._queue
        try:
            while queue:
                # Environment.step, inline
                self._now, _, _, event = heappop(queue)
                callbacks, event.callbacks = event.callbacks, None
                for callback in callbacks:
                    callback(event)
                if not event._ok and not hasattr(event, "_defused"):
                    exc = type(event._value)(*event._value.args)
                    exc.__cause__ = event._value
                    raise exc
        except StopSimulation as exc:
            return exc.args[0]
        return None


__all__ = ["Alarm", "Engine"]
