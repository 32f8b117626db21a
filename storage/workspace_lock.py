"""The workspace's write lock: one writer at a time, and a waiter can say whom it waits for.

Every command or flow run that writes the workspace (catalog, themes, indexes, shelves) holds an
exclusive flock on `<workspace>/write.lock` and writes into it who it is. DuckDB allows one writing
process, so without the lock a second writer would die on "Conflicting lock is held". The lock is
re-entrant within a process and per thread: `shelfwise run` holds it, and the flow run it starts
inside the same thread goes on; another thread of the same process waits like another process.
The kernel drops the lock when its holder dies, even by kill -9.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

LOCK_FILE = "write.lock"
POLL_SECONDS = 0.2


class WorkspaceBusy(RuntimeError):
    """The workspace stayed locked by another writer for longer than the caller would wait."""


@dataclass(frozen=True)
class Holder:
    """Who holds (or last held) the lock, as the holder wrote it."""

    what: str  # "the nightly run", "`shelfwise index build`"
    pid: int
    since: datetime

    def describe(self) -> str:
        return f"{self.what} (pid {self.pid}, since {self.since:%Y-%m-%d %H:%M:%S})"


class _Held(threading.local):
    """This thread's hold on each workspace lock: the open file and how deep the nesting is."""

    def __init__(self) -> None:
        self.files: dict[Path, tuple[int, int]] = {}  # lock path -> (fd, depth)


_held = _Held()


def lock_path(workspace: Path) -> Path:
    return workspace / LOCK_FILE


def holds_lock(workspace: Path) -> bool:
    """True when this thread already holds the workspace's lock."""
    return lock_path(workspace) in _held.files


def current_holder(workspace: Path) -> Holder | None:
    """Who is writing the workspace now, or None when nobody holds the lock."""
    path = lock_path(workspace)
    if not path.exists():
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_holder(path)
        fcntl.flock(fd, fcntl.LOCK_UN)  # nobody holds it: what the file says is history
        return None
    finally:
        os.close(fd)


def _read_holder(path: Path) -> Holder | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8") or "{}")
        return Holder(str(raw["what"]), int(raw["pid"]), datetime.fromisoformat(raw["since"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


@contextmanager
def workspace_lock(workspace: Path, what: str, wait_seconds: float,
                   on_wait: Callable[[Holder | None], None] | None = None) -> Iterator[None]:
    """Hold the workspace's write lock; waits up to wait_seconds (calling on_wait once), then WorkspaceBusy."""
    path = lock_path(workspace)
    if path in _held.files:
        fd, depth = _held.files[path]
        _held.files[path] = (fd, depth + 1)
        try:
            yield
        finally:
            _held.files[path] = (fd, _held.files[path][1] - 1)
        return
    workspace.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        _acquire(fd, path, wait_seconds, on_wait)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"what": what, "pid": os.getpid(),
                                  "since": datetime.now().isoformat(timespec="seconds")}).encode(), 0)
        _held.files[path] = (fd, 1)
        try:
            yield
        finally:
            del _held.files[path]
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _acquire(fd: int, path: Path, wait_seconds: float, on_wait: Callable[[Holder | None], None] | None) -> None:
    deadline = time.monotonic() + wait_seconds
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        holder = _read_holder(path)
        if time.monotonic() >= deadline:
            who = holder.describe() if holder else "another process"
            raise WorkspaceBusy(f"workspace {path.parent} is busy: {who} is writing it; "
                                f"gave up after {wait_seconds:g} s")
        if not told and on_wait is not None:
            on_wait(holder)
            told = True
        time.sleep(POLL_SECONDS)
