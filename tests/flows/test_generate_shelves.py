"""The shelf job end to end on the bundled demo catalog: real index, real Prefect runs, a real workbook."""

import re
from datetime import datetime

import pytest
import yaml
from openpyxl import load_workbook

from flows.cli import main as shelfwise
from storage.catalog_db import open_catalog
from storage.shelf_db import ShelfDB
from tasks.export.excel import IDS_SHEET
from tests.conftest import DEMO_THEMES
from tests.flows.workbook_reading import BatchWorkbook

pytestmark = pytest.mark.slow


def read_shelves(path) -> dict[str, list[tuple]]:
    wb = load_workbook(path)
    return {name: [row for row in wb[name].iter_rows(min_row=2, values_only=True)] for name in wb.sheetnames}


def history_rows(settings) -> int:
    with open_catalog(settings.duckdb_path) as db:
        return ShelfDB(db.conn).history_count()


def test_demo_batch_writes_a_workbook_that_explains_every_shelf(demo_run, demo_rows):
    workbook = demo_run.outputs_dir / "demo-2026-11.xlsx"
    wb = BatchWorkbook(workbook)
    summary = wb.summary
    review = [t for t, row in summary.items() if row["status"] == "待审核"]
    sheets = wb.book.sheetnames
    assert sheets[0] == "summary" and sheets[-2:] == ["details", IDS_SHEET]
    assert len(sheets) == 1 + 17 + (1 if review else 0) + 2
    assert all(row["status"] in ("已完成", "待审核") and row["books"] == len(wb.rows(t)) for t, row in summary.items())
    # a shelf the admission left empty (a mood it finds no book for) is never done; a topic's shelf is never empty
    assert all(row["status"] == "待审核" for row in summary.values() if not row["books"])
    assert all(wb.rows(t) for t in ("lu-xun", "scifi-after-1980", "reading-with-kids", "history-scene", "new-scifi"))
    # a provisional shelf is marked in its sheet name and listed with its question
    assert sum(name.startswith("REVIEW ") for name in sheets) == len(review)
    if review:
        listed = [row for row in wb.book["needs review"].iter_rows(min_row=2, values_only=True)]
        assert [row[0] for row in listed] == review and all(row[4] for row in listed)

    tags_by_title = {r["title"]: r["tags"] for r in demo_rows}
    for theme_id in ("no-healing", "rainy-night-quiet"):
        assert "MUST_NOT emotional_tone=温暖治愈" in summary[theme_id]["query"]
        titles = [row["title"] for row in wb.rows(theme_id)]
        assert titles and all("温暖治愈" not in tags_by_title[t]["emotional_tone"] for t in titles)
    # "1980年代以后出版的科幻小说": the year is a hard condition
    assert "MUST pub_year>=1980" in summary["scifi-after-1980"]["query"]
    assert all(row["year"] >= 1980 for row in wb.rows("scifi-after-1980"))
    quiet = wb.rows("rainy-night-quiet")
    assert all(row["why"] for row in quiet)  # every book says why
    assert any(row["evidence"] for row in quiet)  # and the summary sentence closest to the brief
    # what each query variant found: "vector: 84 above 0.44 (best by variant: synonyms 53, original 30, ...)"
    assert re.search(r"best by variant: .*original \d+", summary["rainy-night-quiet"]["notes"])


def test_rerun_gives_identical_shelves_and_no_new_history(demo_run_copy):
    workbook = demo_run_copy.outputs_dir / "demo-2026-11.xlsx"
    before = read_shelves(workbook)
    rows_before = history_rows(demo_run_copy)
    assert shelfwise(["run", str(DEMO_THEMES)]) == 0
    after = read_shelves(workbook)
    assert {k: v for k, v in after.items() if k != "summary"} == {k: v for k, v in before.items() if k != "summary"}
    assert history_rows(demo_run_copy) == rows_before


def test_next_batch_avoids_books_shelved_for_a_similar_theme(demo_run_copy, tmp_path):
    first = demo_run_copy.outputs_dir / "demo-2026-11.xlsx"
    earlier = {row["title"] for row in BatchWorkbook(first).rows("rainy-night-quiet")}
    themes = tmp_path / "next.yaml"
    themes.write_text(
        "batch_id: demo-next\nthemes:\n  - theme_id: rainy-again\n    theme_name: Quiet novels for a rainy night\n"
        "    slogan: Nothing heart-warming, please\n    description: Quiet, restrained novels for a rainy night "
        "alone. Melancholy is welcome; avoid heart-warming, feel-good stories.\n", encoding="utf-8")
    assert shelfwise(["run", str(themes)]) == 0
    wb = BatchWorkbook(demo_run_copy.outputs_dir / "demo-next.xlsx")
    later = {row["title"] for row in wb.rows("rainy-again")}
    assert not (later & earlier)  # the fitting books stand on the recent shelf: never again, never padded
    assert "history: skipped books of demo-2026-11/rainy-night-quiet" in wb.summary["rainy-again"]["notes"]
    assert "on recent similar shelves (Quiet novels for a rainy night)" in wb.summary["rainy-again"]["left_out"]


