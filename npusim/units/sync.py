"""SimPy's Store, Container and capacity-1 Resource for the model: the same order, fewer events.

Each class keeps the semantics of the SimPy resource it replaces, including the order in which
things happen within one cycle, but schedules an event only where a process waits or a waiter
must be woken. SimPy schedules one event per put, get, request and release even when nobody
yields it; such an event runs only its resource's trigger callback, which has nothing to do
when nobody waits, so dropping it changes no other event's order (SimPy orders events of one
cycle by when they were scheduled). Where somebody does wait, the wake-up takes the same hops
as in SimPy: a put into a Store or Container serves a waiting get one event later (the put's
event), whose own event then resumes the getter; a release serves a waiting request one event
later, whose event resumes the requester. docs/timing.md ("Events") has the argument.
"""

from __future__ import annotations

from collections import deque

from simpy.events import Event


def after_event(env, callback) -> None:
    """Run callback once an event scheduled now is processed (the hop SimPy's put/release take)."""
    ev = Event(env)
    ev.callbacks.append(callback)
    ev.succeed()


class InstrQueue:
    """A unit's instruction queue: a simpy.Store of `capacity` items with one getter (the unit)
    and one putter (the dispatcher)."""

    def __init__(self, env, capacity: int):
        self.env = env
        self.capacity = capacity
        self.items = deque()
        self.getter: Event | None = None   # the idle unit's wake-up
        self.putter: tuple | None = None   # (event, item) of a dispatch waiting for room

    def __len__(self) -> int:
        return len(self.items)

    def put(self, item):
        """Enqueue now and return None, or (queue full) return the event to wait on."""
        if len(self.items) < self.capacity:
            self.items.append(item)
            if self.getter is not None:  # SimPy: the put's event serves the waiting get
                after_event(self.env, self._serve_getter)
            return None
        ev = Event(self.env)
        ev.callbacks.append(self._serve_getter)  # a Store put's own trigger, before the putter
        self.putter = (ev, item)
        return ev

    def get(self):
        """The next item now, or None: then wait on `wait()`, whose value is the item."""
        if self.items:
            item = self.items.popleft()
            if self.putter is not None:  # SimPy: the get's event admits the waiting put
                after_event(self.env, self._admit_putter)
            return item
        return None

    def wait(self) -> Event:
        self.getter = ev = Event(self.env)
        ev.callbacks.append(self._admit_putter)  # a Store get's own trigger, before the getter
        return ev

    def _serve_getter(self, _event) -> None:
        getter = self.getter
        if getter is not None and self.items:
            self.getter = None
            getter.succeed(self.items.popleft())

    def _admit_putter(self, _event) -> None:
        putter = self.putter
        if putter is not None and len(self.items) < self.capacity:
            self.putter = None
            ev, item = putter
            self.items.append(item)
            ev.succeed()


class Semaphore:
    """A counting semaphore: a simpy.Container of `capacity` with put(1)/get(1), FIFO waiters."""

    def __init__(self, env, capacity: int):
        self.env = env
        self.capacity = capacity
        self.level = 0
        self.waiters: deque = deque()

    def put(self) -> None:
        self.level += 1
        if self.waiters:  # SimPy: the put's event serves the waiting gets
            after_event(self.env, self._serve)

    def get(self):
        """None when taken now, else the event a waiter yields (served first come, first served)."""
        if not self.waiters:
            if self.level:
                self.level -= 1
                return None
            ev = Event(self.env)
            self.waiters.append(ev)
            return ev
        ev = Event(self.env)  # older waiters are served first, as a Container's get queue is
        self.waiters.append(ev)
        self._serve(None)
        return None if ev.triggered else ev

    def _serve(self, _event) -> None:
        waiters = self.waiters
        while waiters and self.level:
            self.level -= 1
            waiters.popleft().succeed()


class Port:
    """A simpy.Resource of capacity 1, first come, first served."""

    def __init__(self, env):
        self.env = env
        self.busy = False
        self.queue: deque = deque()   # waiting requests, oldest first

    def request(self):
        """None when granted now, else the event the requester yields."""
        if not self.busy and not self.queue:
            self.busy = True
            return None
        ev = Event(self.env)
        self.queue.append(ev)
        if not self.busy:  # released this cycle, its event not yet run: the oldest goes first
            self._grant()
        return ev

    def release(self) -> None:
        self.busy = False
        if self.queue:  # SimPy: the release's event grants the oldest waiting request
            after_event(self.env, self._on_release)

    def _on_release(self, _event) -> None:
        if self.queue and not self.busy:
            self._grant()

    def _grant(self) -> None:
        self.busy = True
        self.queue.popleft().succeed()
