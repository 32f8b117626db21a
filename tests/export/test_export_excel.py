"""The workbook: a curator's sheet per theme, print setup, answers read back, data never a formula."""

from openpyxl import load_workbook

from tasks.export.excel import (
    SHELF_COLUMNS,
    TABLE_ROW,
    call_number,
    line_count,
    linked_sheet,
    sheet_title,
    theme_sheet_title,
    write_workbook,
)
from tasks.intake.answers import read_answered_workbook
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.reasons import LanguageChoice, Meets, Mentions, UnavailableLeftOut
from tasks.model.shelf import GateVerdict, Question, ShelfEntry, ThemeShelf
from tasks.model.themes import Theme

EVIL_THEME = "=cmd|' /C calc'!A0"
EVIL_TITLE = '=HYPERLINK("http://x")'
ZH_COLUMNS = ["序号", "书名", "作者", "出版年", "索书号 / 分类", "可借", "推荐理由", "依据（简介原句）"]
REASONS = (Meets("emotional_tone", ("忧伤怅惘",)), Mentions("summary", ("rain",)))
EN_COLUMNS = ["rank", "title", "authors", "year", "call no. / class", "copies", "why", "evidence"]


def make_shelf(theme_name: str, titles: list[str], position: int = 1, status: str = "done",
               description: str = "") -> ThemeShelf:
    query = ThemeQuery((FilterCondition("emotional_tone", ("忧伤怅惘",), "SHOULD"),
                        FilterCondition("emotional_tone", ("温暖治愈",), "MUST_NOT")), ("rain",), "q", 0.8, "rules",
                       numeric_conditions=(NumericCondition("pub_year", ">=", 1980),))
    entries = [ShelfEntry(i + 1, BookRecord(f"b{i}", t, authors=("A\x07uthor",), pub_year=2001, call_no="I247/1",
                                            classification=("clc:I247", "ddc:823.914"), copies_available=2,
                                            material="text",
                                            isbn="9787020000000"),
                          Candidate(f"b{i}", ["vector", "bm25"], {"vector": i + 1, "bm25": 2}, {}, 0.03,
                                    fused_score=0.5, evidence="It rains.", relevance=0.8125),
                          ("b9",) if i == 0 else (), REASONS)
               for i, t in enumerate(titles)]
    relax = Question("conditions", relax=(NumericCondition("pub_year", ">=", 1980),
                                          FilterCondition("emotional_tone", ("温暖治愈",), "MUST_NOT")))
    verdict = GateVerdict(status, ("only 1 book passes (fewer than 15)",), relax,
                          "conditions") if status == "needs_review" else GateVerdict(status)
    theme = Theme("b1", f"t{position}", theme_name, description=description, position=position)
    return ThemeShelf(theme, query, entries, status, ["note"], {"vector": 0.01}, verdict,
                      facts=(UnavailableLeftOut(), LanguageChoice("en", "first")))


def theme_sheet(path, index: int = 1):
    wb = load_workbook(path)
    return wb, wb[wb.sheetnames[index]]


def test_formulas_in_data_come_out_as_text(tmp_path):
    path = write_workbook(tmp_path / "b1.xlsx", "b1", [make_shelf(EVIL_THEME, [EVIL_TITLE, "=1+1"])])
    wb, shelf = theme_sheet(path)
    assert wb["summary"]["B2"].value == EVIL_THEME and wb["summary"]["B2"].data_type == "s"
    assert shelf["A1"].value == EVIL_THEME and shelf["A1"].data_type == "s"
    first = TABLE_ROW + 1
    assert shelf[f"B{first}"].value == EVIL_TITLE and shelf[f"B{first}"].data_type == "s"
    assert shelf[f"B{first + 1}"].value == "=1+1" and shelf[f"B{first + 1}"].data_type == "s"
    assert shelf[f"C{first}"].value == "Author"  # illegal control character stripped
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            assert all(cell.data_type != "f" for cell in row)


