"""The review loop on the demo catalog, through real Prefect flow runs: a workbook answered with openpyxl as a
curator would, imported, the batch reshelved with the answers; and the same through the nightly run's inbox."""

import shutil
import subprocess

import pytest
from openpyxl import load_workbook

from config.settings import load_settings
from flows.cli import main as shelfwise
from storage.catalog_db import open_catalog
from storage.labels import LabelsDB
from tests.conftest import copy_workspace, workspace_env
from tests.flows.workbook_reading import BatchWorkbook

pytestmark = pytest.mark.slow

BATCH = "demo-review"
# Topic briefs the demo holds many books of, so that each shelf is the same with the admission on or off (a mood
# shelf may be a book or two long with it on): a shelf that every fitting book is on already, a genre's shelf of a
# few, a full shelf with more fitting books than it holds, and a short one with a question.
THEMES = f"""batch_id: {BATCH}
themes:
  - theme_id: mystery
    theme_name: Mystery and crime novels
  - theme_id: history
    theme_name: 历史非虚构
  - theme_id: short-scifi
    theme_name: 1990年以后出版的科幻小说，300页以内
  - theme_id: novels
    theme_name: 长篇小说
"""
RELAX_PAGES = "不再要求：不超过 300 页"


def _shelf(workbook: BatchWorkbook, theme_id: str) -> list[str]:
    return [row["book_id"] for row in workbook.rows(theme_id) if row["book_id"]]


def _answer(path, out):
    """A curator's answers: history keeps 1 and 3, drops 2 (in English on a Chinese sheet); mystery keeps 2, drops 1
    (in Chinese on an English one); novels, a full shelf (more books fit than it holds), replaces 4; the short
    shelf's question answered by dropping the page limit."""
    book = BatchWorkbook(path)
    first = 8
    history, mystery = book.sheet("history"), book.sheet("mystery")
    for row, word in ((first, "keep"), (first + 1, "drop"), (first + 2, "Keep")):
        history[f"I{row}"] = word
    history[f"J{first + 1}"] = "read it last month"
    mystery[f"I{first}"], mystery[f"I{first + 1}"] = "去掉", "保留"
    book.sheet("novels")[f"I{first + 3}"] = "替换"
    review = book.book["needs review"]
    row = next(r for r in range(2, review.max_row + 1) if review.cell(r, 1).value == "short-scifi")
    assert RELAX_PAGES in review.cell(row, 6).value
    review.cell(row, 7).value = RELAX_PAGES
    book.book.save(out)
    return out


@pytest.fixture(scope="module")
def answered_batch(prefect_server, demo_workspace, tmp_path_factory):
    """The review batch shelved once, in a copy of the demo workspace of its own, and its workbook answered."""
    root = tmp_path_factory.mktemp("review")
    themes = root / "review.yaml"
    themes.write_text(THEMES, encoding="utf-8")
    with workspace_env(copy_workspace(demo_workspace, root)):
        assert shelfwise(["run", str(themes)]) == 0
        settings = load_settings()
    return settings, _answer(settings.outputs_dir / f"{BATCH}.xlsx", root / "answered.xlsx")


@pytest.fixture
def answered(answered_batch, tmp_path, monkeypatch):
    """A copy of the shelved review batch's workspace, made this test's, with the workbook as shelved and the
    curator's answers."""
    shelved, path = answered_batch
    for key, value in copy_workspace(shelved, tmp_path).items():
        monkeypatch.setenv(key, value)
    settings = load_settings()
    return settings, BatchWorkbook(settings.outputs_dir / f"{BATCH}.xlsx"), path


