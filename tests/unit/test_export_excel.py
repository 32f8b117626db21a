"""The workbook: sheets, styling, and data that can never become a formula."""

from openpyxl import load_workbook

from storage.models import BookRecord, FilterCondition, Theme
from tasks.export.excel import sheet_title, write_workbook
from tasks.models import Candidate, ThemeQuery
from tasks.ranking.reasons import Meets
from tasks.ranking.shelf import ShelfEntry, ThemeShelf

EVIL_THEME = "=cmd|' /C calc'!A0"
EVIL_TITLE = '=HYPERLINK("http://x")'


def make_shelf(theme_name: str, titles: list[str], position: int = 1) -> ThemeShelf:
    query = ThemeQuery((FilterCondition("emotional_tone", ("平静淡然",), "SHOULD"),), ("rain",), "q", 0.8, "rules")
    entries = [ShelfEntry(i + 1, BookRecord(f"b{i}", t, authors=("A\x07uthor",), pub_year=2001),
                          Candidate(f"b{i}", ["vector", "bm25"], {"vector": i + 1, "bm25": 2}, {}, 0.03),
                          reasons=(Meets("emotional_tone", ("平静淡然",)),))
               for i, t in enumerate(titles)]
    return ThemeShelf(Theme("b1", f"t{position}", theme_name, position=position), query, entries, "done",
                      ["note"], {"vector": 0.01})


def test_formulas_in_data_come_out_as_text(tmp_path):
    path = write_workbook(tmp_path / "b1.xlsx", "b1", [make_shelf(EVIL_THEME, [EVIL_TITLE, "=1+1"])])
    wb = load_workbook(path)
    summary = wb["summary"]
    assert summary["B2"].value == EVIL_THEME and summary["B2"].data_type == "s"
    shelf = wb[wb.sheetnames[1]]
    assert shelf["B2"].value == EVIL_TITLE and shelf["B2"].data_type == "s"
    assert shelf["B3"].value == "=1+1" and shelf["B3"].data_type == "s"
    assert shelf["C2"].value == "Author"  # illegal control character stripped
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            assert all(cell.data_type != "f" for cell in row)


def test_sheets_are_styled_frozen_filterable_and_written_atomically(tmp_path):
    path = write_workbook(tmp_path / "b1.xlsx", "b1", [make_shelf("Rain", ["Stoner"])])
    ws = load_workbook(path)[load_workbook(path).sheetnames[1]]
    assert [c.value for c in ws[1]][:4] == ["rank", "title", "authors", "year"]
    assert ws["A1"].font.bold and ws.freeze_panes == "A2" and ws.auto_filter.ref == "A1:O2"
    assert ws.column_dimensions["N"].width == 70  # why
    assert ws["I2"].value == 1 and ws["J2"].value == 2  # vector_rank, bm25_rank as numbers
    assert [p.name for p in tmp_path.iterdir()] == ["b1.xlsx"]  # no temporary file left behind


def test_sheet_names_are_cleaned_and_unique():
    used = {"summary"}
    assert sheet_title("a/b:c*d?[e]\\f", used) == "a_b_c_d__e__f"
    long = "x" * 40
    first, second = sheet_title(long, used), sheet_title(long, used)
    assert first == "x" * 31 and second == "x" * 27 + " (2)"
    assert sheet_title("Summary", used) == "Summary (2)"
