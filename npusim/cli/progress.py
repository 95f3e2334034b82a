"""Progress bars on stderr, only on a terminal: one that follows the compiler's stages, and an
elapsed-time ticker for a long call (the simulation, the verification)."""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager


@contextmanager
def stages(enabled: bool):
    """A tqdm bar that follows the compiler's stages; yields the progress callback."""
    from tqdm import tqdm
    bar = tqdm(total=1, file=sys.stderr, disable=None if enabled else True, leave=False,
               unit="layer", desc="compile")

    def step(stage: str, done: int, total: int) -> None:
        if bar.disable:
            return
        if bar.total != total:
            bar.reset(total=total)
        bar.set_description(stage)
        bar.n = done
        bar.refresh()
    try:
        yield step
    finally:
        bar.close()


@contextmanager
def ticking(enabled: bool, desc: str):
    """An elapsed-time bar while a long call runs in this thread."""
    from tqdm import tqdm
    bar = tqdm(total=None, file=sys.stderr, disable=None if enabled else True, leave=False,
               desc=desc, bar_format="{desc}: {elapsed}")
    stop = threading.Event()

    def tick():
        while not stop.wait(0.5):
            bar.refresh()
    ticker = threading.Thread(target=tick, daemon=True)
    if not bar.disable:
        ticker.start()
    try:
        yield
    finally:
        stop.set()
        bar.close()
