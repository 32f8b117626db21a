"""The demo workbook read back as a curator reads, prints and answers it."""

import re
import shutil

import pytest

from config.vocabulary import get_vocabulary
from flows.cli import main as shelfwise
from tasks.export.excel import IDS_SHEET, SHELF_COLUMNS, TABLE_ROW, linked_sheet
from tasks.intake.answers import read_answered_workbook
from tasks.language.text_analysis import cjk_share, detect_language
from tests.flows.workbook_reading import BatchWorkbook

pytestmark = pytest.mark.slow

CURATOR_COLUMNS = {"zh": ["序号", "书名", "作者", "出版年", "索书号 / 分类", "可借", "推荐理由", "依据（简介原句）"],
                   "en": ["rank", "title", "authors", "year", "call no. / class", "copies", "why", "evidence"]}
NOTATION = re.compile("|".join([r"\bSHOULD\b", r"\bMUST(_NOT)?\b", "=", "≠", *get_vocabulary().dimension_names]))


@pytest.fixture(scope="module")
def demo_workbook(demo_run):
    return demo_run.outputs_dir / "demo-2026-11.xlsx"


@pytest.fixture(scope="module")
def workbook(demo_workbook):
    return BatchWorkbook(demo_workbook)


@pytest.fixture(scope="module")
def languages(workbook):
    """theme id -> the brief's language, read from the header block as a curator would."""
    return {theme_id: detect_language(str(workbook.sheet(theme_id)["A2"].value)) for theme_id in workbook.summary}


def test_curator_columns_come_first_and_provenance_is_on_the_details_sheet(workbook, languages):
    assert set(languages.values()) == {"zh", "en"}
    for theme_id, language in languages.items():
        header = [c.value for c in workbook.sheet(theme_id)[TABLE_ROW]]
        assert header[:8] == CURATOR_COLUMNS[language], theme_id
        rows = workbook.rows(theme_id)
        assert all(row["book_id"] and row["title"] and row["why"] for row in rows)
        assert [d["book_id"] for d in workbook.details(theme_id)] == [row["book_id"] for row in rows]
    assert {"rrf_score", "fused_score", "query_variant"} & set(key for key, _ in SHELF_COLUMNS) == set()


def test_no_why_is_internal_notation_and_each_is_in_its_briefs_language(workbook, languages):
    for theme_id, language in languages.items():
        sheet = workbook.sheet(theme_id)
        conditions = str(sheet["A4"].value)
        assert not NOTATION.search(conditions), conditions
        for row in workbook.rows(theme_id):
            why = row["why"]
            assert not NOTATION.search(why), (theme_id, why)
            if language == "zh":
                assert detect_language(why) == "zh", (theme_id, why)
            else:
                assert cjk_share(why) == 0, (theme_id, why)
        # an exclusion is said once, in the header, and on no row
        excluded = [c for c in workbook.summary[theme_id]["query"].split("; ") if c.startswith("MUST_NOT")]
        if excluded:
            assert conditions.count("不要：" if language == "zh" else "not: ") == 1
    like = {row["title"]: row["why"] for row in workbook.rows("like-biancheng")}
    # a read-alike of a novel keeps to novels: the author's essays (湘行散记) no longer stand there
    assert like["长河"].startswith("与《边城》同一作者：沈从文") and "湘行散记" not in like
    assert all(why.startswith("鲁迅的作品") for why in [r["why"] for r in workbook.rows("lu-xun")][:3])


def test_an_english_briefs_shelf_is_english_first_among_books_as_likely_to_fit(workbook, languages, demo_rows):
    language_of = {r["book_id"]: r["language"] for r in demo_rows}
    for theme_id in (t for t, lang in languages.items() if lang == "en"):
        books = [language_of[row["book_id"]] for row in workbook.rows(theme_id)]
        # language breaks ties among fitting books (tasks/ranking/language.py): it opens with its own language
        assert books and books[0] == "en", theme_id
    rainy = [language_of[row["book_id"]] for row in workbook.rows("rainy-night-quiet")]
    assert rainy.count("en") > len(rainy) / 2