def test_a_reshelved_batch_keeps_drops_replaces_and_applies_the_answer(answered, capsys):
    settings, before, path = answered
    themes = ("history", "mystery", "short-scifi", "novels")
    history, mystery, short, novels = (_shelf(before, t) for t in themes)
    assert before.summary["short-scifi"]["status"] == "待审核" and len(novels) == 30
    assert shelfwise(["review", "import", str(path)]) == 0
    assert "7 labels added" in capsys.readouterr().out
    assert shelfwise(["run", "--batch", BATCH, "--apply-review"]) == 0
    after = BatchWorkbook(settings.outputs_dir / f"{BATCH}.xlsx")
    new_history, new_mystery, new_short, new_novels = (_shelf(after, t) for t in themes)
    # kept books in their places; dropped and replaced ones gone; a dropped book's place closes up, and no book
    # below the relevance floor comes in: every fitting one was on the shelf already
    assert (new_history[0], new_history[2], new_mystery[1]) == (history[0], history[2], mystery[1])
    assert history[1] not in new_history and mystery[0] not in new_mystery
    assert new_history == [history[0], history[3], history[2], *history[4:]]
    changes = {row["book_id"]: row["change"] for row in after.rows("history")}
    assert changes[history[0]] == "馆员保留，原位不动"  # in the sheet's language: kept by the curator, in place
    assert changes[new_history[1]] == "原第 4 位"  # was 4
    # a replaced book's place is filled by the next fitting book
    assert novels[3] not in new_novels and new_novels[3] not in novels and len(new_novels) == 30
    assert {row["book_id"]: row["change"] for row in after.rows("novels")}[new_novels[3]] == \
        f"新补入，替下：{novels[3]}"
    # the answer dropped the page limit: the shelf grows, the condition is gone
    assert "pages" not in after.summary["short-scifi"]["query"] and "pages" in before.summary["short-scifi"]["query"]
    assert len(new_short) > len(short)
    assert any(row["change"].startswith("新补入") for row in after.rows("short-scifi"))
    # applying the same answers again gives the same shelves; a dropped book never comes back
    assert shelfwise(["run", "--batch", BATCH, "--apply-review"]) == 0
    again = BatchWorkbook(settings.outputs_dir / f"{BATCH}.xlsx")
    assert [_shelf(again, t) for t in themes] == [new_history, new_mystery, new_short, new_novels]
    assert history[1] not in _shelf(again, "history")


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed")
def test_the_demo_workbook_resaved_by_libreoffice_imports_the_same_labels(answered, tmp_path):
    settings, _, path = answered
    out = tmp_path / "resaved"
    subprocess.run(["soffice", "--headless", "--convert-to", "xlsx", "--outdir", str(out), str(path)], check=True,
                   capture_output=True, timeout=300, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert shelfwise(["review", "import", str(path)]) == 0
    with open_catalog(settings.duckdb_path, read_only=True) as db:
        labels = LabelsDB(db.conn, read_only=True).latest(BATCH)
    assert shelfwise(["review", "import", str(out / path.name)]) == 0
    with open_catalog(settings.duckdb_path, read_only=True) as db:
        assert LabelsDB(db.conn, read_only=True).latest(BATCH) == labels and len(labels) == 7


def test_the_nightly_run_imports_answers_from_the_inbox_and_reshelves(answered):
    from flows.generate_shelves import nightly

    settings, before, path = answered
    inbox = settings.workspace / "inbox"
    inbox.mkdir(exist_ok=True)
    shutil.copy(path, inbox / "answered.xlsx")
    bad = load_workbook(path)
    bad[bad.sheetnames[2]]["I8"] = "maybe"
    bad.save(inbox / "typo.xlsx")
    state = nightly(return_state=True)
    assert state.is_completed() and BATCH in state.message
    assert not (inbox / "answered.xlsx").exists()
    assert "verdict 'maybe'" in (inbox / "rejected" / "typo.xlsx.reason.txt").read_text(encoding="utf-8")
    after = BatchWorkbook(settings.outputs_dir / f"{BATCH}.xlsx")
    history = _shelf(before, "history")
    assert _shelf(after, "history")[0] == history[0] and history[1] not in _shelf(after, "history")
    # the import-review deployment's flow: the same file again changes nothing; a bad one fails, saying why
    from flows.review import import_review_flow

    again = import_review_flow(workbook=str(path), return_state=True)
    assert again.is_completed() and "already imported, nothing changed" in again.message
    refused = import_review_flow(workbook=str(inbox / "rejected" / "typo.xlsx"), return_state=True)
    assert refused.is_failed() and "verdict 'maybe'" in refused.message
