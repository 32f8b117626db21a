"""A full disk during an import, an index build and an export: a real one, a small tmpfs filled up (mounting
it needs root; elsewhere these cases are skipped). Each ends in one line naming what could not be written,
exit 2, and changes nothing: the catalog, the current index and the batch's history are as they were, and no
half-written file is left."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.catalog_db import open_catalog
from storage.index_store import CURRENT_FILE, VERSION_FILE
from tests.conftest import Command
from tests.faults.conftest import SEED_CSV
from tests.faults.test_kill_and_concurrency import history


def assert_full_disk_line(line: str, where: Path) -> None:
    """The one line, naming `where` (or a file in it: DuckDB's write-ahead log beside its file counts too)."""
    head, tail = line.split("; ", 1)
    assert head.startswith(f"error: the disk is full: could not write {where}"), line
    assert tail == ("nothing was changed (what was being written is rolled back: the catalog, the current index and "
                    "the batches are as they were); free some space and run it again")


class SmallDisk:
    """A tmpfs of its own at `path`; fill() leaves it `left` bytes."""

    def __init__(self, path: Path):
        self.path = path
        self._filler = path / ".filler"

    def fill(self, left: int) -> None:
        free = shutil.disk_usage(self.path).free
        with open(self._filler, "ab") as fh:
            os.posix_fallocate(fh.fileno(), 0, max(free - left, 1))

    def free(self) -> None:
        self._filler.unlink(missing_ok=True)


@pytest.fixture
def small_disk(tmp_path) -> Iterator[SmallDisk]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    path = tmp_path / "disk"
    path.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(path)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield SmallDisk(path)
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def move_workspace(settings, disk: SmallDisk, monkeypatch) -> Path:
    """The workspace (its catalog and indexes) moved onto the small disk; the new workspace folder."""
    target = disk.path / "var"
    target.mkdir()
    for name in ("shelfwise.duckdb", "indexes"):
        if (settings.workspace / name).is_dir():
            shutil.copytree(settings.workspace / name, target / name)
        elif (settings.workspace / name).exists():
            shutil.copy2(settings.workspace / name, target / name)
    monkeypatch.setenv("SHELFWISE__WORKSPACE", str(target))
    return target


def count_books(duckdb_path: Path) -> int:
    with open_catalog(duckdb_path, read_only=True) as db:
        return db.conn.execute("SELECT count(*) FROM books").fetchone()[0]


# The import and the build run in this process (the command's exit code and lines are what they prove; their
# process of their own, signals and a killed process are tests/faults/test_interrupts.py's); the export's run in a
# process of its own, whose shutdown must print nothing.


def test_a_full_disk_during_an_import_is_one_line_and_the_catalog_is_unchanged(seeded, small_disk, cli, record,
                                                                                tmp_path, monkeypatch):
    workspace = move_workspace(seeded, small_disk, monkeypatch)
    rows = "".join(f"big-{i},Title {i},An Author,{1950 + i % 70},en,{'A long summary sentence. ' * 8},1\n"
                   for i in range(5000))
    big = tmp_path / "big.csv"
    big.write_text(SEED_CSV.splitlines(keepends=True)[0] + rows, encoding="utf-8")
    small_disk.fill(left=64 * 1024)
    result = cli("catalog", "import", str(big))
    lines = (result.out + result.err).strip().splitlines()
    record("the workspace's disk full during `catalog import` of 5,000 rows", f"exit {result.code}: {lines[-1]}",
           "catalog unchanged (3 books)", "full-disk-import")
    assert result.code == 2
    assert_full_disk_line(lines[-1], workspace / "shelfwise.duckdb")
    assert not any("Traceback" in line for line in lines)
    small_disk.free()
    assert count_books(workspace / "shelfwise.duckdb") == 3


@pytest.mark.slow
def test_a_full_disk_during_an_index_build_is_one_line_and_the_previous_version_stays(demo_copy, small_disk, cli,
                                                                                       record, tmp_path, monkeypatch):
    workspace = move_workspace(demo_copy, small_disk, monkeypatch)
    with open_catalog(workspace / "shelfwise.duckdb", read_only=True) as db:
        before = db.current_index_version().version_id
    one = tmp_path / "one.csv"
    one.write_text(SEED_CSV, encoding="utf-8")
    assert cli("catalog", "import", str(one)).code == 0  # something for the build to do
    small_disk.fill(left=512 * 1024)
    result = cli("index", "build")
    lines = (result.out + result.err).strip().splitlines()
    record("the workspace's disk full during `index build`", f"exit {result.code}: {lines[-1]}",
           "the previous version current; no half-written folder", "full-disk-build")
    assert result.code == 2
    assert_full_disk_line(lines[-1], workspace)
    assert not any("Traceback" in line for line in lines)
    with open_catalog(workspace / "shelfwise.duckdb", read_only=True) as db:
        assert db.current_index_version().version_id == before
    indexes = workspace / "indexes"
    assert (indexes / CURRENT_FILE).read_text(encoding="utf-8") == before
    assert all((p / VERSION_FILE).exists() for p in indexes.iterdir() if p.is_dir())  # the failed folder is gone


@pytest.mark.slow
def test_a_full_disk_for_the_workbook_is_one_line_and_the_batch_stays_pending(demo_copy, small_disk, record, tmp_path,
                                                                              monkeypatch):
    monkeypatch.setenv("SHELFWISE__OUTPUTS_DIR", str(small_disk.path))
    themes = tmp_path / "themes.yaml"
    themes.write_text("batch_id: full\nthemes:\n  - theme_id: rain\n    theme_name: Quiet novels for a rainy night\n",
                      encoding="utf-8")
    small_disk.fill(left=4096)
    run = Command("run", str(themes))
    code = run.finish()
    record("outputs_dir's disk full when the workbook is written", f"exit {code}: {run.lines[-1]}",
           "no shelf recorded, no workbook; the theme stays pending", "full-disk-export")
    assert code == 2
    assert_full_disk_line(run.lines[-1], small_disk.path)
    assert not any(line.startswith("Exception ignored") for line in run.lines)
    assert history(demo_copy, "full") == []
    assert [p.name for p in small_disk.path.iterdir()] == [".filler"]  # no workbook, no temp file
    with open_catalog(demo_copy.duckdb_path, read_only=True) as db:
        assert db.conn.execute("SELECT status FROM themes WHERE batch_id = 'full'").fetchall() == [("pending",)]
