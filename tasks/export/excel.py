"""Excel export step: the workbook a curator reads, prints and answers.

One workbook per batch: a `summary` sheet linking every theme sheet, a `needs review` sheet when some theme
needs a curator, one sheet per theme, and a `details` sheet with every shelved book's provenance and scores.
A theme sheet opens with a header block (the brief, the status, the conditions in plain words, what was left
out), then one row per book with the columns a curator needs first; it prints landscape, one page wide.
Its verdict and curator-note cells are the only ones unlocked (no password), and each row keeps its book id;
a very hidden `shelfwise ids` sheet names the batch, the workspace and every answer cell's theme and book, so
an answered workbook is read back by its ids (tasks/intake/answers.py).

Every cell that comes from data is written as text, so that a title such as `=HYPERLINK("http://x")` can
never become a formula; the file is written to a temporary name and renamed, so a crash never leaves half
a workbook.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Sequence
from copy import copy
from functools import lru_cache
from pathlib import Path
from weakref import WeakKeyDictionary

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.cell.rich_text import CellRichText, TextBlock
from openpyxl.cell.text import InlineFont
from openpyxl.styles import Alignment, Font, PatternFill, Protection
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.hyperlink import Hyperlink
from openpyxl.worksheet.worksheet import Worksheet

from config.materials import get_materials
from tasks.export.wording import (
    LANGUAGE_NAMES,
    TEXT,
    brief_language,
    conditions_text,
    fact_text,
    left_out_text,
    option_texts,
    question_text,
    status_text,
    why_text,
)
from tasks.model.reasons import LanguageChoice
from tasks.model.review import option_actions
from tasks.model.shelf import Change, ShelfEntry, ThemeShelf


class CellStyle:
    """Fonts, fills, alignments or protection given to many cells. openpyxl hashes every such object on each
    assignment to find its id in the workbook (a third of writing a 100-theme batch); a style remembers, per
    workbook and per style the cell had before, the ids that came out, and copies them."""

    def __init__(self, **attributes: object):
        self._attributes = attributes
        self._ids: WeakKeyDictionary[Workbook, dict[tuple[int, ...], object]] = WeakKeyDictionary()

    def apply(self, cell) -> None:
        """Give the cell this style on top of the one it has."""
        known = self._ids.setdefault(cell.parent.parent, {})
        before = tuple(cell._style or ())  # a new cell has none yet
        ids = known.get(before)
        if ids is None:
            for name, value in self._attributes.items():
                setattr(cell, name, value)
            known[before] = copy(cell._style)
        else:
            cell._style = copy(ids)  # as openpyxl's own sheet copier does; a copy, as later styles change it in place


WRAP = Alignment(wrap_text=True, vertical="top")
WRAPPED = CellStyle(alignment=WRAP)
CENTRED = CellStyle(alignment=Alignment(horizontal="center", vertical="top"))
HEADER = CellStyle(font=Font(bold=True, color="FFFFFF"), fill=PatternFill("solid", fgColor="305496"),
                   alignment=Alignment(vertical="center", wrap_text=True))
TITLE = CellStyle(font=Font(bold=True, size=14), alignment=WRAP)
LINK = CellStyle(font=Font(color="0563C1", underline="single"))
ANSWER = CellStyle(protection=Protection(locked=False), fill=PatternFill("solid", fgColor="FFF2CC"))  # filled in
REVIEW_TAB = "ED7D31"
_SHEET_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")
_WRAP_UNITS = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]|\s+|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+")
SHEET_NAME_MAX = 31
LINE_HEIGHT = 15.0  # points per line of 11-point Latin text
CJK_LINE_HEIGHT = 17.5  # CJK fonts set their lines further apart
LOWER_WIDTH = 0.85  # a lower-case letter, space or mark, measured against the width of "0"
MAX_LINES = 12  # a row taller than this is cut on screen, never in the cell

# The theme sheet: the header block's rows, then the table. (key, width); the curator's columns first, "change"
# (what moved since the curator's version) last.
TABLE_ROW = 7
SHELF_COLUMNS = [("rank", 5), ("title", 24), ("authors", 15), ("year", 6), ("call_no", 14), ("copies", 6),
                 ("why", 36), ("evidence", 40), ("verdict", 9), ("note", 18), ("book_id", 10), ("isbn", 15),
                 ("other_editions", 12), ("material", 12), ("change", 18)]
COLUMN_LABELS = {
    "zh": {"rank": "序号", "title": "书名", "authors": "作者", "year": "出版年", "call_no": "索书号 / 分类",
           "copies": "可借", "why": "推荐理由", "evidence": "依据（简介原句）", "verdict": "处理", "note": "馆员备注",
           "book_id": "书目 ID", "isbn": "ISBN", "other_editions": "其他版本", "change": "变动", "material": "载体",
           "theme_id": "主题 ID", "theme": "主题", "status": "状态", "books": "本数", "language": "语种",
           "conditions": "条件", "left_out": "未收入", "question": "待答问题", "brief": "主题说明",
           "limited": "受限原因", "options": "选项", "answer": "回答", "batch": "批次",
           "translator": "translator", "confidence": "confidence", "query": "query", "keywords": "keywords",
           "notes": "notes", "seconds": "seconds"},
    "en": {"rank": "rank", "title": "title", "authors": "authors", "year": "year", "call_no": "call no. / class",
           "copies": "copies", "why": "why", "evidence": "evidence", "verdict": "verdict", "note": "curator note",
           "book_id": "book id", "isbn": "ISBN", "other_editions": "other editions", "change": "change",
           "material": "material",
           "theme_id": "theme id", "theme": "theme", "status": "status", "books": "books", "language": "language",
           "conditions": "conditions", "left_out": "left out", "question": "question", "brief": "brief",
           "limited": "what limited the shelf", "options": "options", "answer": "answer", "batch": "batch",
           "translator": "translator", "confidence": "confidence", "query": "query", "keywords": "keywords",
           "notes": "notes", "seconds": "seconds"},
}
VERDICTS = ("keep", "drop", "replace")
VERDICT_LABELS = {"zh": ("保留", "去掉", "替换"), "en": VERDICTS}

# Batch sheets: (key, width, grouped). Grouped columns are collapsed at the right: for maintainers.
SUMMARY_COLUMNS = [("theme_id", 18, False), ("theme", 32, False), ("status", 14, False), ("books", 7, False),
                   ("language", 18, False), ("conditions", 50, False), ("left_out", 40, False),
                   ("question", 40, False), ("translator", 16, True), ("confidence", 10, True),
                   ("query", 50, True), ("keywords", 30, True), ("notes", 60, True), ("seconds", 40, True)]
REVIEW_COLUMNS = [("theme_id", 18, False), ("theme", 30, False), ("brief", 50, False), ("limited", 45, False),
                  ("question", 45, False), ("options", 35, False), ("answer", 25, False)]
DETAILS_COLUMNS = [("theme_id", 18), ("rank", 6), ("book_id", 12), ("title", 30), ("sources", 24),
                   ("query_variant", 13), ("vector_rank", 11), ("bm25_rank", 10), ("path_ranks", 30),
                   ("rrf_score", 10), ("rerank_score", 12), ("fused_score", 11), ("relevance", 10)]


def clean_text(value: object) -> str:
    return ILLEGAL_CHARACTERS_RE.sub("", "" if value is None else str(value))


def sheet_title(name: str, used: set[str]) -> str:
    """A legal, unique sheet name: no []:*?/\\, no edge apostrophes, at most 31 characters."""
    base = " ".join(_SHEET_FORBIDDEN.sub("_", clean_text(name)).split()).strip("'") or "theme"
    title, n = base[:SHEET_NAME_MAX], 1
    while title.lower() in used:
        n += 1
        suffix = f" ({n})"
        title = base[: SHEET_NAME_MAX - len(suffix)] + suffix
    used.add(title.lower())
    return title


def theme_sheet_title(shelf: ThemeShelf, used: set[str]) -> str:
    """"02 Quiet novels", or "02 rainy-night-quiet" where the name would be cut; REVIEW marks a provisional shelf."""
    mark = "REVIEW " if shelf.status == "needs_review" else ""
    prefix = f"{mark}{shelf.theme.position:02d} "
    named = prefix + shelf.theme.theme_name
    fits = len(" ".join(_SHEET_FORBIDDEN.sub("_", clean_text(named)).split())) <= SHEET_NAME_MAX
    return sheet_title(named if fits else prefix + shelf.theme.theme_id, used)


def char_width(ch: str) -> float:
    """Width in Excel's units (the width of "0"): a Chinese character two, a capital or digit one, others less."""
    if unicodedata.east_asian_width(ch) in "WF":
        return 2.0
    return 1.0 if ch.isupper() or ch.isdigit() else LOWER_WIDTH


