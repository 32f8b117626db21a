"""Progress of long steps (done/total, rate, ETA), logged to the terminal and to Prefect."""

from __future__ import annotations

import atexit
import gc
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

logger = logging.getLogger("shelfwise")
# Prefect attaches its handlers to this logger (PREFECT_LOGGING_EXTRA_LOGGERS) but not a level.
logger.setLevel(logging.INFO)


class Progress:
    """Counts work done and logs at most every `every_seconds`, plus once at the end."""

    def __init__(self, label: str, total: int, every_seconds: float = 5.0):
        self.label = label
        self.total = total
        self.done = 0
        self.every_seconds = every_seconds
        self._start = time.perf_counter()
        self._last_report = self._start

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.perf_counter()
        if self.done >= self.total or now - self._last_report >= self.every_seconds:
            self._last_report = now
            logger.info(self.message(now))

    def message(self, now: float | None = None) -> str:
        elapsed = max((now or time.perf_counter()) - self._start, 1e-9)
        rate = self.done / elapsed
        remaining = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta = "done" if self.done >= self.total else f"ETA {remaining:,.0f}s"
        pct = 100.0 * self.done / self.total if self.total else 100.0
        return f"{self.label}: {self.done:,}/{self.total:,} ({pct:.0f}%), {rate:,.1f}/s, {eta}"


@contextmanager
def timed(seconds: dict[str, float], stage: str, log: bool = False) -> Iterator[None]:
    """Add the wall time of the block to seconds[stage] (and log it when asked)."""
    start = time.perf_counter()
    yield
    seconds[stage] = round(seconds.get(stage, 0.0) + time.perf_counter() - start, 3)
    if log:
        logger.info("stage %s: %.2fs", stage, seconds[stage])


def limit_blas_threads(threads: int) -> None:
    """Run NumPy's matrix products on at most this many threads, for the rest of the process."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(threads, user_api="blas")


@contextmanager
def blas_threads(threads: int) -> Iterator[None]:
    """NumPy's matrix products on at most this many threads inside the block (an embedder's batches in it still
    run on the embedder's own threads, which it sets around each)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(threads, user_api="blas"):
        yield


@contextmanager
def long_lived_objects() -> Iterator[None]:
    """Build what a whole run keeps (a catalog's books, their indexes) with the cyclic collector paused.

    Loading 100k books makes millions of objects, none of them garbage: the collector ran full passes over
    all of them while they were made, a third of the load time. Made, they are frozen out of later passes
    too (`gc.freeze`): every full pass of a batch's themes had walked them again.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.collect()  # once, so that no garbage is frozen (0.3 s at 100k books; later passes skip what is frozen)
        gc.freeze()
        # Thawed at exit, so that the interpreter's last pass frees them before extension modules are torn
        # down (DuckDB's bindings report every object of theirs still alive then as leaked).
        atexit.unregister(gc.unfreeze)
        atexit.register(gc.unfreeze)
        if enabled:
            gc.enable()