def test_theme_sheets_print_landscape_one_page_wide_with_the_header_repeated(workbook):
    for theme_id in workbook.summary:
        sheet = workbook.sheet(theme_id)
        setup = sheet.page_setup
        assert setup.orientation == "landscape" and sheet.sheet_properties.pageSetUpPr.fitToPage
        assert (setup.fitToWidth, setup.fitToHeight) == (1, 0)
        assert sheet.print_title_rows == f"${TABLE_ROW}:${TABLE_ROW}"
        assert sheet.oddFooter.right.text == "&P / &N" and sheet.oddHeader.center.text


def test_the_verdict_column_is_a_dropdown_open_to_the_curator(workbook):
    lengths = {theme_id: len(workbook.rows(theme_id)) for theme_id in workbook.summary}
    assert max(lengths.values()) > 1  # a range of rows, not only the one-cell case, is read below
    for theme_id, length in lengths.items():
        sheet = workbook.sheet(theme_id)
        last = TABLE_ROW + length
        if not length:  # a shelf the admission left empty has no row to answer, so nothing to choose from
            assert not sheet.data_validations.dataValidation, theme_id
            continue
        (dropdown,) = sheet.data_validations.dataValidation
        assert dropdown.type == "list" and dropdown.formula1 in ('"keep,drop,replace"', '"保留,去掉,替换"')
        # a one-book shelf's range is its one cell, as Excel writes it
        assert str(dropdown.sqref) == (f"I{TABLE_ROW + 1}:I{last}" if last > TABLE_ROW + 1 else f"I{last}")
        assert sheet.protection.sheet and not sheet.protection.password
        assert not sheet[f"I{last}"].protection.locked and not sheet[f"J{last}"].protection.locked
        assert sheet[f"B{last}"].protection.locked


def test_the_summarys_links_resolve_to_every_theme_sheet(workbook):
    linked = list(workbook.sheets.values())
    themes = [name for name in workbook.book.sheetnames
              if name not in ("summary", "needs review", "details", IDS_SHEET)]
    assert sorted(linked) == sorted(themes)
    if "needs review" in workbook.book.sheetnames:
        review = workbook.book["needs review"]
        for row in range(2, review.max_row + 1):
            assert linked_sheet(review.cell(row=row, column=2)) in themes


def test_a_reviewed_demo_workbook_reads_back(demo_workbook, workbook, tmp_path):
    # the longest shelf, whether the admission is on (short shelves) or off: it has a second row to answer
    theme_id = max(workbook.summary, key=lambda t: len(workbook.rows(t)))
    reviewed = tmp_path / "reviewed.xlsx"
    shutil.copy(demo_workbook, reviewed)
    book = BatchWorkbook(reviewed)
    sheet = book.sheet(theme_id)
    sheet[f"I{TABLE_ROW + 2}"] = "drop"
    sheet[f"J{TABLE_ROW + 2}"] = "on last month's shelf"
    book.book.save(reviewed)
    second = workbook.rows(theme_id)[1]["book_id"]
    assert [(a.theme_id, a.book_id, a.verdict, a.note) for a in read_answered_workbook(reviewed).labels] == [
        (theme_id, second, "drop", "on last month's shelf")]


def test_a_theme_and_a_batch_choose_their_language_preference(demo_copy, demo_rows, tmp_path):
    themes = tmp_path / "languages.yaml"
    themes.write_text("batch_id: demo-languages\nthemes:\n"
                      "  - {theme_id: any, theme_name: 'Quiet novels for a rainy night', description: melancholy}\n"
                      "  - {theme_id: only, theme_name: 宇宙与星空, description: 关于宇宙和星空的书, "
                      "language_preference: only}\n", encoding="utf-8")
    assert shelfwise(["run", str(themes), "--language-preference", "any"]) == 0
    wb = BatchWorkbook(demo_copy.outputs_dir / "demo-languages.xlsx")
    language_of = {r["book_id"]: r["language"] for r in demo_rows}
    mixed = {language_of[row["book_id"]] for row in wb.rows("any")}
    assert mixed == {"zh", "en"}  # the batch's "any": no preference
    assert {language_of[row["book_id"]] for row in wb.rows("only")} == {"zh"}  # the theme's own "only"
    assert "只要中文图书" in str(wb.sheet("only")["A4"].value)
