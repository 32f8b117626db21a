"""Where a batch's workbook goes, and whether the folders a run writes can be written, checked up front."""

from __future__ import annotations

import tempfile
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
