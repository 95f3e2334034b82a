"""Where points are evaluated: in this process, in J local worker processes, or on a Dask
distributed cluster. Workers only compute and return records; the driver owns the storage."""

from __future__ import annotations

import signal
import uuid

from npusim.dse.errors import DseError
from npusim.dse.evaluate import evaluate

MAX_ATTEMPTS = 3  # a point whose worker process dies this often is stored as failed


def _dead(task: dict, why: str) -> dict:
    return {"number": task["number"], "key": task["key"], "target": task["target"],
            "status": "failed", "reason": why, "values": {}, "per": {}, "constraints": [],
            "details": {}, "provenance": {}, "worker": None, "wall_s": None, "cpu_s": None}


class Serial:
    """Evaluate in this process, one at a time (--jobs 1), with `evaluate` or another function
    of a task (a benchmark replaying stored records)."""

    workers = 1

    def __init__(self, function=evaluate):
        self._function = function
        self._queue: list = []

    def submit(self, task: dict) -> None:
        self._queue.append(task)

    def in_flight(self) -> int:
        return len(self._queue)

    def wait(self, timeout: float) -> list:
        if not self._queue:
            return []
        task = self._queue.pop(0)
        return [(task, self._function(task))]

    def close(self) -> None:
        self._queue.clear()


def _ignore_sigint() -> None:
    # Ctrl-C is the driver's to handle: it stops the pool and keeps what finished
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Pool:
    """J local worker processes (spawned: a worker never inherits the driver's database
    connections); a worker that dies has its points run again on a fresh pool."""

    def __init__(self, jobs: int):
        self.workers = jobs
        self._futures: dict = {}
        self._attempts: dict = {}
        self._pool = self._start()

    def _start(self):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_ignore_sigint)

    def submit(self, task: dict) -> None:
        self._futures[self._pool.submit(evaluate, task)] = task

    def in_flight(self) -> int:
        return len(self._futures)

    def wait(self, timeout: float) -> list:
        from concurrent.futures import FIRST_COMPLETED
        from concurrent.futures import wait as wait_any
        from concurrent.futures.process import BrokenProcessPool
        if not self._futures:
            return []
        done, _ = wait_any(list(self._futures), timeout=timeout, return_when=FIRST_COMPLETED)
        out, broken = [], False
        for f in done:
            task = self._futures.pop(f)
            try:
                out.append((task, f.result()))
            except BrokenProcessPool:
                broken = True
                self._retry(task, out)
        if broken:  # every other point in flight was lost with the pool as well
            lost = list(self._futures.values())
            self._futures.clear()
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._start()
            for task in lost:
                self._retry(task, out)
        return out

    def _retry(self, task: dict, out: list) -> None:
        n = self._attempts[task["number"]] = self._attempts.get(task["number"], 0) + 1
        if n >= MAX_ATTEMPTS:
            out.append((task, _dead(task, f"a worker process died {n} times evaluating it")))
        else:
            self.submit(task)

    def close(self) -> None:
        processes = list(getattr(self._pool, "_processes", {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:  # the points in flight stay RUNNING in storage: resumed next run
            if p.is_alive():
                p.terminate()
        self._futures.clear()


class Dask:
    """A Dask distributed cluster (`dask scheduler` + `dask worker`s, each with this npusim
    installed); Dask itself re-runs the point of a worker that dies."""

    def __init__(self, address: str, timeout_s: float = 30):
        try:
            from distributed import Client
        except ImportError:
            raise DseError("--dask needs the distributed package: pip install 'npusim[dse]'") \
                from None
        try:
            self._client = Client(address, timeout=timeout_s, set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise DseError(f"no Dask scheduler answers at {address!r} ({e}); start one with "
                           "`dask scheduler` and workers with `dask worker ADDRESS`") from None
        self.workers = max(1, sum(self._client.nthreads().values()))
        self._futures: dict = {}

    def submit(self, task: dict) -> None:
        key = f"npusim-dse-{task['key'][:12]}-{uuid.uuid4().hex[:8]}"
        self._futures[self._client.submit(evaluate, task, key=key, pure=False)] = task

    def in_flight(self) -> int:
        return len(self._futures)

    def wait(self, timeout: float) -> list:
        import time
        if not self._futures:
            return []
        t_end = time.monotonic() + timeout
        while True:  # poll: distributed.wait needs a default client, and this one is not
            done = [f for f in self._futures if f.done()]
            if done or time.monotonic() >= t_end:
                break
            time.sleep(0.02)
        out = []
        for f in done:
            task = self._futures.pop(f)
            try:
                out.append((task, f.result()))
            except Exception as e:  # noqa: BLE001 - KilledWorker after Dask's own retries
                out.append((task, _dead(task, f"dask: {type(e).__name__}: {e}")))
        return out

    def close(self) -> None:
        for f in list(self._futures):
            f.cancel()
        self._futures.clear()
        self._client.close()


def executor(jobs: int = 1, dask: str | None = None):
    if dask:
        return Dask(dask)
    return Pool(jobs) if jobs > 1 else Serial()
