"""Themes waiting for the workspace: kept on disk until a writer imports them, so none is lost.

A run that has to wait for another writer (or gives up waiting) has nowhere to put its themes but the
workspace itself: DuckDB is the other writer's. Each waiting batch is one JSON file in
`<workspace>/inbox/`, written to a temporary name and renamed; whoever next holds the workspace lock
imports every file in the order they arrived, one transaction each, and only then deletes it. A crash
between the two imports the file again, which changes nothing (themes are upserted).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from storage.catalog_db import CatalogDB
from storage.models import RejectedRow
from storage.shelf_db import ShelfDB
from tasks.model.themes import Theme

INBOX = "inbox"


@dataclass(frozen=True)
class WaitingThemes:
    """One batch's themes as they were handed in, waiting to be imported."""

    path: Path
    batch_id: str
    themes: list[Theme]
    rejected: list[RejectedRow]


@dataclass(frozen=True)
class ImportedThemes:
    batch_id: str
    counts: dict[str, int]  # inserted / updated / unchanged


def inbox_dir(workspace: Path) -> Path:
    return workspace / INBOX


def keep_themes(workspace: Path, batch_id: str, themes: Sequence[Theme], rejected: Sequence[RejectedRow]) -> Path:
    """Write a batch's themes to the inbox atomically; returns the file."""
    folder = inbox_dir(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    payload = {"batch_id": batch_id, "themes": [asdict(t) for t in themes],
               "rejected": [asdict(r) for r in rejected]}
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, ensure_ascii=False, default=str)
        path = folder / f"{stamp}-{batch_id}.json"
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def waiting_themes(workspace: Path) -> list[WaitingThemes]:
    """Every batch in the inbox, oldest first."""
    folder = inbox_dir(workspace)
    if not folder.exists():
        return []
    waiting = []
    for path in sorted(folder.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        waiting.append(WaitingThemes(path, raw["batch_id"], [Theme(**t) for t in raw["themes"]],
                                     [RejectedRow(**r) for r in raw["rejected"]]))
    return waiting


def import_waiting_themes(db: CatalogDB, workspace: Path) -> list[ImportedThemes]:
    """Import every waiting batch (the caller holds the workspace lock), then forget its file."""
    imported = []
    for batch in waiting_themes(workspace):
        with db.transaction():
            counts = ShelfDB(db.conn).import_themes(batch.themes)
            db.record_rejected(batch.rejected)
        batch.path.unlink()
        imported.append(ImportedThemes(batch.batch_id, counts))
    return imported
