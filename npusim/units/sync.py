"""The model's queues, semaphores and DRAM port: SimPy's Store, Container and Resource semantics
with an event only where a process waits.

SimPy schedules an event for every put, get, request and release, even when nobody yields it,
and wakes a waiter two events after the put or release that serves it (the put's event runs
the resource's trigger, which then succeeds the waiter's event). Here an operation that does
not wait schedules nothing, and a waiter is woken by one event: its own. What is served, to
whom and in which cycle is the same (first come, first served, in the cycle of the put or
release); only the order of events within a cycle moves. docs/timing.md ("Events") says why
that leaves every cycle unchanged.

Why these are not simpy.Stores (STYLE.md's queues), measured on 02aeb3d's simulator at load 9-12:
InstrQueue as a simpy.Store (deque items; the unit `yield queue.get()` for every entry, the
dispatcher `queue.put` / `yield queue.put` when full) ran `python
experiments/bench_sim_speed.py --baseline HEAD --repeats 3` at 0.45x (conv loop,
timing-only), 0.60x (functional) and 0.61x (ResNet-18 timing-only) of this class's speed,
undoing most of issue 18's gains, and its extra events reorder a same-cycle hand-over enough
to end functional ResNet-18 (64x64) one cycle early (1,443,737 against 1,443,738): the
goldens would move too.
"""

from __future__ import annotations

from collections import deque
from heapq import heappush

from simpy.events import NORMAL, Event


def succeed_later(event: Event, value, delay: int) -> None:
    """Event.succeed(value), processed `delay` cycles from now instead of now."""
    event._ok = True
    event._value = value
    env = event.env
    heappush(env._queue, (env._now + delay, NORMAL, next(env._eid), event))


class InstrQueue:
    """A unit's instruction queue: a simpy.Store of `capacity` entries with one getter (the
    unit) and one putter (the dispatcher). An entry's fourth field is the cycle it enters the
    queue, which the dispatcher may give ahead of time (Dispatcher: issuing ahead)."""

    def __init__(self, env, capacity: int):
        self.env = env
        self.capacity = capacity
        self.items = deque()
        self.getter: Event | None = None   # the idle unit's wake-up
        self.putter: tuple | None = None   # (event, entry) of a dispatch waiting for room

    def __len__(self) -> int:
        return len(self.items)

    def has_room(self) -> bool:
        return len(self.items) < self.capacity

    def put(self, entry) -> None:
        """Enqueue (the caller checked has_room); an idle unit wakes when the entry enters."""
        getter = self.getter
        if getter is not None:
            self.getter = None
            succeed_later(getter, entry, entry[3] - self.env.now)
        else:
            self.items.append(entry)

    def put_wait(self, entry, event: Event | None = None) -> Event:
        """The queue is full now: the returned event (`event`, an armed engine.Alarm, or a new
        one) fires when the unit takes an entry and `entry` has gone in."""
        ev = event or Event(self.env)
        self.putter = (ev, entry)
        return ev

    def get(self):
        """The next entry now, or None: then wait on `wait()`, whose value is the entry."""
        if self.items:
            entry = self.items.popleft()
            putter = self.putter
            if putter is not None:  # room again: the waiting dispatch goes in now
                self.putter = None
                ev, waiting = putter
                self.items.append(waiting)
                succeed_later(ev, None, 0)
            return entry
        return None

    def wait(self, event: Event | None = None) -> Event:
        """The event (`event`, an armed engine.Alarm, or a new one) the next put triggers."""
        self.getter = ev = event or Event(self.env)
        return ev


class Semaphore:
    """A counting semaphore: a simpy.Container of `capacity` with put(1)/get(1), FIFO waiters.

    A waiter may ask to be woken `delay` cycles after the put that serves it (a wait
    instruction's own cycles, which start when the semaphore turns positive): one event,
    scheduled by the put, instead of a wake-up that schedules a timeout. The event's value is
    the cycle of the put; the waiting unit's `waiting` and `blocked` are cleared then.
    """

    def __init__(self, env, capacity: int):
        self.env = env
        self.capacity = capacity
        self.level = 0
        self.waiters: deque = deque()  # (event, delay, unit or None), oldest first
        # on_grant(unit), when set (the race detector): called as a put serves a waiting
        # unit, in the put's cycle, so the wait is ordered after the signal without a
        # wake-up of its own (which would reorder the cycle's events: timing-only and
        # race-checked runs take the same events)
        self.on_grant = None

    def put(self) -> None:
        if self.waiters:  # the oldest waiter takes it now
            ev, delay, unit = self.waiters.popleft()
            if unit is not None:
                unit.waiting = None
                unit.blocked = 0
                if self.on_grant is not None:
                    self.on_grant(unit)
            if delay:
                succeed_later(ev, self.env._now, delay)
            else:
                succeed_later(ev, self.env._now, 0)
        else:
            self.level += 1

    def get(self, delay: int = 0, unit=None):
        """None when taken now, else the event a waiter yields (see the class): the unit's
        armed engine.Alarm when a unit waits."""
        if self.level:
            self.level -= 1
            return None
        ev = unit.alarm.arm() if unit is not None else Event(self.env)
        self.waiters.append((ev, delay, unit))
        return ev


class Port:
    """A simpy.Resource of capacity 1, first come, first served."""

    def __init__(self, env):
        self.env = env
        self.busy = False
        self.queue: deque = deque()   # (event, the requester's tag) of waiting requests, oldest first

    def request(self, tag=None, event: Event | None = None):
        """None when granted now, else the event the requester yields (`event`, an armed
        engine.Alarm, or a new one)."""
        if not self.busy:
            self.busy = True
            return None
        ev = event or Event(self.env)
        self.queue.append((ev, tag))
        return ev

    def release(self) -> None:
        if self.queue:  # handed to the oldest waiting request now
            succeed_later(self.queue.popleft()[0], None, 0)
        else:
            self.busy = False
