"""The shelf job end to end on the bundled demo catalog: real index, real Prefect runs, a real workbook."""

import os

import pytest
from openpyxl import load_workbook

from config.settings import get_settings
from flows.cli import main as shelfwise
from storage.catalog_db import open_catalog
from storage.shelf_db import ShelfDB
from tests.conftest import DEMO_CATALOG, PROJECT_ROOT

pytestmark = pytest.mark.slow

DEMO_THEMES = PROJECT_ROOT / "config" / "demo" / "themes.yaml"


@pytest.fixture(scope="module")
def demo_workspace(prefect_server, tmp_path_factory):
    """The demo catalog imported and indexed once for this module, as `make demo` does."""
    root = tmp_path_factory.mktemp("demo")
    saved = {k: os.environ.get(k) for k in ("SHELFWISE__WORKSPACE", "SHELFWISE__OUTPUTS_DIR")}
    os.environ["SHELFWISE__WORKSPACE"] = str(root / "var")
    os.environ["SHELFWISE__OUTPUTS_DIR"] = str(root / "outputs")
    get_settings.cache_clear()
    assert shelfwise(["catalog", "import", str(DEMO_CATALOG)]) == 0
    assert shelfwise(["index", "build"]) == 0
    yield get_settings()
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    get_settings.cache_clear()


def read_shelves(path) -> dict[str, list[tuple]]:
    wb = load_workbook(path)
    return {name: [row for row in wb[name].iter_rows(min_row=2, values_only=True)] for name in wb.sheetnames}


def history_rows(settings) -> int:
    with open_catalog(settings.duckdb_path) as db:
        return ShelfDB(db.conn).history_count()


def test_demo_batch_writes_a_workbook_that_explains_every_shelf(demo_workspace, demo_rows):
    assert shelfwise(["run", str(DEMO_THEMES)]) == 0
    workbook = demo_workspace.outputs_dir / "demo-2026-11.xlsx"
    sheets = read_shelves(workbook)
    assert list(sheets)[0] == "summary" and len(sheets) == 1 + 16
    summary = {row[0]: row for row in sheets["summary"]}
    assert all(row[2] == "done" and row[3] > 0 for row in summary.values())
    header = [c.value for c in load_workbook(workbook)[list(sheets)[1]][1]]
    assert header == ["rank", "title", "authors", "year", "call_no", "language", "sources", "vector_rank",
                      "bm25_rank", "rrf_score", "rerank_score", "why"]
    assert all(rows for name, rows in sheets.items())

    tags_by_title = {r["title"]: r["tags"] for r in demo_rows}
    for theme_id, sheet in (("no-healing", "03 不要温暖治愈的"), ("rainy-night-quiet", "02 Quiet novels for a rainy nig")):
        assert "MUST_NOT emotional_tone=温暖治愈" in summary[theme_id][6]
        titles = [row[1] for row in sheets[sheet]]
        assert titles and all("温暖治愈" not in tags_by_title[t]["emotional_tone"] for t in titles)
    assert all(row[11] for row in sheets["02 Quiet novels for a rainy nig"])  # every book says why


def test_rerun_gives_identical_shelves_and_no_new_history(demo_workspace):
    workbook = demo_workspace.outputs_dir / "demo-2026-11.xlsx"
    if not workbook.exists():
        shelfwise(["run", str(DEMO_THEMES)])
    before = read_shelves(workbook)
    rows_before = history_rows(demo_workspace)
    assert shelfwise(["run", str(DEMO_THEMES)]) == 0
    after = read_shelves(workbook)
    assert {k: v for k, v in after.items() if k != "summary"} == {k: v for k, v in before.items() if k != "summary"}
    assert history_rows(demo_workspace) == rows_before


def test_next_batch_avoids_books_shelved_for_a_similar_theme(demo_workspace, tmp_path):
    first = demo_workspace.outputs_dir / "demo-2026-11.xlsx"
    if not first.exists():
        shelfwise(["run", str(DEMO_THEMES)])
    earlier = {row[1] for row in read_shelves(first)["02 Quiet novels for a rainy nig"]}
    themes = tmp_path / "next.yaml"
    themes.write_text(
        "batch_id: demo-next\nthemes:\n  - theme_id: rainy-again\n    theme_name: Quiet novels for a rainy night\n"
        "    slogan: Nothing heart-warming, please\n    description: Quiet, restrained novels for a rainy night "
        "alone. Melancholy is welcome; avoid heart-warming, feel-good stories.\n", encoding="utf-8")
    assert shelfwise(["run", str(themes)]) == 0
    sheets = read_shelves(demo_workspace.outputs_dir / "demo-next.xlsx")
    later = {row[1] for row in sheets[list(sheets)[1]]}
    assert later and not (later & earlier)
    assert "history: skipped books of demo-2026-11/rainy-night-quiet" in sheets["summary"][0][8]


def test_each_batch_publishes_a_table_artifact(demo_workspace):
    from prefect.artifacts import Artifact

    if not (demo_workspace.outputs_dir / "demo-2026-11.xlsx").exists():
        shelfwise(["run", str(DEMO_THEMES)])
    artifact = Artifact.get("shelves-demo-2026-11")
    assert artifact is not None and artifact.type == "table"
    import json

    rows = json.loads(artifact.data)
    assert rows[0]["theme"].startswith("大脑重启") and {"rank", "title", "why"} <= set(rows[0])


def test_nightly_shelves_every_pending_batch_after_bringing_the_index_up_to_date(demo_workspace, tmp_path):
    from flows.generate_shelves import nightly

    themes = tmp_path / "pending.yaml"
    themes.write_text("batch_id: demo-nightly\nthemes:\n  - theme_id: stars\n    theme_name: 宇宙星空\n"
                      "    description: 关于宇宙和星空的书\n", encoding="utf-8")
    assert shelfwise(["themes", "import", str(themes)]) == 0
    results = nightly()
    assert "demo-nightly" in [r.batch_id for r in results]
    assert (demo_workspace.outputs_dir / "demo-nightly.xlsx").exists()
    with open_catalog(demo_workspace.duckdb_path) as db:
        assert "demo-nightly" not in ShelfDB(db.conn).pending_batches()