@lru_cache(maxsize=1 << 16)
def text_width(unit: str) -> float:
    """A word's (or a character's) width: the same words recur on every sheet of a batch."""
    return sum(char_width(ch) for ch in unit)


def line_height(texts: Sequence[object]) -> float:
    """Points per line of a row: more where it holds Chinese text."""
    wide = any(unicodedata.east_asian_width(ch) in "WF" for text in texts if isinstance(text, str) for ch in text)
    return CJK_LINE_HEIGHT if wide else LINE_HEIGHT


def line_count(text: str, width: float) -> int:
    """Lines a wrapped cell of this width needs: words wrap whole, Chinese characters one by one."""
    usable = max(width - 1.0, 1.0)
    lines = 0
    for paragraph in str(text).split("\n"):
        lines, used = lines + 1, 0.0
        for unit in _WRAP_UNITS.findall(paragraph):
            size = text_width(unit)
            if used and used + size > usable and not unit.isspace():
                lines, used = lines + 1, 0.0
            if size > usable:  # a word wider than the cell is broken where it runs out
                lines += math.ceil(size / usable) - 1
                size = size % usable
            used += size
    return max(lines, 1)


def _cell(ws: Worksheet, row: int, col: int, value: object):
    cell = ws.cell(row=row, column=col)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        cell.value = value
    elif isinstance(value, CellRichText):
        cell.value = value
    elif value is not None:
        cell.value = clean_text(value)
        cell.data_type = "s"  # text, never a formula
    return cell


