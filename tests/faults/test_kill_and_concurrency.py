"""Commands killed with kill -9 in the middle, then run again; two commands at once. Real processes on a copy
of the demo workspace; the Prefect server is the session's, except where the test is about the command's own."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from flows.cli import main as shelfwise
from storage.catalog_db import open_catalog
from storage.workspace_lock import current_holder
from tests.conftest import Command, gone

pytestmark = pytest.mark.slow

THEMES = ("batch_id: {batch}\nthemes:\n  - theme_id: rain\n    theme_name: Quiet novels for a rainy night\n"
          "  - theme_id: luxun\n    theme_name: 鲁迅作品专题\n")


def history(settings, batch: str) -> list[tuple[str, int]]:
    with open_catalog(settings.duckdb_path, read_only=True) as db:
        if not db.has_table("shelf_history"):
            return []
        return db.conn.execute("SELECT theme_id, count(*) FROM shelf_history WHERE batch_id = ? "
                               "GROUP BY 1 ORDER BY 1", [batch]).fetchall()


def holds(command: Command, workspace: Path, timeout: float = 120) -> None:
    """Wait until `command` holds the workspace lock."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        holder = current_holder(workspace)
        if holder and holder.pid == command.process.pid:
            return
        assert command.process.poll() is None, "\n".join(command.lines[-20:])
        time.sleep(0.1)
    raise AssertionError(f"{command.process.args} did not take the workspace lock within {timeout} s")


def test_two_runs_at_once_the_second_waits_and_the_first_killed_mid_batch_reruns_once(demo_copy, tmp_path):
    first_file, second_file = tmp_path / "killed.yaml", tmp_path / "second.yaml"
    first_file.write_text(THEMES.format(batch="killed"), encoding="utf-8")
    second_file.write_text("batch_id: second\nthemes:\n  - theme_id: rain\n    theme_name: Rainy night\n",
                           encoding="utf-8")
    first = Command("run", str(first_file), own_server=True)
    holds(first, demo_copy.workspace)
    second = Command("run", str(second_file))
    second.wait_for(r"^waiting for `shelfwise run .*killed\.yaml` \(pid \d+, since .+\) to finish… "
                    r"\(up to 900 s, locking\.wait_seconds\)$")
    first.wait_for(r"theme rain: needs_review")  # its first theme is shelved, its batch transaction is open
    server = first.children()
    assert server, "the first command's temporary Prefect server"
    first.kill()
    assert all(gone(pid) for pid in server), "the killed command's Prefect server is still running"
    # a command on a temporary server links to no page of it (gone with the command): its flow run had begun, where
    # Prefect prints "View at" and the run's address
    assert not [line for line in first.lines if "View at" in line or "http://" in line]
    assert second.finish() == 0, "\n".join(second.lines[-20:])  # the lock died with the first: the second goes on
    [(theme, books)] = history(demo_copy, "second")
    assert theme == "rain" and books > 0
    assert history(demo_copy, "killed") == []  # nothing of the killed batch, and no half workbook
    assert sorted(p.name for p in demo_copy.outputs_dir.iterdir()) == ["second.xlsx"]

    assert shelfwise(["run", str(first_file)]) == 0  # run again: the batch exactly once
    rerun = history(demo_copy, "killed")
    assert [theme for theme, _ in rerun] == ["luxun", "rain"] and all(books > 0 for _, books in rerun)
    assert current_holder(demo_copy.workspace) is None


def test_a_build_killed_half_way_leaves_the_previous_index_current(demo_copy, capsys):
    with open_catalog(demo_copy.duckdb_path, read_only=True) as db:
        before = db.current_index_version()
    build = Command("index", "build", "--full")
    build.wait_for(r"stage load_catalog")
    time.sleep(1)  # inside the embedding
    assert current_holder(demo_copy.workspace).what == "`shelfwise index build --full`"
    build.kill()
    assert current_holder(demo_copy.workspace) is None
    with open_catalog(demo_copy.duckdb_path, read_only=True) as db:
        after = db.current_index_version()
    assert after.version_id == before.version_id and Path(after.path).is_dir()
    capsys.readouterr()
    assert shelfwise(["index", "build"]) == 0  # the rerun finds the catalog indexed by the version still current
    assert f"index {before.version_id} is up to date" in capsys.readouterr().out
