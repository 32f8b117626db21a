"""An answered workbook comes back: labels in a real DuckDB file, answered through openpyxl as a curator would,
and every kind of bad workbook refused with one line naming the sheet, row and cell, the labels unchanged."""

import json
import shutil
import subprocess

import pytest
from openpyxl import load_workbook

from flows.cli import main as shelfwise
from flows.review import import_review
from storage.catalog_db import open_catalog
from storage.labels import LabelsDB
from storage.shelf_db import ShelfDB
from tasks.errors import InputError
from tasks.export.excel import IDS_SHEET, TABLE_ROW, write_workbook
from tests.export.test_export_excel import make_shelf

EN, ZH = "01 Rain", "REVIEW 02 雨"  # the sheets make_shelf's two themes get: t1 in English, t2 in Chinese
FIRST = TABLE_ROW + 1


def _workbook(settings, tmp_path, batch_id: str = "b1", workspace_id: str | None = None):
    """The batch known to the workspace, and its workbook as Shelfwise writes it."""
    with open_catalog(settings.duckdb_path) as db:
        ShelfDB(db.conn).start_batch("b1")
        own = LabelsDB(db.conn).workspace_id()
    shelves = [make_shelf("Rain", ["Stoner", "Gilead", "Tinkers"]),
               make_shelf("雨", ["边城", "呼兰河传"], position=2, status="needs_review")]
    return write_workbook(tmp_path / f"{batch_id}.xlsx", batch_id, shelves,
                          own if workspace_id is None else workspace_id)


def _answer(path, edits: dict[tuple[str, str], object], saved_as=None):
    """Write cells as a curator would in a spreadsheet program, and save."""
    wb = load_workbook(path)
    for (sheet, cell), value in edits.items():
        wb[sheet][cell] = value
    wb.save(saved_as or path)
    return saved_as or path


def _labels(settings) -> list[tuple]:
    with open_catalog(settings.duckdb_path, read_only=True) as db:
        return [(lb.theme_id, lb.book_id, lb.rank, lb.verdict, lb.note, lb.answer)
                for lb in LabelsDB(db.conn, read_only=True).latest()]


def _count(settings) -> int:
    with open_catalog(settings.duckdb_path, read_only=True) as db:
        return LabelsDB(db.conn, read_only=True).count()


ANSWERS = {(EN, f"I{FIRST}"): "keep", (EN, f"I{FIRST + 1}"): "Drop", (EN, f"J{FIRST + 1}"): "seen last month",
           (EN, f"I{FIRST + 2}"): "replace", (ZH, f"I{FIRST}"): "保留", (ZH, f"I{FIRST + 1}"): "去掉",
           (ZH, f"J{FIRST + 1}"): "太长", ("needs review", "G2"): "允许基调温暖治愈"}


def test_verdicts_notes_and_answers_in_both_languages_are_stored_once(workspace, tmp_path):
    path = _answer(_workbook(workspace, tmp_path), ANSWERS)
    first = import_review(workspace, path)
    assert (first.added, first.already_imported) == (6, False)
    assert _labels(workspace) == [
        ("t1", "b0", 1, "keep", "", ""), ("t1", "b1", 2, "drop", "seen last month", ""),
        ("t1", "b2", 3, "replace", "", ""), ("t2", "", None, None, "", "允许基调温暖治愈"),
        ("t2", "b0", 1, "keep", "", ""), ("t2", "b1", 2, "drop", "太长", "")]
    with open_catalog(workspace.duckdb_path, read_only=True) as db:
        action = LabelsDB(db.conn, read_only=True).latest()[3].action
    assert json.loads(action) == {"kind": "drop", "conditions": [
        {"field": "emotional_tone", "values": ["温暖治愈"], "operator": "MUST_NOT"}]}
    assert import_review(workspace, path).already_imported and _count(workspace) == 6
    # a later answer for the same book supersedes the earlier one; both are kept
    later = _answer(path, {(EN, f"I{FIRST}"): "drop"}, saved_as=tmp_path / "later.xlsx")
    assert import_review(workspace, later).added == 1
    assert _labels(workspace)[0][:4] == ("t1", "b0", 1, "drop") and _count(workspace) == 7


def _swap_rows(wb):
    ws = wb[EN]
    for col in range(1, ws.max_column + 1):
        a, b = ws.cell(FIRST, col), ws.cell(FIRST + 1, col)
        a.value, b.value = b.value, a.value


def _delete_row(wb):
    wb[EN].delete_rows(FIRST + 1)


def _merge(wb):
    wb[EN].merge_cells(f"I{FIRST}:J{FIRST}")


def _edit_id(wb):
    wb[EN][f"K{FIRST + 2}"] = "b7"


def _edit_ids_sheet(wb):
    wb[IDS_SHEET]["E3"] = "b7"


def _add_row(wb):
    wb[EN][f"I{FIRST + 3}"] = "keep"


