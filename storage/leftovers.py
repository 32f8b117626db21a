"""What an interrupted command leaves behind, removed by the next writer.

Every write is a temp file renamed into place, or a DuckDB transaction, or an index version folder made
current only once complete, so an interrupted command (Ctrl-C, SIGTERM, kill -9, a full disk) changes
nothing a reader sees. It can leave files, though: a half-written version folder, a workbook's temp file,
an inbox file's. The next command that takes the workspace lock deletes them; with the lock held, no
other writer can be writing them.
"""

from __future__ import annotations

import time
from pathlib import Path

from config.settings import Settings
from storage import index_store
from storage.index_root import index_root
from storage.theme_inbox import inbox_dir

# The inbox is written before its writer waits for the lock (storage/theme_inbox.py): its temp files are
# only a leftover once far older than the milliseconds one takes to write.
INBOX_TEMP_AGE_SECONDS = 600.0


def remove_leftovers(settings: Settings) -> list[str]:
    """Delete what interrupted commands left (call it holding the workspace lock); returns their paths. With an
    s3:// index the local folder also holds readers' copies being downloaded, without the lock: its staging is
    left to the next build's pruning."""
    now = time.time()
    temp = _temp_files(settings.outputs_dir, "*.xlsx.*.tmp") + [
        p for p in _temp_files(inbox_dir(settings.workspace), "*.tmp")
        if now - p.stat().st_mtime > INBOX_TEMP_AGE_SECONDS]
    for path in temp:
        path.unlink(missing_ok=True)
    remote = index_root(settings).remote
    folders = [] if remote else index_store.remove_half_written(settings.indexes_dir)
    return [str(settings.indexes_dir / name) for name in folders] + [str(p) for p in temp]


def _temp_files(folder: Path, pattern: str) -> list[Path]:
    """The hidden temp files (".name.random.tmp", as mkstemp names them here) matching pattern in folder."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("." + pattern) if p.is_file())
