"""Intake of an answered workbook: the curator's verdicts, notes and question answers, read by the ids it carries.

The workbook Shelfwise wrote (tasks/export/excel.py) carries a very hidden `shelfwise ids` sheet: the batch,
the workspace, and for every answer cell its sheet, row, theme and book, closed by a digest. A row is known
by those ids, never by its position: a row whose book id is not the one written there (rows moved, sorted,
deleted or edited), a merged cell where answers go, or a verdict that is not one of the offered words is
refused with one line naming the sheet, row and cell, before anything is stored.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

from openpyxl import load_workbook
from openpyxl.utils import get_column_letter
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.worksheet.worksheet import Worksheet

from storage.labels import Label, ShelfRow
from tasks.errors import InputError
from tasks.export.excel import (
    IDS_COLUMNS,
    IDS_SHEET,
    REVIEW_COLUMNS,
    SHELF_COLUMNS,
    VERDICT_LABELS,
    VERDICTS,
    ids_digest,
)

# Every verdict word offered, in either language, to its verdict; English in any case.
VERDICT_WORDS = {label.casefold(): VERDICTS[i] for labels in VERDICT_LABELS.values() for i, label in enumerate(labels)}
OFFERED = " / ".join(label for labels in VERDICT_LABELS.values() for label in labels)
_SHELF_KEYS = [key for key, _ in SHELF_COLUMNS]
_REVIEW_KEYS = [key for key, _, _ in REVIEW_COLUMNS]


@dataclass(frozen=True)
class AnsweredWorkbook:
    """What a curator answered in one workbook, with what identifies it."""

    path: Path
    file_sha256: str
    batch_id: str
    workspace_id: str
    labels: list[Label]
    shelves: list[ShelfRow]  # the shelves as the curator saw them


def _text(value: object) -> str:
    return "" if value is None else str(value).strip()


def _refuse(path: Path, sheet: str, row: int | None, col: int | None, what: str) -> InputError:
    where = f"sheet {sheet!r}" + (f" row {row}" if row else "") + (
        f" cell {get_column_letter(col)}{row}" if col and row else "")
    return InputError(f"{path.name}: {where}: {what}")


def _open(path: Path):
    try:
        return load_workbook(path)
    except (InvalidFileException, zipfile.BadZipFile, KeyError, OSError, ValueError) as err:
        raise InputError(f"{path.name}: not an Excel workbook (.xlsx) Shelfwise can read: "
                         f"{type(err).__name__}") from None


def _ids(path: Path, wb) -> list[list[str]]:  # noqa: ANN001 - an openpyxl Workbook
    if IDS_SHEET not in wb.sheetnames:
        raise InputError(f"{path.name}: no sheet {IDS_SHEET!r}: not a workbook Shelfwise wrote, or one saved "
                         "without its hidden sheets")
    ws = wb[IDS_SHEET]
    rows = [[_text(v) for v in values[:len(IDS_COLUMNS)]] for values in ws.iter_rows(min_row=2, values_only=True)]
    rows = [r + [""] * (len(IDS_COLUMNS) - len(r)) for r in rows if any(r)]
    if not rows or rows[-1][0] != "digest" or rows[-1][-1] != ids_digest(rows[:-1]):
        raise _refuse(path, IDS_SHEET, len(rows) + 1, len(IDS_COLUMNS), "the ids were edited by hand")
    return rows[:-1]


def _merged_answer_cells(path: Path, ws: Worksheet, first_row: int) -> None:
    for merged in ws.merged_cells.ranges:
        if merged.max_row >= first_row:
            raise _refuse(path, ws.title, merged.min_row, merged.min_col,
                          f"merged cells ({merged.coord}) where answers are read: unmerge them")


def _verdict(path: Path, ws: Worksheet, row: int, value: object) -> str | None:
    word = _text(value)
    if not word:
        return None
    if word.casefold() not in VERDICT_WORDS:
        raise _refuse(path, ws.title, row, _SHELF_KEYS.index("verdict") + 1,
                      f"verdict {word!r} is not one of {OFFERED}")
    return VERDICT_WORDS[word.casefold()]


def _written_rows(path: Path, ws: Worksheet, expected: dict[int, str], key_col: int, keys: list[str]) -> dict:
    """Each row Shelfwise wrote, checked against its id; a row it did not write must hold no answer."""
    _merged_answer_cells(path, ws, min(expected, default=ws.max_row))
    found = {}
    last = max(ws.max_row, max(expected, default=0))
    for row in range(min(expected, default=last + 1), last + 1):
        values = dict(zip(keys, (c.value for c in ws[row])))
        got = _text(values.get(keys[key_col - 1]))
        if row not in expected:
            if any(_text(v) for v in values.values()):
                raise _refuse(path, ws.title, row, key_col, "a row Shelfwise did not write: rows were added "
                                                            "or moved")
            continue
        if got != expected[row]:
            raise _refuse(path, ws.title, row, key_col,
                          f"{got!r} where Shelfwise wrote {expected[row]!r}: rows were moved, sorted, deleted "
                          "or their ids edited")
        found[row] = values
    return found


def _answer(path: Path, ws: Worksheet, row: int, text: str, data: dict) -> tuple[str, str]:
    """The option a question's answer chose, as worded, and its action; its number (1, 2, ...) also names it."""
    options, actions = data.get("options", []), data.get("actions", [])
    squeezed = {" ".join(o.split()).casefold(): i for i, o in enumerate(options)}
    chosen = squeezed.get(" ".join(text.split()).casefold())
    if chosen is None and text.isdigit() and 1 <= int(text) <= len(options):
        chosen = int(text) - 1
    if chosen is None:
        raise _refuse(path, ws.title, row, _REVIEW_KEYS.index("answer") + 1,
                      f"answer {text!r} is not one of the options: " + " / ".join(options))
    return options[chosen], json.dumps(actions[chosen], ensure_ascii=False, sort_keys=True)