REFUSED = [
    ("rows sorted", _swap_rows, f"sheet '{EN}' row {FIRST} cell K{FIRST}: 'b1' where Shelfwise wrote 'b0'"),
    ("row deleted", _delete_row, f"sheet '{EN}' row {FIRST + 1} cell K{FIRST + 1}: 'b2' where Shelfwise wrote 'b1'"),
    ("merged cells", _merge, f"sheet '{EN}' row {FIRST} cell I{FIRST}: merged cells (I{FIRST}:J{FIRST})"),
    ("id edited", _edit_id, f"sheet '{EN}' row {FIRST + 2} cell K{FIRST + 2}: 'b7' where Shelfwise wrote 'b2'"),
    ("ids sheet edited", _edit_ids_sheet, f"sheet '{IDS_SHEET}' row"),
    ("row added", _add_row, f"sheet '{EN}' row {FIRST + 3} cell K{FIRST + 3}: a row Shelfwise did not write"),
    ("english verdict", lambda wb: wb[EN].__setitem__(f"I{FIRST}", "kep"),
     f"sheet '{EN}' row {FIRST} cell I{FIRST}: verdict 'kep' is not one of 保留 / 去掉 / 替换 / keep / drop / replace"),
    ("chinese verdict", lambda wb: wb[ZH].__setitem__(f"I{FIRST}", "留着"),
     f"sheet '{ZH}' row {FIRST} cell I{FIRST}: verdict '留着' is not one of"),
    ("answer", lambda wb: wb["needs review"].__setitem__("G2", "都行"),
     "sheet 'needs review' row 2 cell G2: answer '都行' is not one of the options: 不再要求：1980 年以后出版 / 允许基调温暖治愈"),
]


@pytest.mark.parametrize("edit,expected", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_a_bad_workbook_is_refused_with_its_sheet_row_and_cell(workspace, tmp_path, capsys, edit, expected):
    good = _answer(_workbook(workspace, tmp_path), ANSWERS)
    assert import_review(workspace, good).added == 6
    before = _labels(workspace)
    wb = load_workbook(good)
    wb[EN][f"I{FIRST}"] = "drop"  # an answer that would change a label, were the file accepted
    edit(wb)
    bad = tmp_path / "bad.xlsx"
    wb.save(bad)
    assert shelfwise(["review", "import", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and expected in err, err
    assert _labels(workspace) == before and _count(workspace) == 6


@pytest.mark.parametrize("batch_id,workspace_id,expected", [
    ("b1", "0123", f"sheet '{IDS_SHEET}' row 2 cell F2: a workbook of another workspace (0123)"),
    ("b-other", None, f"sheet '{IDS_SHEET}' row 2 cell D2: batch 'b-other' is not one of this workspace's")])
def test_a_workbook_of_another_workspace_or_batch_is_refused(workspace, tmp_path, capsys, batch_id, workspace_id,
                                                             expected):
    path = _answer(_workbook(workspace, tmp_path, batch_id, workspace_id), ANSWERS)
    assert shelfwise(["review", "import", str(path)]) == 2
    assert expected in capsys.readouterr().err
    assert _count(workspace) == 0


def test_a_file_that_is_not_a_workbook_is_refused(workspace, tmp_path, capsys):
    _workbook(workspace, tmp_path)
    fake = tmp_path / "answers.xlsx"
    fake.write_text("book_id,verdict\nb0,keep\n", encoding="utf-8")
    assert shelfwise(["review", "import", str(fake)]) == 2
    assert "answers.xlsx: not an Excel workbook" in capsys.readouterr().err
    with pytest.raises(InputError, match="no sheet 'shelfwise ids'"):
        from openpyxl import Workbook

        other = tmp_path / "other.xlsx"
        Workbook().save(other)
        import_review(workspace, other)


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed")
def test_a_workbook_resaved_by_libreoffice_imports_the_same_labels(workspace, tmp_path):
    answered = _answer(_workbook(workspace, tmp_path), ANSWERS)
    out = tmp_path / "libreoffice"
    out.mkdir()
    source = tmp_path / "answered.ods"  # through LibreOffice's own format and back: every part rewritten by it
    shutil.copy(answered, tmp_path / "answered.xlsx")
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run(["soffice", "--headless", "--convert-to", "ods", "--outdir", str(tmp_path),
                    str(tmp_path / "answered.xlsx")], check=True, capture_output=True, timeout=180, env=env)
    subprocess.run(["soffice", "--headless", "--convert-to", "xlsx", "--outdir", str(out), str(source)],
                   check=True, capture_output=True, timeout=180, env=env)
    resaved = out / "answered.xlsx"
    assert resaved.read_bytes() != answered.read_bytes()
    import_review(workspace, answered)
    expected = _labels(workspace)
    imported = import_review(workspace, resaved)
    assert (imported.already_imported, imported.added, imported.known) == (False, 0, 6)
    assert _labels(workspace) == expected
