"""What an operator meets beyond bad input files: an empty catalog, a damaged database, a deleted index, an
outputs path taken, an id with a control character. Each ends in one line and an exit code, and loses nothing."""

from __future__ import annotations

import shutil

import pytest

from storage.catalog_db import open_catalog
from tests.faults.conftest import SEED_CSV


def test_an_index_build_on_an_empty_catalog_is_one_line(workspace, cli, record, tmp_path):
    result = cli("index", "build")
    record("`index build` before any catalog import", result.summary, "nothing to lose", "index-empty-catalog")
    assert result.code == 2 and result.err.count("\n") == 1 and result.out == ""
    assert result.line == (f"error: the catalog {workspace.duckdb_path} has no books: import one with "
                           "`shelfwise catalog import FILE` before building the index")


def test_a_damaged_database_is_one_line_for_every_command_and_is_left_as_it_was(seeded, cli, record, tmp_path):
    damaged = bytes(range(256)) * 64
    seeded.duckdb_path.write_bytes(damaged)
    (tmp_path / "more.csv").write_text(SEED_CSV, encoding="utf-8")
    imported = cli("catalog", "import", str(tmp_path / "more.csv"))
    record("shelfwise.duckdb overwritten with bytes that are not DuckDB", imported.summary,
           "the file is left for a restore", "corrupt-duckdb")
    assert imported.code == 2 and imported.err.count("\n") == 1
    assert imported.line.startswith(f"error: catalog {seeded.duckdb_path} cannot be opened (")
    assert imported.line.endswith("restore it from a backup, or move it aside and import the catalog again")
    status = cli("status")
    assert status.code == 0 and "catalog: not readable now: catalog " in status.out
    assert cli("index", "build").code == 2
    assert seeded.duckdb_path.read_bytes() == damaged  # nobody wrote over it


@pytest.mark.parametrize("batch", ["b2\n", "b2\r", "b\x1b[31m2", "b2\t"])
def test_an_id_with_a_control_character_is_refused_before_anything_is_kept(seeded, cli, record, tmp_path, batch):
    themes = tmp_path / "themes.yaml"
    themes.write_text("themes:\n  - theme_id: rain\n    theme_name: Quiet novels for a rainy night\n", encoding="utf-8")
    result = cli("themes", "import", str(themes), "--batch", batch)
    record(f"`--batch {batch!r}`", result.summary, "nothing kept: the inbox is empty", f"batch-{batch!r}")
    assert result.code == 2 and result.line.startswith(f"error: batch id: {batch!r} is not an id (")
    assert not (seeded.workspace / "inbox").exists() or not any((seeded.workspace / "inbox").iterdir())
    with open_catalog(seeded.duckdb_path, read_only=True) as db:
        assert not db.has_table("themes") or db.conn.execute("SELECT count(*) FROM themes").fetchone()[0] == 0


@pytest.mark.slow
def test_a_deleted_index_folder_is_named_by_status(demo_copy, cli, record):
    with open_catalog(demo_copy.duckdb_path, read_only=True) as db:
        current = db.current_index_version()
    shutil.rmtree(current.path)
    result = cli("status")
    record("the current index version's folder deleted", result.summary.split(" / ")[0], "the catalog is untouched",
           "index-folder-deleted")
    assert result.code == 0
    assert f"index: files missing from {current.path}: version.json, books.parquet" in result.out
    assert "run `shelfwise index build --full`" in result.out


@pytest.mark.slow
def test_an_outputs_path_taken_by_a_folder_is_one_line_and_the_themes_stay_pending(demo_copy, cli, record, tmp_path):
    (demo_copy.outputs_dir / "taken.xlsx").mkdir(parents=True)
    themes = tmp_path / "themes.yaml"
    themes.write_text("batch_id: taken\nthemes:\n  - theme_id: rain\n    theme_name: Quiet novels for a rainy night\n",
                      encoding="utf-8")
    result = cli("run", str(themes))
    record("outputs/taken.xlsx is a folder", result.summary, "the themes stay pending", "outputs-path-a-folder")
    assert result.code == 2 and result.err.count("\n") == 1
    assert result.line.startswith(f"error: {demo_copy.outputs_dir / 'taken.xlsx'} ")
    with open_catalog(demo_copy.duckdb_path, read_only=True) as db:
        assert not db.has_table("themes") or db.conn.execute(
            "SELECT status FROM themes WHERE batch_id = 'taken'").fetchall() in ([], [("pending",)])
    assert themes.exists()  # the file handed in is untouched: run it again once the folder is moved


def test_a_dead_prefect_api_url_is_one_line_before_any_work(seeded, cli, record, monkeypatch):
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.prefect_api import free_port

    dead = f"http://127.0.0.1:{free_port()}/api"  # nothing listens there
    monkeypatch.setenv("PREFECT_API_URL", dead)
    with temporary_settings({PREFECT_API_URL: dead}):
        result = cli("index", "build")
    record("PREFECT_API_URL names a server that is not there", result.summary, "nothing started, nothing written",
           "dead-prefect-api-url")
    assert result.code == 2 and result.err.count("\n") == 1 and result.out == ""
    assert result.line == (f"error: PREFECT_API_URL {dead} does not answer: start the Prefect server there, or unset "
                           "PREFECT_API_URL to run with a temporary one")
    assert not (seeded.workspace / "indexes").exists()
