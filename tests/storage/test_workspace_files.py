"""The workspace on disk: portable index paths, read-only opens that wait out a writer, the theme inbox,
workbooks that honour the umask."""

import os
import shutil
import subprocess
import sys
from datetime import datetime

import pytest

from storage.catalog_db import CatalogBusy, CatalogMissing, open_catalog
from storage.models import IndexVersion, RejectedRow
from storage.shelf_db import ShelfDB
from storage.theme_inbox import import_waiting_themes, keep_themes, waiting_themes
from storage.workspace_lock import workspace_lock
from tasks.export.excel import write_workbook
from tasks.model.themes import Theme


def version(path) -> IndexVersion:
    return IndexVersion("v1", datetime(2026, 11, 23), str(path), "hash", 1, 1, "use", 512, 1, 1, {})


def test_an_index_version_is_found_after_the_workspace_moves(tmp_path):
    old = tmp_path / "old"
    (old / "indexes" / "v1").mkdir(parents=True)
    with open_catalog(old / "shelfwise.duckdb") as db:
        db.commit_index_version(version(old / "indexes" / "v1"), {})
        stored = db.conn.execute("SELECT path FROM index_versions").fetchone()[0]
    assert stored == "indexes/v1"
    shutil.move(old, tmp_path / "new")
    with open_catalog(tmp_path / "new" / "shelfwise.duckdb", read_only=True) as db:
        assert db.current_index_version().path == str(tmp_path / "new" / "indexes" / "v1")


def test_an_absolute_path_from_before_finds_the_version_in_the_moved_workspace(tmp_path):
    (tmp_path / "new" / "indexes" / "v1").mkdir(parents=True)
    with open_catalog(tmp_path / "new" / "shelfwise.duckdb") as db:
        db.commit_index_version(version("/gone/var/indexes/v1"), {})
        assert db.current_index_version().path == str(tmp_path / "new" / "indexes" / "v1")


HOLD = """
import sys, duckdb
conn = duckdb.connect(sys.argv[1])
print("open", flush=True)
sys.stdin.readline()
"""


def test_a_reader_retries_while_a_writer_has_the_file_then_says_who_has_it(tmp_path):
    path = tmp_path / "shelfwise.duckdb"
    with open_catalog(path):
        pass
    with pytest.raises(CatalogMissing, match="no catalog at .* yet: import one"):
        with open_catalog(tmp_path / "other.duckdb", read_only=True):
            pass
    with workspace_lock(tmp_path, "`shelfwise index build`", 1):
        writer = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        assert writer.stdout.readline().strip() == "open"
        with pytest.raises(CatalogBusy, match=rf"^catalog {path} is busy: process {writer.pid} has it open; "
                                              "try again when it finishes$"):
            with open_catalog(path, read_only=True, retry_seconds=0.5):
                pass
        writer.communicate("\n", timeout=30)
    with open_catalog(path, read_only=True, retry_seconds=0.5) as db:  # once it is gone, reading works
        assert db.read_only and db.catalog_counts()["books"] == 0


def test_waiting_themes_are_imported_once_in_order_with_their_rejected_rows(tmp_path):
    rejected = [RejectedRow("f.yaml", 2, "theme_name", "missing", {})]
    keep_themes(tmp_path, "first", [Theme("first", "a", "One")], rejected)
    keep_themes(tmp_path, "second", [Theme("second", "b", "Two")], [])
    assert [w.batch_id for w in waiting_themes(tmp_path)] == ["first", "second"]
    with open_catalog(tmp_path / "shelfwise.duckdb") as db:
        imported = import_waiting_themes(db, tmp_path)
        assert [(i.batch_id, i.counts["inserted"]) for i in imported] == [("first", 1), ("second", 1)]
        assert [r.reason for r in db.rejected_rows()] == ["missing"]
        assert import_waiting_themes(db, tmp_path) == [] and waiting_themes(tmp_path) == []
        assert ShelfDB(db.conn).pending_batches() == ["first", "second"]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_workbook_honours_the_umask(tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        path = write_workbook(tmp_path / "b1.xlsx", "b1", [])
    finally:
        os.umask(previous)
    assert path.stat().st_mode & 0o777 == mode
