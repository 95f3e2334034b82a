"""The shared DRAM port: one capacity-1 resource that every DMA channel of every core contends for."""

from __future__ import annotations

import simpy
from simpy.events import Event

from npusim.units.sync import Port, succeed_later

BURST_BEATS = 16  # beats a channel holds the port for before others may interleave


class DramPort:
    """DRAM data beats are serialized on one port of `bytes_per_cycle`; transfers interleave by bursts.

    A transfer's beats are cut into bursts of `burst_beats` cycles. The port is granted first
    come, first served; the holder hands it over at the end of its first burst that ends at or
    after the cycle another channel asked for it (it always completes at least one burst), and
    otherwise keeps it. Concurrent transfers therefore share the bandwidth burst by burst.
    """

    def __init__(self, env: simpy.Environment, bytes_per_cycle: int,
                 burst_beats: int = BURST_BEATS):
        if burst_beats < 1:
            raise ValueError(f"burst_beats must be >= 1, got {burst_beats}")
        self.env = env
        self.bytes_per_cycle = bytes_per_cycle
        self.burst_beats = burst_beats
        self.port = Port(env)  # a simpy.Resource(capacity=1) with fewer events (units.sync)
        self.busy_cycles = 0
        self.bytes = {"read": 0, "write": 0}
        self._preempt = None  # fires when someone queues behind a holder running many bursts

    def beats(self, nbytes: int) -> int:
        return -(-nbytes // self.bytes_per_cycle)

    def transfer(self, nbytes: int, direction: str, alarm=None):
        """SimPy process body: move `nbytes` over the port; returns the cycles spent waiting.
        `alarm`: the calling process's engine.Alarm, re-armed for its sleeps and port waits.

        A holder with many bursts left and nobody waiting sleeps until its last beat, woken early
        only when a request arrives: a few events per transfer instead of one per burst. A
        waiting transfer handed the port for one burst sleeps through it (_release).
        """
        env, port, burst = self.env, self.port, self.burst_beats
        sleep = alarm.set if alarm is not None else env.timeout
        remaining = self.beats(nbytes)
        stalled = 0
        self.bytes[direction] += nbytes
        self.busy_cycles += remaining
        while remaining:
            # held: wait on the channel's own alarm (armed only when it will wait)
            req = port.request(remaining, alarm.arm() if port.busy and alarm is not None
                               else None)
            if req is not None:  # the port is held: ask the holder to stop at a burst end
                if self._preempt is not None:
                    self._wake_holder()
                t0 = env._now
                handed = yield req
                if handed is not None:  # granted at `handed`, its burst of `step` ran since
                    granted, step = handed
                    stalled += granted - t0
                    remaining -= step
                    self._release(remaining)
                    continue
                stalled += env._now - t0
            if remaining <= burst or port.queue:
                step = min(remaining, burst)
                yield sleep(step)
            else:
                start = env._now
                # asleep until its last beat, or woken by a request (_wake_holder)
                self._preempt = last = env.timeout(remaining)
                preempted = yield last
                self._preempt = None
                step = remaining
                if preempted:  # finish the burst in progress, then hand over
                    step = min(remaining, max(burst, -(-(env._now - start) // burst) * burst))
                    if start + step > env._now:
                        yield sleep(start + step - env._now)
            remaining -= step
            self._release(remaining)
        return stalled

    def _wake_holder(self) -> None:
        """A request meets a holder asleep until its last beat: it wakes now (value True),
        its timeout left to fire with nobody waiting on it."""
        last, self._preempt = self._preempt, None
        wake = Event(self.env)
        wake.callbacks, last.callbacks = last.callbacks, []
        wake.succeed(True)

    def _release(self, left: int) -> None:
        """The holder ends a burst with `left` beats to go (it asks again at once if any).

        The oldest waiting transfer gets the port now. When it will surely run one burst
        (its last, or others wait: the holder asking again, or a third), it is woken once,
        at that burst's end, with (cycle granted, beats), rather than woken now to start a
        burst timeout: a burst instead of two events per hand-over between two channels.
        """
        port = self.port
        if not port.queue:
            port.busy = False
            return
        ev, remaining = port.queue.popleft()
        burst = self.burst_beats
        if remaining <= burst or left or port.queue:
            step = min(remaining, burst)
            succeed_later(ev, (self.env._now, step), step)
        else:  # it may hold the port for longer: it decides when it wakes (transfer)
            succeed_later(ev, None, 0)
