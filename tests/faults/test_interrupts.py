"""Ctrl-C and SIGTERM in the middle of an index build, a run and a catalog import: real processes and real
signals. Each ends within 5 s (the only bound measured) with 128 + the signal's number and one line, keeps
nothing it had not committed, and leaves no half-written file; what a harder death (kill -9) leaves is removed
by the next writer, which says so."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from storage.catalog_db import open_catalog
from storage.index_store import CURRENT_FILE, VERSION_FILE
from storage.workspace_lock import current_holder
from tests.conftest import Command, gone
from tests.faults.conftest import SEED_CSV
from tests.faults.test_kill_and_concurrency import history, holds

BOUND_SECONDS = 5.0


def interrupted_line(signum: int) -> str:
    return (f"error: interrupted by {signal.Signals(signum).name}: what it had not committed is rolled back (the "
            "catalog, the current index and the batches are as they were); run it again")


def interrupt(command: Command, signum: int, group: bool = False) -> tuple[int, float]:
    """Send the signal (to the command's process group, as a terminal's Ctrl-C does, with `group`); its exit code
    and the seconds it took to exit."""
    started = time.monotonic()
    if group:
        os.killpg(command.process.pid, signum)
    else:
        command.process.send_signal(signum)
    code = command.finish(timeout=120)
    return code, time.monotonic() - started


def assert_one_line(command: Command, signum: int) -> None:
    assert command.lines[-1] == interrupted_line(signum), "\n".join(command.lines[-20:])
    assert not any("Traceback" in line for line in command.lines), "\n".join(command.lines)


@pytest.mark.slow
@pytest.mark.parametrize("signum, group", [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c", "sigterm"])
def test_an_index_build_interrupted_ends_at_once_and_the_previous_version_stays_current(demo_copy, record,
                                                                                         signum, group):
    with open_catalog(demo_copy.duckdb_path, read_only=True) as db:
        before = db.current_index_version()
    # Ctrl-C reaches the whole group: the command's own temporary Prefect server too, were it in that group
    build = Command("index", "build", "--full", own_server=group, session=group)
    build.wait_for(r"stage load_catalog")
    time.sleep(1)  # inside the embedding, its version folder made
    servers = build.children()
    code, seconds = interrupt(build, signum, group)
    record(f"{signal.Signals(signum).name} during `index build --full`", f"exit {code}: {build.lines[-1]}",
           "the previous version current; no half-written folder", f"interrupt-build-{signal.Signals(signum).name}")
    assert code == 128 + signum and seconds < BOUND_SECONDS
    assert_one_line(build, signum)
    with open_catalog(demo_copy.duckdb_path, read_only=True) as db:
        assert db.current_index_version().version_id == before.version_id
    assert (demo_copy.indexes_dir / CURRENT_FILE).read_text(encoding="utf-8") == before.version_id
    folders = [p for p in demo_copy.indexes_dir.iterdir() if p.is_dir()]
    assert folders and all((p / VERSION_FILE).exists() for p in folders)  # only complete versions
    assert not [p for p in demo_copy.indexes_dir.iterdir() if p.name.startswith(".")]
    assert all(gone(pid) for pid in servers)
    assert current_holder(demo_copy.workspace) is None


def test_a_catalog_import_interrupted_in_its_transaction_keeps_nothing(seeded, record, tmp_path):
    rows = "".join(f"big-{i},Title {i},An Author,{1950 + i % 70},en,A summary of book {i}.,1\n" for i in range(20000))
    big = tmp_path / "big.csv"
    big.write_text(SEED_CSV.splitlines(keepends=True)[0] + rows, encoding="utf-8")
    command = Command("catalog", "import", str(big), own_server=True)  # no flow: no Prefect server
    holds(command, seeded.workspace)  # the file is read and checked: its rows are being written
    code, seconds = interrupt(command, signal.SIGTERM)
    record("SIGTERM during `catalog import` of 20,000 rows", f"exit {code}: {command.lines[-1]}",
           "catalog unchanged (3 books, no rejected rows)", "interrupt-import")
    assert code == 143 and seconds < BOUND_SECONDS
    assert_one_line(command, signal.SIGTERM)
    with open_catalog(seeded.duckdb_path, read_only=True) as db:
        assert db.conn.execute("SELECT count(*) FROM books").fetchone()[0] == 3
        assert db.conn.execute("SELECT count(*) FROM rejected_rows").fetchone()[0] == 0


@pytest.mark.slow
def test_a_run_interrupted_mid_batch_records_no_shelf_and_writes_no_workbook(demo_copy, record, tmp_path):
    # many themes after the first, never shelved: the signal finds the batch unfinished on a loaded machine too
    # (under a load of 6 on 2 cores, the three that had followed were all shelved before it, once)
    themes = tmp_path / "themes.yaml"
    themes.write_text("batch_id: stopped\nthemes:\n" + "".join(
        f"  - theme_id: t{i}\n    theme_name: {name}\n" for i, name in enumerate(
            ["Quiet novels for a rainy night", "鲁迅作品专题", "Looking up at the stars", "A weekend of suspense"] * 5)),
        encoding="utf-8")
    run = Command("run", str(themes))
    run.wait_for(r"theme t0: ")  # its first theme is shelved, the batch's transaction is open
    code, seconds = interrupt(run, signal.SIGTERM)
    record("SIGTERM during `run` after its first theme", f"exit {code}: {run.lines[-1]}",
           "no shelf recorded, no workbook; the themes stay pending", "interrupt-run")
    assert code == 143 and seconds < BOUND_SECONDS
    assert_one_line(run, signal.SIGTERM)
    assert history(demo_copy, "stopped") == []
    assert not demo_copy.outputs_dir.exists() or not list(demo_copy.outputs_dir.glob("*stopped*"))
    with open_catalog(demo_copy.duckdb_path, read_only=True) as db:
        assert db.conn.execute("SELECT DISTINCT status FROM themes WHERE batch_id = 'stopped'").fetchall() == [
            ("pending",)]


def test_the_next_writer_removes_what_a_killed_command_left_and_says_so(seeded, cli, record, tmp_path):
    half = seeded.indexes_dir / "20990101T000000000000Z-deadbeef"
    (half / "lance").mkdir(parents=True)
    complete = seeded.indexes_dir / "20980101T000000000000Z-cafef00d"
    complete.mkdir()
    (complete / VERSION_FILE).write_text("{}", encoding="utf-8")
    pointer_temp = seeded.indexes_dir / f".{CURRENT_FILE}.4242"
    pointer_temp.write_text("x", encoding="utf-8")
    seeded.outputs_dir.mkdir(parents=True)
    workbook_temp = seeded.outputs_dir / ".b1.xlsx.k2j3h4.tmp"
    workbook_temp.write_bytes(b"PK")
    (tmp_path / "more.csv").write_text(SEED_CSV, encoding="utf-8")
    result = cli("catalog", "import", str(tmp_path / "more.csv"))
    record("a half-written index folder and temp files left by kill -9", result.err.strip(),
           "complete versions kept", "leftovers-removed")
    assert result.code == 0
    assert result.err.splitlines() == [f"removed what an interrupted command left: {pointer_temp}, {half}, "
                                       f"{workbook_temp}"]
    assert not half.exists() and not pointer_temp.exists() and not workbook_temp.exists()
    assert complete.exists()
    assert cli("catalog", "import", str(tmp_path / "more.csv")).err == ""  # said once
