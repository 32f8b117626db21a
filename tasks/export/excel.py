"""Excel export step: one workbook per batch, a summary sheet and one sheet per theme.

Every cell that comes from data is written as text, so that a title such as
`=HYPERLINK("http://x")` can never become a formula; the file is written to a temporary name
and renamed, so a crash never leaves half a workbook.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

from tasks.ranking.shelf import ThemeShelf

HEADER_FONT = Font(bold=True, color="FFFFFF")
HEADER_FILL = PatternFill("solid", fgColor="305496")
_SHEET_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")

SUMMARY_COLUMNS = [("theme_id", 18), ("theme", 36), ("status", 12), ("books", 7), ("translator", 24),
                   ("confidence", 10), ("main conditions", 60), ("keywords", 40), ("notes", 60),
                   ("seconds", 40)]
REVIEW_COLUMNS = [("theme_id", 18), ("theme", 36), ("question", 70), ("options", 50), ("reasons", 80)]
SHELF_COLUMNS = [("rank", 6), ("title", 36), ("authors", 24), ("year", 7), ("call_no", 16), ("language", 9),
                 ("sources", 20), ("query_variant", 13), ("vector_rank", 11), ("bm25_rank", 10), ("rrf_score", 10),
                 ("rerank_score", 12), ("fused_score", 11), ("why", 70), ("evidence", 70)]


def clean_text(value: object) -> str:
    return ILLEGAL_CHARACTERS_RE.sub("", "" if value is None else str(value))


def sheet_title(name: str, used: set[str]) -> str:
    """A legal, unique sheet name: no []:*?/\\, no edge apostrophes, at most 31 characters."""
    base = _SHEET_FORBIDDEN.sub("_", clean_text(name)).strip().strip("'") or "theme"
    title, n = base[:31], 1
    while title.lower() in used:
        n += 1
        suffix = f" ({n})"
        title = base[: 31 - len(suffix)] + suffix
    used.add(title.lower())
    return title


def _write_row(ws, row: int, values: Sequence[object]) -> None:
    for col, value in enumerate(values, start=1):
        cell = ws.cell(row=row, column=col)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            cell.value = value
        elif value is not None:
            cell.value = clean_text(value)
            cell.data_type = "s"  # text, never a formula


def _sheet(ws, columns: Sequence[tuple[str, int]], rows: Sequence[Sequence[object]]) -> None:
    for col, (name, width) in enumerate(columns, start=1):
        cell = ws.cell(row=1, column=col, value=name)
        cell.font, cell.fill = HEADER_FONT, HEADER_FILL
        cell.alignment = Alignment(vertical="center")
        ws.column_dimensions[get_column_letter(col)].width = width
    for i, values in enumerate(rows, start=2):
        _write_row(ws, i, values)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{max(len(rows) + 1, 1)}"


def summary_row(shelf: ThemeShelf) -> list[object]:
    query = shelf.query
    return [shelf.theme.theme_id, shelf.theme.theme_name, shelf.status, len(shelf.entries), query.translator,
            query.confidence, query.describe_conditions(), ", ".join(query.search_keywords),
            " | ".join(shelf.notes), ", ".join(f"{k} {v:.2f}" for k, v in shelf.stage_seconds.items())]


def shelf_rows(shelf: ThemeShelf) -> list[list[object]]:
    rows = []
    for entry in shelf.entries:
        book, cand = entry.book, entry.candidate
        rows.append([entry.rank, book.title, " / ".join(book.authors), book.pub_year, book.call_no,
                     book.language, ", ".join(cand.sources), cand.query_variant, cand.ranks.get("vector"),
                     cand.ranks.get("bm25"),
                     round(cand.rrf_score, 6), None if cand.rerank_score is None else round(cand.rerank_score, 4),
                     round(cand.fused_score, 4), entry.why, cand.evidence])
    return rows


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_workbook(path: Path, batch_id: str, shelves: Sequence[ThemeShelf]) -> Path:
    """Write the batch's workbook atomically; returns its path."""
    wb = Workbook()
    summary = wb.active
    used = {"summary"}
    summary.title = "summary"
    _sheet(summary, SUMMARY_COLUMNS, [summary_row(s) for s in shelves])
    review = [s for s in shelves if s.status == "needs_review"]
    if review:
        used.add("needs review")
        _sheet(wb.create_sheet("needs review"), REVIEW_COLUMNS, [
            [s.theme.theme_id, s.theme.theme_name, s.verdict.question, " / ".join(s.verdict.options),
             "; ".join(s.verdict.reasons)] for s in review])
    for shelf in shelves:
        # A provisional shelf says so in its sheet name, where a curator sees it first.
        mark = "REVIEW " if shelf.status == "needs_review" else ""
        ws = wb.create_sheet(sheet_title(f"{mark}{shelf.theme.position:02d} {shelf.theme.theme_name}", used))
        _sheet(ws, SHELF_COLUMNS, shelf_rows(shelf))
    wb.properties.title = clean_text(f"Shelfwise batch {batch_id}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it 0600; a workbook is for every curator the umask allows
    try:
        wb.save(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path