def _link(cell, sheet: str) -> None:
    """An internal link to a sheet's first cell."""
    cell.hyperlink = Hyperlink(ref=cell.coordinate, location="'{}'!A1".format(sheet.replace("'", "''")))
    LINK.apply(cell)


def _header_row(ws: Worksheet, row: int, labels: Sequence[str], widths: Sequence[float]) -> None:
    for col, (label, width) in enumerate(zip(labels, widths), start=1):
        HEADER.apply(_cell(ws, row, col, label))
        ws.column_dimensions[get_column_letter(col)].width = width
    lines = max(line_count(label, width / 1.2) for label, width in zip(labels, widths))  # bold runs wider
    ws.row_dimensions[row].height = line_height(labels) * lines


def _rows(ws: Worksheet, first: int, rows: Sequence[Sequence[object]], widths: Sequence[float],
          wrapped: Sequence[int]) -> None:
    """Data rows, wrapped where text runs long, each as tall as its longest wrapped cell."""
    for i, values in enumerate(rows, start=first):
        lines = 1
        for col, value in enumerate(values, start=1):
            style = WRAPPED if col - 1 in wrapped or not isinstance(value, (int, float)) else CENTRED
            style.apply(_cell(ws, i, col, value))
            if col - 1 in wrapped and value:
                lines = max(lines, line_count(value, widths[col - 1]))
        ws.row_dimensions[i].height = line_height(values) * min(lines, MAX_LINES)


