"""The shelf job end to end on the bundled demo catalog: real index, real Prefect runs, a real workbook."""

import re
from datetime import datetime

import pytest
from openpyxl import load_workbook

from flows.cli import main as shelfwise
from storage.catalog_db import open_catalog
from storage.models import Theme
from storage.shelf_db import ShelfDB
from tests.conftest import DEMO_THEMES

pytestmark = pytest.mark.slow


def read_shelves(path) -> dict[str, list[tuple]]:
    wb = load_workbook(path)
    return {name: [row for row in wb[name].iter_rows(min_row=2, values_only=True)] for name in wb.sheetnames}


def sheet_named(sheets: dict, fragment: str) -> list[tuple]:
    """A theme's rows, whether or not its sheet name carries the REVIEW mark."""
    return sheets[next(name for name in sheets if fragment in name and name != "summary")]


def history_rows(settings) -> int:
    with open_catalog(settings.duckdb_path) as db:
        return ShelfDB(db.conn).history_count()


def test_demo_batch_writes_a_workbook_that_explains_every_shelf(demo_workspace, demo_rows):
    assert shelfwise(["run", str(DEMO_THEMES)]) == 0
    workbook = demo_workspace.outputs_dir / "demo-2026-11.xlsx"
    sheets = read_shelves(workbook)
    summary = {row[0]: row for row in sheets["summary"]}
    review = [t for t, row in summary.items() if row[2] == "needs_review"]
    assert list(sheets)[0] == "summary" and len(sheets) == 1 + 17 + (1 if review else 0)
    assert all(row[2] in ("done", "needs_review") and row[3] > 0 for row in summary.values())
    # a provisional shelf is marked in its sheet name and listed with its question
    assert sum(name.startswith("REVIEW ") for name in sheets) == len(review)
    if review:
        assert [row[0] for row in sheets["needs review"]] == review and all(r[2] for r in sheets["needs review"])
    first_theme = next(name for name in sheets if name not in ("summary", "needs review"))
    header = [c.value for c in load_workbook(workbook)[first_theme][1]]
    assert header == ["rank", "title", "authors", "year", "call_no", "language", "sources", "query_variant",
                      "vector_rank", "bm25_rank", "rrf_score", "rerank_score", "fused_score", "why", "evidence"]
    assert all(rows for name, rows in sheets.items())

    tags_by_title = {r["title"]: r["tags"] for r in demo_rows}
    for theme_id, sheet in (("no-healing", "03 不要温暖治愈的"), ("rainy-night-quiet", "02 Quiet novels")):
        assert "MUST_NOT emotional_tone=温暖治愈" in summary[theme_id][6]
        titles = [row[1] for row in sheet_named(sheets, sheet)]
        assert titles and all("温暖治愈" not in tags_by_title[t]["emotional_tone"] for t in titles)
    # "1980年代以后出版的科幻小说": the year is a hard condition
    assert "MUST pub_year>=1980" in summary["scifi-after-1980"][6]
    assert all(row[3] >= 1980 for row in sheet_named(sheets, "1980年代以后"))
    quiet = sheet_named(sheets, "02 Quiet novels")
    assert all(row[13] for row in quiet)  # every book says why
    assert any(row[14] for row in quiet)  # and the summary sentence closest to the brief
    # what each query variant found: "vector: 84 above 0.44 (best by variant: synonyms 53, original 30, ...)"
    assert re.search(r"best by variant: .*original \d+", summary["rainy-night-quiet"][8])


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
    earlier = {row[1] for row in sheet_named(read_shelves(first), "Quiet novels")}
    themes = tmp_path / "next.yaml"
    themes.write_text(
        "batch_id: demo-next\nthemes:\n  - theme_id: rainy-again\n    theme_name: Quiet novels for a rainy night\n"
        "    slogan: Nothing heart-warming, please\n    description: Quiet, restrained novels for a rainy night "
        "alone. Melancholy is welcome; avoid heart-warming, feel-good stories.\n", encoding="utf-8")
    assert shelfwise(["run", str(themes)]) == 0
    sheets = read_shelves(demo_workspace.outputs_dir / "demo-next.xlsx")
    later = {row[1] for row in sheet_named(sheets, "Quiet novels")}
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
    state = nightly(return_state=True)
    assert state.is_completed() and "demo-nightly" in state.message.split("batches shelved: ")[1]
    assert (demo_workspace.outputs_dir / "demo-nightly.xlsx").exists()
    with open_catalog(demo_workspace.duckdb_path) as db:
        assert "demo-nightly" not in ShelfDB(db.conn).pending_batches()


def test_a_brief_that_refers_to_last_time_takes_that_shelfs_conditions(demo_workspace, tmp_path):
    if not (demo_workspace.outputs_dir / "demo-2026-11.xlsx").exists():
        shelfwise(["run", str(DEMO_THEMES)])
    themes = tmp_path / "ref.yaml"
    themes.write_text("batch_id: demo-ref\nthemes:\n  - theme_id: again\n    theme_name: 延续上次的主题，但更轻松一些\n",
                      encoding="utf-8")
    assert shelfwise(["run", str(themes)]) == 0
    summary = read_shelves(demo_workspace.outputs_dir / "demo-ref.xlsx")["summary"][0]
    conditions, notes = summary[6], summary[8]
    assert "reference (上次) -> " in notes and "(continue, lighter)" in notes
    referenced = notes.split("-> ")[1].split(" ")[0]  # batch/theme
    with open_catalog(demo_workspace.duckdb_path) as db:
        # every shelf so far, as a later batch would see them
        everything = ShelfDB(db.conn).history_for("later", Theme("later", "t", "x"), datetime(2100, 1, 1), 100_000,
                                                     100_000)
    shelf = next(h for h in everything if f"{h.batch_id}/{h.theme_id}" == referenced)
    for cond in shelf.conditions:
        if cond.operator != "MUST_NOT":
            assert any(v in conditions for v in cond.values)
    assert "MUST_NOT emotional_tone=沉重压抑" in conditions


def test_a_batch_can_switch_on_the_sentence_rerank(demo_workspace, demo_rows, tmp_path):
    themes = tmp_path / "sentences.yaml"
    themes.write_text("batch_id: demo-sentences\nthemes:\n  - theme_id: rain\n    theme_name: 适合雨天窗前读的安静小说\n",
                      encoding="utf-8")
    assert shelfwise(["run", str(themes), "--sentence-rerank", "--no-expansion"]) == 0
    sheets = read_shelves(demo_workspace.outputs_dir / "demo-sentences.xlsx")
    notes = sheets["summary"][0][8]
    assert "sentence rerank: top" in notes and "best by variant: original" in notes
    assert "translation" not in notes and "synonyms" not in notes  # expansion was switched off for this batch
    rows = sheet_named(sheets, "适合雨天")
    scores = [row[11] for row in rows]
    summarised = {r["title"] for r in demo_rows if r["summary"]}
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert all(row[14] for row in rows if row[1] in summarised)  # evidence wherever there is a summary
    # a rerun without the switches (the nightly job's) keeps the batch's choice, and its shelf
    assert shelfwise(["run", str(themes)]) == 0
    again = read_shelves(demo_workspace.outputs_dir / "demo-sentences.xlsx")
    assert "sentence rerank: top" in again["summary"][0][8] and "synonyms" not in again["summary"][0][8]
    assert sheet_named(again, "适合雨天") == rows