def read_answered_workbook(path: Path) -> AnsweredWorkbook:
    """Every verdict, note and question answer of a workbook Shelfwise wrote; InputError for anything else."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    wb = _open(path)
    ids = _ids(path, wb)
    head = ids[0] if ids and ids[0][0] == "batch" else None
    if head is None:
        raise _refuse(path, IDS_SHEET, 2, 1, "no batch row")
    batch_id, workspace_id = head[3], json.loads(head[5] or "{}").get("workspace_id", "")
    by_sheet: dict[str, dict[int, list[str]]] = {}  # sheet -> row -> its ids
    for entry in ids[1:]:
        by_sheet.setdefault(entry[1], {})[int(entry[2])] = entry
    labels, shelves = [], []
    for sheet, rows in by_sheet.items():
        if sheet not in wb.sheetnames:
            raise _refuse(path, sheet, None, None, "missing: a sheet Shelfwise wrote was renamed or deleted")
        ws = wb[sheet]
        questions = sheet == "needs review"
        keys = _REVIEW_KEYS if questions else _SHELF_KEYS
        key_col = 1 + keys.index("theme_id" if questions else "book_id")
        expected = {row: entry[3 if questions else 4] for row, entry in rows.items()}
        for row, values in _written_rows(path, ws, expected, key_col, keys).items():
            _, _, _, theme_id, book_id, raw = rows[row]
            data = json.loads(raw or "{}")
            if questions:
                text = _text(values.get("answer"))
                if text and data.get("options"):
                    answer, action = _answer(path, ws, row, text, data)
                    labels.append(Label(batch_id, theme_id, "", answer=answer, action=action))
                continue
            shelves.append(ShelfRow(theme_id, data["rank"], book_id))
            verdict, note = _verdict(path, ws, row, values.get("verdict")), _text(values.get("note"))
            if verdict or note:
                labels.append(Label(batch_id, theme_id, book_id, data["rank"], verdict, note,
                                    paths=tuple(data.get("paths", ())), reason_kinds=tuple(data.get("reasons", ())),
                                    path_scores=json.dumps(data.get("scores", {}), sort_keys=True)))
    return AnsweredWorkbook(path, digest, batch_id, workspace_id, labels, shelves)