def _print_setup(ws: Worksheet, title_row: int, last_col: int, last_row: int, header: str, footer: str) -> None:
    """Landscape A4, one page wide, the column header repeated, the theme in the page header, page numbers."""
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0  # as many pages down as it takes
    ws.print_title_rows = f"{title_row}:{title_row}"
    ws.print_area = f"A1:{get_column_letter(last_col)}{max(last_row, title_row)}"
    ws.page_margins.left = ws.page_margins.right = 0.4
    ws.page_margins.top = ws.page_margins.bottom = 0.75
    ws.page_margins.header = ws.page_margins.footer = 0.3
    ws.oddHeader.center.text = header.replace("&", "&&")[:200]  # & starts a control code in headers
    ws.oddFooter.left.text = footer.replace("&", "&&")[:100]
    ws.oddFooter.right.text = "&P / &N"


def _protect(ws: Worksheet) -> None:
    """Locked against accidental edits, without a password; filtering, sorting and resizing still allowed."""
    protection = ws.protection
    protection.sheet = True
    protection.autoFilter = protection.sort = False
    protection.formatColumns = protection.formatRows = False


def _unlock(cell) -> None:
    ANSWER.apply(cell)


def _labelled(label: str, text: str, language: str) -> CellRichText:
    """ "条件：…" with the label in bold."""
    colon = "：" if language == "zh" else ": "
    return CellRichText([TextBlock(InlineFont(b=True), clean_text(label + colon)), clean_text(text)])


def theme_language(shelf: ThemeShelf) -> str:
    return brief_language(shelf.theme.brief)


def language_choice(shelf: ThemeShelf) -> LanguageChoice | None:
    return next((f for f in shelf.facts if isinstance(f, LanguageChoice)), None)


def header_lines(shelf: ThemeShelf, language: str) -> list[tuple[str, str]]:
    """The header block below the theme's name: (label key, text)."""
    theme, labels, sep = shelf.theme, COLUMN_LABELS[language], TEXT[language]["sep"]
    brief = " · ".join(p for p in (theme.slogan, theme.description, theme.target_vibe) if p) or theme.theme_name
    status = status_text(shelf.status, len(shelf.entries), language, shelf.verdict.limited_by)
    if shelf.status == "needs_review" and shelf.verdict.question:
        status += f"{sep}{question_text(shelf.verdict.question, language)}"
    if shelf.status == "failed" and shelf.notes:
        status += f"{sep}{shelf.notes[0]}"
    ids = f"{theme.theme_id}{sep}{labels['batch']} {theme.batch_id}"
    return [("brief", brief), ("status", status),
            ("conditions", conditions_text(shelf.query, language, shelf.facts)),
            ("left_out", left_out_text(shelf.facts, language)), ("theme_id", ids)]


def call_number(entry: ShelfEntry) -> str:
    """The call number, then the classification codes it does not already start with: "PS3505.H3224 L6 · DDC 813.52"."""
    call_no = entry.book.call_no or ""
    compact = call_no.replace(" ", "")
    classes = [f"{scheme.upper()} {code}" for scheme, _, code in (c.partition(":") for c in entry.book.classification)
               if code and not compact.startswith(code.replace(" ", ""))]
    return " · ".join(p for p in (call_no, *classes) if p)


def material_text(material: str | None, language: str) -> str | None:
    """What the record says the book is, in the sheet's language (config/materials.yaml); empty where it says none."""
    found = get_materials().named(material) if material else None
    return (found.name_zh if language == "zh" else found.name_en) if found else None


def change_text(change: Change | None, language: str) -> str | None:
    """What changed since the curator's version, and why: "kept (curator)", "new: in place of b-3, b-9"."""
    return TEXT[language][f"change_{change.kind}"].format(v=change.detail) if change else None


def theme_row(entry: ShelfEntry, language: str, change: Change | None = None) -> list[object]:
    book = entry.book
    values = {"rank": entry.rank, "title": book.title, "authors": " / ".join(book.authors), "year": book.pub_year,
              "call_no": call_number(entry), "copies": book.copies_available,
              "why": why_text(entry.reasons, language), "evidence": entry.candidate.evidence, "verdict": None,
              "note": None, "book_id": book.book_id, "isbn": book.isbn,
              "other_editions": ", ".join(entry.other_editions), "change": change_text(change, language),
              "material": material_text(book.material, language)}
    return [values[key] for key, _ in SHELF_COLUMNS]


