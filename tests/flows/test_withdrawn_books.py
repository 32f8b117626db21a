"""A withdrawn book leaves every later shelf at once (before any index build) and the next index build."""

import pytest
import yaml

from flows.cli import main as shelfwise
from storage.catalog_db import open_catalog
from tests.conftest import DEMO_THEMES
from tests.flows.workbook_reading import BatchWorkbook

pytestmark = pytest.mark.slow


def test_a_withdrawn_book_never_appears_on_a_later_shelf(demo_run_copy, tmp_path, capsys):
    workbook = demo_run_copy.outputs_dir / "demo-2026-11.xlsx"
    # the longest shelf, with the admission on (short shelves) or off: three books to withdraw and some to keep
    book = BatchWorkbook(workbook)
    theme_id = max(book.summary, key=lambda t: len(book.rows(t)))
    shelved = [row["book_id"] for row in book.rows(theme_id)]
    gone, kept = shelved[:3], shelved[3:]
    assert kept
    assert shelfwise(["catalog", "remove", *gone]) == 0
    # the same batch again, that theme alone (its own shelves are no history; the other sixteen would only cost)
    batch = yaml.safe_load(DEMO_THEMES.read_text(encoding="utf-8"))
    batch["themes"] = [t for t in batch["themes"] if t["theme_id"] == theme_id]
    (tmp_path / "again.yaml").write_text(yaml.safe_dump(batch, allow_unicode=True), encoding="utf-8")
    assert shelfwise(["run", str(tmp_path / "again.yaml")]) == 0
    again = {row["book_id"] for row in BatchWorkbook(workbook).rows(theme_id)}
    assert not again & set(gone)
    assert set(kept) & again  # the rest of the shelf is still there: the withdrawal, not history, took them off
    with open_catalog(demo_run_copy.duckdb_path) as db:
        before = db.current_index_version().book_count
        assert db.withdrawn_ids() == frozenset(gone)
    capsys.readouterr()
    assert shelfwise(["index", "build"]) == 0
    with open_catalog(demo_run_copy.duckdb_path) as db:
        assert db.current_index_version().book_count == before - 3


def test_try_leaves_out_a_book_withdrawn_since_the_build(demo_copy, capsys):
    def shelf() -> list[str]:
        capsys.readouterr()
        assert shelfwise(["try", "quiet novels for a rainy night", "--yaml"]) == 0
        return [entry["book_id"] for entry in yaml.safe_load(capsys.readouterr().out)["shelf"]]

    before = shelf()
    assert shelfwise(["catalog", "remove", before[0]]) == 0
    after = shelf()
    assert before[0] not in after and set(before[1:4]) <= set(after)
