"""The shared DRAM port: one SimPy Resource that every DMA channel of every core contends for."""

from __future__ import annotations

import simpy

BURST_BEATS = 16  # beats a channel holds the port for before others may interleave


class DramPort:
    """DRAM data beats are serialized on one port of `bytes_per_cycle`; transfers interleave by bursts.

    A transfer's beats are split into bursts of at most `burst_beats` cycles; each burst takes
    the port (FIFO), so concurrent transfers share the bandwidth instead of ignoring each other.
    """

    def __init__(self, env: simpy.Environment, bytes_per_cycle: int,
                 burst_beats: int = BURST_BEATS):
        if burst_beats < 1:
            raise ValueError(f"burst_beats must be >= 1, got {burst_beats}")
        self.env = env
        self.bytes_per_cycle = bytes_per_cycle
        self.burst_beats = burst_beats
        self.port = simpy.Resource(env, capacity=1)
        self.busy_cycles = 0
        self.bytes = {"read": 0, "write": 0}

    def beats(self, nbytes: int) -> int:
        return -(-nbytes // self.bytes_per_cycle)

    def transfer(self, nbytes: int, direction: str):
        """SimPy process body: move `nbytes` over the port; returns the cycles spent waiting.

        Between bursts the port is handed over only if someone is queued for it; keeping it
        otherwise is the same schedule as release-and-re-request, with two fewer events a burst.
        """
        env, port = self.env, self.port
        remaining = self.beats(nbytes)
        stalled = 0
        self.bytes[direction] += nbytes
        self.busy_cycles += remaining
        while remaining:
            req = port.request()
            if not req.triggered:  # a free port is granted at once: no event to wait for
                t0 = env.now
                yield req
                stalled += env.now - t0
            while True:
                burst = min(remaining, self.burst_beats)
                yield env.timeout(burst)
                remaining -= burst
                if not remaining or port.queue:
                    break
            port.release(req)
        return stalled