def write_theme_sheet(ws: Worksheet, shelf: ThemeShelf) -> None:
    """The curator's sheet: header block, the shelf, verdict and note cells to answer in."""
    language = theme_language(shelf)
    labels = COLUMN_LABELS[language]
    keys = [key for key, _ in SHELF_COLUMNS]
    widths = [width for _, width in SHELF_COLUMNS]
    last_col = get_column_letter(len(keys))
    total_width = sum(widths)
    TITLE.apply(_cell(ws, 1, 1, shelf.theme.theme_name))
    ws.row_dimensions[1].height = 20 * line_count(shelf.theme.theme_name, total_width / 1.3)
    for row, (key, text) in enumerate(header_lines(shelf, language), start=2):
        WRAPPED.apply(_cell(ws, row, 1, _labelled(labels[key], text, language)))
        lines = min(line_count(labels[key] + "：" + text, total_width), 6)
        ws.row_dimensions[row].height = line_height([text]) * lines
    for row in range(1, TABLE_ROW):
        ws.merge_cells(f"A{row}:{last_col}{row}")
    _header_row(ws, TABLE_ROW, [labels[k] for k in keys], widths)
    rows = [theme_row(e, language, shelf.changes.get(e.book.book_id)) for e in shelf.entries]
    first, last = TABLE_ROW + 1, TABLE_ROW + len(rows)
    wrapped = [keys.index(k) for k in ("title", "authors", "call_no", "why", "evidence", "other_editions")]
    _rows(ws, first, rows, widths, wrapped)
    answer_cols = [keys.index("verdict") + 1, keys.index("note") + 1]
    for row in range(first, last + 1):
        for col in answer_cols:
            _unlock(ws.cell(row=row, column=col))
    if rows:
        options = ",".join(VERDICT_LABELS[language])
        dropdown = DataValidation(type="list", formula1=f'"{options}"', allow_blank=True, showErrorMessage=True,
                                  errorTitle=labels["verdict"], error=" / ".join(VERDICT_LABELS[language]))
        verdict_col = get_column_letter(answer_cols[0])
        dropdown.add(f"{verdict_col}{first}:{verdict_col}{last}")
        ws.add_data_validation(dropdown)
        ws.auto_filter.ref = f"A{TABLE_ROW}:{last_col}{last}"
    ws.freeze_panes = f"A{TABLE_ROW + 1}"
    _print_setup(ws, TABLE_ROW, len(keys), last, shelf.theme.theme_name, f"Shelfwise · {shelf.theme.batch_id}")
    if shelf.status == "needs_review":
        ws.sheet_properties.tabColor = REVIEW_TAB
    _protect(ws)


def batch_language(shelves: Sequence[ThemeShelf]) -> str:
    """The language most of the batch's briefs are written in (the first brief's on a tie)."""
    counts = Counter(theme_language(s) for s in shelves)
    return max(counts, key=lambda lang: (counts[lang], -[theme_language(s) for s in shelves].index(lang)),
               default="en")


def _batch_sheet(ws: Worksheet, columns: Sequence[tuple[str, int, bool]], labels: dict[str, str],
                 rows: Sequence[Sequence[object]], links: Sequence[str | None], link_col: str) -> None:
    """A batch-level sheet: header, wrapped rows, grouped columns collapsed, a link per row to its theme sheet."""
    keys = [key for key, _, _ in columns]
    widths = [width for _, width, _ in columns]
    _header_row(ws, 1, [labels[k] for k in keys], widths)
    wrapped = [i for i, (key, _, grouped) in enumerate(columns) if not grouped and key not in ("books",)]
    _rows(ws, 2, rows, widths, wrapped)
    col = keys.index(link_col) + 1
    for row, sheet in enumerate(links, start=2):
        if sheet:
            _link(ws.cell(row=row, column=col), sheet)
    for i, (_, _, grouped) in enumerate(columns, start=1):
        if grouped:
            dim = ws.column_dimensions[get_column_letter(i)]
            dim.outline_level, dim.hidden = 1, True
    visible = sum(1 for _, _, grouped in columns if not grouped)
    ws.freeze_panes = "C2"
    ws.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{max(len(rows) + 1, 1)}"
    _print_setup(ws, 1, visible, len(rows) + 1, ws.title, "Shelfwise")


