"""Where a batch's workbook goes, whether the folders a run writes can be written (checked up front), and what a
full disk stopped."""

from __future__ import annotations

import errno
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from config.settings import setting_source


class NotWritable(RuntimeError):
    """A folder a command must write to cannot be created or written."""


class UnsafePath(ValueError):
    """A workbook path that would land outside the outputs folder."""


def check_writable(folder: Path, setting: str) -> None:
    """NotWritable naming the setting and its source ("outputs_dir (from SHELFWISE__OUTPUTS_DIR)") unless a file
    can be made in `folder`."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        reason = (err.strerror or type(err).__name__).lower()
        raise NotWritable(f"{setting_source(setting)} {folder} is not writable ({reason})") from None


def workbook_path(outputs_dir: Path, batch_id: str) -> Path:
    """outputs_dir/<batch_id>.xlsx; UnsafePath if the id would put it anywhere else."""
    path = outputs_dir / f"{batch_id}.xlsx"
    if path.resolve().parent != outputs_dir.resolve():
        raise UnsafePath(f"batch id {batch_id!r} would write {path.resolve()}, outside {outputs_dir}")
    if path.exists() and not path.is_file():  # found now, not after the batch is shelved
        raise NotWritable(f"{path} is a folder or other non-file: the workbook cannot replace it; move it aside")
    return path


FULL_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})  # no space, a file size limit, a quota
# DuckDB and LanceDB report a failed write in words, with the operating system's message in them
FULL_DISK_WORDS = ("No space left on device", "File too large", "Disk quota exceeded")
_QUOTED_PATH = re.compile(r"""["'](/[^"']+)["']""")


def full_disk(err: BaseException, candidates: Sequence[Path]) -> str | None:
    """What could not be written when `err` (or an error it came from) is a full disk or a file size limit, else
    None: the file the error names, else the candidate folder with the least space left."""
    seen: list[BaseException] = []
    while err is not None and err not in seen:
        seen.append(err)
        text = str(err)
        if isinstance(err, OSError) and err.errno in FULL_DISK_ERRNOS or any(w in text for w in FULL_DISK_WORDS):
            named = err.filename if isinstance(err, OSError) and err.filename else None
            quoted = _QUOTED_PATH.search(text)
            return str(named or (quoted.group(1) if quoted else _fullest(candidates)))
        err = err.__cause__ or err.__context__
    return None


def _fullest(folders: Sequence[Path]) -> Path:
    """The folder (or the nearest existing parent) on the disk with the least space left."""
    def free(folder: Path) -> int:
        existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("/"))
        return shutil.disk_usage(existing).free
    return min(folders, key=free)