def test_each_batch_publishes_a_table_artifact(demo_copy, tmp_path):
    import json

    from prefect.artifacts import Artifact

    # the demo's new science fiction, as a batch of its own on this session's server (the demo batch is shelved
    # once per run, on one worker's server): a shelf of books with the admission on or off
    demo = yaml.safe_load(DEMO_THEMES.read_text(encoding="utf-8"))["themes"]
    scifi = [t for t in demo if t["theme_id"] == "new-scifi"]
    themes = tmp_path / "themes.yaml"
    themes.write_text(yaml.safe_dump({"batch_id": "demo-artifact", "themes": scifi}, allow_unicode=True),
                      encoding="utf-8")
    assert shelfwise(["run", str(themes)]) == 0
    artifact = Artifact.get("shelves-demo-artifact")
    assert artifact is not None and artifact.type == "table"
    rows = json.loads(artifact.data)
    assert rows[0]["theme"].startswith("本月新书") and {"rank", "title", "why"} <= set(rows[0])
    # no `shelfwise server` serves outputs/ here: the summary links the workbook as a file the browser opens
    summary = Artifact.get("shelves-demo-artifact-summary").data
    assert re.search(r"Workbook: \[demo-artifact\.xlsx\]\(file:///\S+/outputs/demo-artifact\.xlsx\)", summary)


def test_nightly_shelves_every_pending_batch_after_bringing_the_index_up_to_date(demo_copy, tmp_path):
    from flows.generate_shelves import nightly

    themes = tmp_path / "pending.yaml"
    themes.write_text("batch_id: demo-nightly\nthemes:\n  - theme_id: stars\n    theme_name: 宇宙星空\n"
                      "    description: 关于宇宙和星空的书\n", encoding="utf-8")
    assert shelfwise(["themes", "import", str(themes)]) == 0
    state = nightly(return_state=True)
    assert state.is_completed() and "demo-nightly" in state.message.split("batches shelved: ")[1]
    assert (demo_copy.outputs_dir / "demo-nightly.xlsx").exists()
    with open_catalog(demo_copy.duckdb_path) as db:
        assert "demo-nightly" not in ShelfDB(db.conn).pending_batches()


def test_a_brief_that_refers_to_last_time_takes_that_shelfs_conditions(demo_run_copy, tmp_path):
    themes = tmp_path / "ref.yaml"
    themes.write_text("batch_id: demo-ref\nthemes:\n  - theme_id: again\n    theme_name: 延续上次的主题，但更轻松一些\n",
                      encoding="utf-8")
    assert shelfwise(["run", str(themes)]) == 0
    summary = BatchWorkbook(demo_run_copy.outputs_dir / "demo-ref.xlsx").summary["again"]
    conditions, notes = summary["query"], summary["notes"]
    assert "reference (上次) -> " in notes and "(continue, lighter)" in notes
    referenced = notes.split("-> ")[1].split(" ")[0]  # batch/theme
    with open_catalog(demo_run_copy.duckdb_path) as db:
        # every shelf so far, as a later batch would see them
        everything = ShelfDB(db.conn).earlier_batches_history("later", datetime(2100, 1, 1), 100_000, 100_000)
    shelf = next(h for h in everything if f"{h.batch_id}/{h.theme_id}" == referenced)
    for cond in shelf.conditions:
        if cond.operator != "MUST_NOT":
            assert any(v in conditions for v in cond.values)
    assert "MUST_NOT emotional_tone=沉重压抑" in conditions


def test_a_batch_can_switch_on_the_sentence_rerank(demo_copy, demo_rows, tmp_path):
    themes = tmp_path / "sentences.yaml"
    themes.write_text("batch_id: demo-sentences\nthemes:\n  - theme_id: rain\n    theme_name: 适合雨天窗前读的安静小说\n",
                      encoding="utf-8")
    assert shelfwise(["run", str(themes), "--sentence-rerank", "--no-expansion"]) == 0
    wb = BatchWorkbook(demo_copy.outputs_dir / "demo-sentences.xlsx")
    notes = wb.summary["rain"]["notes"]
    assert "sentence rerank: top" in notes and "best by variant: original" in notes
    assert "translation" not in notes and "synonyms" not in notes  # expansion was switched off for this batch
    rows = wb.rows("rain")
    scores = [row["rerank_score"] for row in wb.details("rain")]
    summarised = {r["title"] for r in demo_rows if r["summary"]}
    # the rerank scores the head of the fused list; books of the brief's language further down fill the shelf
    scored = [s for s in scores if s is not None]
    assert len(scores) == len(rows) and scores[0] is not None and all(0.0 <= s <= 1.0 for s in scored)
    assert all(row["evidence"] for row in rows if row["title"] in summarised)  # evidence wherever there is a summary
    # a rerun without the switches (the nightly job's) keeps the batch's choice, and its shelf
    assert shelfwise(["run", str(themes)]) == 0
    again = BatchWorkbook(demo_copy.outputs_dir / "demo-sentences.xlsx")
    assert "sentence rerank: top" in again.summary["rain"]["notes"] and "synonyms" not in again.summary["rain"]["notes"]
    assert again.rows("rain") == rows