def summary_row(shelf: ThemeShelf, language: str) -> list[object]:
    """One theme in the summary: its words in its own language, the maintainers' columns at the right."""
    own = theme_language(shelf)
    query, choice = shelf.query, language_choice(shelf)
    languages = fact_text(choice, language) if choice else LANGUAGE_NAMES[language][own]
    question = (question_text(shelf.verdict.question, own)
                if shelf.status == "needs_review" and shelf.verdict.question else None)
    return [shelf.theme.theme_id, shelf.theme.theme_name, TEXT[language].get(shelf.status, shelf.status),
            len(shelf.entries), languages, conditions_text(query, own, shelf.facts, with_language=False),
            left_out_text(shelf.facts, own),
            question, query.translator, query.confidence, query.describe_conditions(),
            ", ".join(query.search_keywords), " | ".join(shelf.notes),
            ", ".join(f"{k} {v:.2f}" for k, v in shelf.stage_seconds.items())]


def review_row(shelf: ThemeShelf) -> list[object]:
    """A theme under review: its brief, what limited it, the question and options, space for the answer."""
    own = theme_language(shelf)
    verdict = shelf.verdict
    # a short shelf says what limited it; a contradiction or an unrecognised brief keeps the gate's own words
    limited = (status_text(shelf.status, len(shelf.entries), own, verdict.limited_by) if verdict.limited_by
               else TEXT[own]["sep"].join(verdict.reasons))
    asked = verdict.question
    return [shelf.theme.theme_id, shelf.theme.theme_name, shelf.theme.brief, limited,
            question_text(asked, own) if asked else None, " / ".join(option_texts(asked, own)) if asked else None, None]


def details_rows(shelves: Sequence[ThemeShelf]) -> list[list[object]]:
    """Every shelved book's provenance: the paths that found it, its rank on each, its scores, its probability of
    fitting the brief."""
    rows = []
    for shelf in shelves:
        for entry in shelf.entries:
            cand = entry.candidate
            rows.append([shelf.theme.theme_id, entry.rank, entry.book.book_id, entry.book.title,
                         ", ".join(cand.sources), cand.query_variant, cand.ranks.get("vector"), cand.ranks.get("bm25"),
                         ", ".join(f"{path} {rank}" for path, rank in cand.ranks.items()), round(cand.rrf_score, 6),
                         None if cand.rerank_score is None else round(cand.rerank_score, 4),
                         round(cand.fused_score, 4), None if cand.relevance is None else round(cand.relevance, 3)])
    return rows


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


IDS_SHEET = "shelfwise ids"
IDS_COLUMNS = ("kind", "sheet", "row", "theme_id", "book_id", "data")


def ids_digest(rows: Sequence[Sequence[str]]) -> str:
    """A digest of the ids rows: an ids sheet edited by hand no longer matches its last row."""
    return hashlib.sha256(json.dumps([list(r) for r in rows], ensure_ascii=False).encode()).hexdigest()