def test_a_theme_sheet_opens_with_its_brief_then_the_curators_columns(tmp_path):
    path = write_workbook(tmp_path / "b1.xlsx", "b1", [make_shelf("雨夜", ["边城"], description="不要温暖治愈的")])
    _, ws = theme_sheet(path)
    header = [str(ws.cell(row=r, column=1).value) for r in range(1, TABLE_ROW)]
    assert header[0] == "雨夜" and header[1] == "主题说明：不要温暖治愈的" and header[2] == "状态：已完成；1 本"
    assert header[3] == "条件：最好：基调忧伤怅惘；不要：基调温暖治愈；1980 年以后出版；英文图书优先"
    assert header[4] == "未收入：没有可借复本的书"
    columns = [c.value for c in ws[TABLE_ROW]]
    assert columns[:8] == ZH_COLUMNS and columns[8:] == ["处理", "馆员备注", "书目 ID", "ISBN", "其他版本", "载体", "变动"]
    row = dict(zip([k for k, _ in SHELF_COLUMNS], [c.value for c in ws[TABLE_ROW + 1]]))
    assert row["why"] == "基调忧伤怅惘；简介提到「rain」" and row["call_no"] == "I247/1 · DDC 823.914"
    assert (row["book_id"], row["isbn"], row["copies"], row["other_editions"]) == ("b0", "9787020000000", 2, "b9")
    assert row["material"] == "文字资料"  # what the record says the book is, in the sheet's language
    assert ws.freeze_panes == f"A{TABLE_ROW + 1}" and ws.auto_filter.ref == f"A{TABLE_ROW}:O{TABLE_ROW + 1}"


def test_an_english_brief_gets_an_english_sheet(tmp_path):
    path = write_workbook(tmp_path / "b1.xlsx", "b1", [make_shelf("Rainy night", ["Stoner"])])
    _, ws = theme_sheet(path)
    assert [c.value for c in ws[TABLE_ROW]][:8] == EN_COLUMNS
    assert ws.cell(row=4, column=1).value == ("conditions: Preferably: melancholy tone; not: heartwarming tone; "
                                              "published in 1980 or later; books in English first")
    assert ws.cell(row=TABLE_ROW + 1, column=7).value == "Melancholy tone; its summary mentions 'rain'"


def test_a_theme_sheet_prints_landscape_one_page_wide_with_its_header_repeated(tmp_path):
    _, ws = theme_sheet(write_workbook(tmp_path / "b1.xlsx", "b1", [make_shelf("Rain & storm", ["Stoner"])]))
    assert ws.page_setup.orientation == "landscape" and ws.sheet_properties.pageSetUpPr.fitToPage
    assert (ws.page_setup.fitToWidth, ws.page_setup.fitToHeight) == (1, 0)
    assert ws.print_title_rows == f"${TABLE_ROW}:${TABLE_ROW}"
    assert ws.oddHeader.center.text == "Rain && storm" and ws.oddFooter.right.text == "&P / &N"
    why = ws.cell(row=TABLE_ROW + 1, column=7)
    assert why.alignment.wrap_text and ws.row_dimensions[TABLE_ROW + 1].height >= 15


def test_only_the_verdict_and_note_cells_are_open_and_the_verdict_is_a_dropdown(tmp_path):
    _, ws = theme_sheet(write_workbook(tmp_path / "b1.xlsx", "b1", [make_shelf("Rain", ["Stoner", "Akenfield"])]))
    assert ws.protection.sheet and not ws.protection.password
    first, last = TABLE_ROW + 1, TABLE_ROW + 2
    for row in range(1, last + 1):
        for col in range(1, len(SHELF_COLUMNS) + 1):
            open_cell = row >= first and col in (9, 10)
            assert ws.cell(row=row, column=col).protection.locked is not open_cell, (row, col)
    (dropdown,) = ws.data_validations.dataValidation
    assert dropdown.type == "list" and dropdown.formula1 == '"keep,drop,replace"'
    assert str(dropdown.sqref) == f"I{first}:I{last}"