def ids_rows(batch_id: str, workspace_id: str, shelves: Sequence[ThemeShelf], names: dict[str, str],
             review: Sequence[ThemeShelf]) -> list[list[str]]:
    """What identifies every answer cell: the batch and workspace, then per shelved book its sheet, row, theme
    and book (with what the book was shelved on, for `eval --labels`), per question its options and actions."""
    rows = [["batch", "", "", batch_id, "", json.dumps({"workspace_id": workspace_id})]]
    for shelf in shelves:
        for i, entry in enumerate(shelf.entries):
            cand = entry.candidate
            data = {"rank": entry.rank, "paths": list(cand.sources),
                    "reasons": sorted({type(r).__name__ for r in entry.reasons}),
                    "scores": {p: [cand.ranks.get(p), cand.scores.get(p)] for p in cand.ranks}}
            rows.append(["book", names[shelf.theme.theme_id], str(TABLE_ROW + 1 + i), shelf.theme.theme_id,
                         entry.book.book_id, json.dumps(data, ensure_ascii=False)])
    for i, shelf in enumerate(review):
        asked = shelf.verdict.question
        own = theme_language(shelf)
        data = {"options": list(option_texts(asked, own)), "actions": list(option_actions(asked))} if asked else {}
        rows.append(["question", "needs review", str(2 + i), shelf.theme.theme_id, "",
                     json.dumps(data, ensure_ascii=False)])
    return [[clean_text(v) for v in row] for row in rows]


def _ids_sheet(ws: Worksheet, rows: list[list[str]]) -> None:
    """The ids of every answer cell, very hidden: a reviewed workbook is read back by them, never by position."""
    for col, label in enumerate(IDS_COLUMNS, start=1):
        _cell(ws, 1, col, label)
    for r, values in enumerate([*rows, ["digest", "", "", "", "", ids_digest(rows)]], start=2):
        for col, value in enumerate(values, start=1):
            _cell(ws, r, col, value)
    ws.sheet_state = "veryHidden"
    _protect(ws)


def write_workbook(path: Path, batch_id: str, shelves: Sequence[ThemeShelf], workspace_id: str = "") -> Path:
    """Write the batch's workbook atomically; returns its path."""
    wb = Workbook()
    language = batch_language(shelves)
    labels = COLUMN_LABELS[language]
    used = {"summary", "needs review", "details", IDS_SHEET}
    summary = wb.active
    summary.title = "summary"
    review = [s for s in shelves if s.status == "needs_review"]
    review_ws = wb.create_sheet("needs review") if review else None
    names = {}
    for shelf in shelves:
        names[shelf.theme.theme_id] = theme_sheet_title(shelf, used)
        write_theme_sheet(wb.create_sheet(names[shelf.theme.theme_id]), shelf)
    _batch_sheet(summary, SUMMARY_COLUMNS, labels, [summary_row(s, language) for s in shelves],
                 [names[s.theme.theme_id] for s in shelves], "theme")
    if review_ws is not None:
        _batch_sheet(review_ws, REVIEW_COLUMNS, labels, [review_row(s) for s in review],
                     [names[s.theme.theme_id] for s in review], "theme")
        answer = [key for key, _, _ in REVIEW_COLUMNS].index("answer") + 1
        for row in range(2, len(review) + 2):
            _unlock(review_ws.cell(row=row, column=answer))
        _protect(review_ws)
    details = wb.create_sheet("details")
    _batch_sheet(details, [(k, w, False) for k, w in DETAILS_COLUMNS], {k: k for k, _ in DETAILS_COLUMNS},
                 details_rows(shelves), [], "theme_id")
    _protect(summary)
    _ids_sheet(wb.create_sheet(IDS_SHEET), ids_rows(batch_id, workspace_id, shelves, names, review))
    wb.properties.title = clean_text(f"Shelfwise batch {batch_id}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600; a workbook is for every curator the umask allows
    try:
        # zipped in memory, then written: on a full disk the write fails, not a zip file left half-closed to fail
        # once more, with a traceback, whenever it is collected
        zipped = io.BytesIO()
        wb.save(zipped)
        Path(tmp).write_bytes(zipped.getvalue())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def linked_sheet(cell) -> str | None:
    """The sheet an internal link points to."""
    location = cell.hyperlink.location if cell.hyperlink else None
    if not location:
        return None
    return location.rsplit("!", 1)[0].strip("'").replace("''", "'")