def test_summary_links_every_theme_sheet_and_a_reviewed_workbook_reads_back(tmp_path):
    shelves = [make_shelf("Rain", ["Stoner", "Akenfield"]), make_shelf("雨", ["边城"], 2, "needs_review")]
    path = write_workbook(tmp_path / "b1.xlsx", "b1", shelves)
    wb = load_workbook(path)
    assert wb.sheetnames == ["summary", "needs review", "01 Rain", "REVIEW 02 雨", "details", "shelfwise ids"]
    assert [linked_sheet(wb["summary"].cell(row=r, column=2)) for r in (2, 3)] == ["01 Rain", "REVIEW 02 雨"]
    review = [c.value for c in wb["needs review"][2]]
    assert review[:6] == ["t2", "雨", "雨", "待审核；1 本；受限于：主题的硬性条件", "符合全部条件的书太少，可以放宽哪一个？",
                          "不再要求：1980 年以后出版 / 允许基调温暖治愈"]
    assert wb["REVIEW 02 雨"]["A3"].value == "状态：待审核；1 本；受限于：主题的硬性条件；符合全部条件的书太少，可以放宽哪一个？"
    assert linked_sheet(wb["needs review"].cell(row=2, column=2)) == "REVIEW 02 雨"
    details = [c.value for c in wb["details"][2]]
    assert details[:5] == ["t1", 1, "b0", "Stoner", "vector, bm25"] and details[-2:] == [0.5, 0.812]
    # a curator answers on two sheets; the verdicts come back with their book ids
    wb["01 Rain"].cell(row=TABLE_ROW + 2, column=9, value="drop")
    wb["01 Rain"].cell(row=TABLE_ROW + 2, column=10, value="seen last month")
    wb["REVIEW 02 雨"].cell(row=TABLE_ROW + 1, column=9, value="替换")
    wb.save(path)
    assert [(a.theme_id, a.book_id, a.verdict, a.note) for a in read_answered_workbook(path).labels] == [
        ("t1", "b1", "drop", "seen last month"), ("t2", "b0", "replace", "")]


def test_sheet_names_are_readable_unique_and_safe():
    used = {"summary"}
    assert sheet_title("a/b:c*d?[e]\\f", used) == "a_b_c_d__e__f"
    long = "x" * 40
    first, second = sheet_title(long, used), sheet_title(long, used)
    assert first == "x" * 31 and second == "x" * 27 + " (2)"
    assert sheet_title("Summary", used) == "Summary (2)"
    # a name that would be cut gives way to the theme id
    assert theme_sheet_title(make_shelf("Quiet novels for a rainy night", [], 2), used) == "02 t2"
    assert theme_sheet_title(make_shelf("Rain: again", [], 3, "needs_review"), used) == "REVIEW 03 Rain_ again"


def test_call_numbers_name_the_classes_they_do_not_already_start_with():
    entry = make_shelf("x", ["y"]).entries[0]
    assert call_number(entry) == "I247/1 · DDC 823.914"


def test_row_heights_follow_wrapped_words_and_wide_characters():
    assert line_count("short", 20) == 1
    assert line_count("与《边城》一样：基调浪漫深情；文字诗意抒情；基调忧伤怅惘", 36) == 2  # 28 wide characters
    assert line_count("PR6057.A319 O24 · DDC 823.914", 14) == 3  # words wrap whole
    assert line_count("a\nb", 20) == 2


def test_a_cell_style_is_what_setting_its_attributes_gives_in_every_workbook():
    from openpyxl import Workbook
    from openpyxl.styles import Font, PatternFill, Protection

    from tasks.export.excel import ANSWER, HEADER

    for shift in (0, 3):  # the second workbook registers other fonts first: its style ids differ
        wb = Workbook()
        ws = wb.active
        for i in range(shift):
            ws.cell(row=10, column=i + 1).font = Font(size=20 + i)
            ws.cell(row=11, column=i + 1).fill = PatternFill("solid", fgColor="00FF00")
        ws["A1"].protection = Protection(locked=False)  # what a cell had stays under a style that does not set it
        for ref in ("A1", "A2", "A3"):
            HEADER.apply(ws[ref])
        ANSWER.apply(ws["A3"])
        for ref in ("A1", "A2", "A3"):
            assert ws[ref].font.bold and ws[ref].font.color.rgb == "00FFFFFF" and ws[ref].alignment.wrap_text
        assert not ws["A1"].protection.locked and ws["A2"].protection.locked and not ws["A3"].protection.locked
        assert ws["A2"].fill.fgColor.rgb == "00305496" and ws["A3"].fill.fgColor.rgb == "00FFF2CC"


def test_a_question_with_no_answer_to_offer_is_asked_without_an_empty_list():
    from dataclasses import replace

    from tasks.export.artifacts import review_question

    shelf = make_shelf("Books about beekeeping", ["A"], status="needs_review")
    unrecognised = replace(shelf.verdict, question=Question("unrecognised"))  # no value near the brief
    assert review_question(replace(shelf, verdict=unrecognised)) == "What should this shelf be about?"
    asked = review_question(shelf)  # a question with answers lists them
    assert asked.startswith("Too few books meet every condition") and asked.endswith(")")
