"""Theme import step: curators' briefs from YAML, CSV or XLSX files, pasted text or the run form.

Every way in checks the same things: ids match ID_PATTERN, a brief has words, a theme id is used once.
"""

from __future__ import annotations

import io
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from storage.models import RejectedRow
from tasks.errors import InputError, nearest
from tasks.intake.tables import csv_rows, read_rows
from tasks.intake.yaml_input import load_yaml, read_yaml_file
from tasks.language.text_analysis import has_control_characters
from tasks.model.themes import LANGUAGE_PREFERENCES, Theme

THEME_COLUMNS = ("batch_id", "theme_id", "theme_name", "slogan", "description", "target_vibe", "language_preference")
FILE_KEYS = ("batch_id", "themes")  # a YAML themes file's top level
THEME_FORMATS = {".yaml": "yaml", ".yml": "yaml", ".csv": "csv", ".tsv": "tsv", ".xlsx": "xlsx"}
BRIEF_FIELDS = ("theme_name", "slogan", "description", "target_vibe")
# ASCII only, so that the run form (JSON Schema, checked in the browser) and Python agree; never a path.
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
ID_RULE = "1-64 letters a-z, digits, '-', '_' or '.', starting with a letter or digit"
MAX_FIELD_CHARS = 5_000
_ID = re.compile(ID_PATTERN)


class ThemeInputError(InputError):
    """Themes that cannot be imported as given (a bad batch id, a form with a bad theme, unreadable text)."""


@dataclass
class ThemeFile:
    batch_id: str
    themes: list[Theme]
    rejected: list[RejectedRow]
    made_batch_id: bool = False  # neither the file nor the caller named the batch: a dated id was made


def new_batch_id(now: datetime | None = None) -> str:
    """A dated id for a batch named nowhere (the run form, a file without batch_id): 2026-11-23-1405-3f2a."""
    return f"{(now or datetime.now()):%Y-%m-%d-%H%M}-{uuid.uuid4().hex[:4]}"


def id_problem(value: str) -> str | None:
    """Why `value` is not a batch or theme id, or None."""
    return None if _ID.fullmatch(value) else f"{value!r} is not an id ({ID_RULE})"  # a trailing newline too


def check_batch_id(value: str, source: str = "batch id") -> str:
    """The batch id, or ThemeInputError."""
    problem = id_problem(value)
    if problem:
        raise ThemeInputError(f"{source}: {problem}")
    return value


def has_words(text: str) -> bool:
    """A brief needs a letter or a digit (in any script) to be searched for."""
    return any(ch.isalnum() for ch in text)


def _clean(value: Any) -> str:
    return "" if value is None else str(value).strip()


def read_themes(path: Path, batch_id: str | None = None) -> ThemeFile:
    """Themes of one batch from a YAML, CSV or XLSX file; bad rows are rejected with their reason."""
    if batch_id is not None:
        check_batch_id(batch_id)
    fmt = THEME_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ThemeInputError(f"{path}: unsupported theme file type {path.suffix!r}; themes are read from YAML "
                              "(.yaml, .yml), CSV, TSV or XLSX (the columns of config/themes_template.xlsx)")
    if fmt == "yaml":
        file_batch, records = _yaml_records(read_yaml_file(path), str(path))
    else:
        file_batch, records = "", _by_theme_columns(read_rows(path, fmt), str(path))
    return _validate(records, batch_id, file_batch, str(path))


def _by_theme_columns(rows: Iterable[tuple[int, dict | None, str | None]], source: str
                      ) -> list[tuple[int, Any, str | None]]:
    """Rows keyed by theme column, headers matched with case and spaces folded ("Theme_Name", "theme name"); a
    header that is no theme column is an error naming it and the nearest one."""
    records: list[tuple[int, Any, str | None]] = []
    names: dict[str, str] = {}
    for number, raw, error in rows:
        raw = raw or {}
        for header in raw:
            if header not in names:
                folded = re.sub(r"[\s-]+", "_", str(header).strip().casefold())
                if folded not in THEME_COLUMNS and folded != "(extra cells)":
                    raise ThemeInputError(f"{source}: unknown column {header!r}{nearest(folded, THEME_COLUMNS)}; "
                                          f"theme columns are {', '.join(THEME_COLUMNS)}")
                names[header] = folded
        records.append((number, {names[h]: v for h, v in raw.items()}, error))
    return records


def themes_from_text(text: str, batch_id: str | None = None, source: str = "pasted themes") -> ThemeFile:
    """Themes from a themes file's text: YAML with a `themes:` list, or CSV/TSV with a header row."""
    if batch_id is not None:
        check_batch_id(batch_id)
    first = text.lstrip().split("\n", 1)[0]
    if "theme_name" in first.casefold() and ("," in first or "\t" in first) and ":" not in first:
        delimiter = "\t" if "\t" in first else ","
        return _validate(_by_theme_columns(csv_rows(io.StringIO(text.lstrip()), delimiter, source), source),
                         batch_id, "", source)
    file_batch, records = _yaml_records(load_yaml(text, source), source)
    return _validate(records, batch_id, file_batch, source)


def themes_from_form(batch_id: str, briefs: Iterable[dict[str, Any]], text: str = "",
                     source: str = "run form") -> ThemeFile:
    """The themes typed in the run form and those of a pasted file, as one batch; any bad theme refuses all."""
    check_batch_id(batch_id, f"{source}: batch id")
    records: list[tuple[int, Any, str | None]] = [(i, dict(b), None) for i, b in enumerate(briefs, start=1)]
    if text.strip():
        pasted = themes_from_text(text, batch_id, f"{source}: pasted themes")
        if pasted.rejected:
            raise ThemeInputError(_refusal(pasted.rejected, "row"))
        records += [(len(records) + i, {"theme_id": t.theme_id, **{f: getattr(t, f) for f in BRIEF_FIELDS}}, None)
                    for i, t in enumerate(pasted.themes, start=1)]
    result = _validate(records, batch_id, "", source)
    if result.rejected:
        raise ThemeInputError(_refusal(result.rejected, "theme"))
    return result


def _refusal(rejected: list[RejectedRow], unit: str) -> str:
    shown = "; ".join(f"{unit} {r.row_number}: {r.field}: {r.reason}" for r in rejected[:3])
    more = f"; and {len(rejected) - 3} more" if len(rejected) > 3 else ""
    return f"{rejected[0].source_file}: {shown}{more}"


def _yaml_records(raw: Any, source: str) -> tuple[str, list[tuple[int, Any, str | None]]]:
    """(batch_id named in the document or "", [(theme number, raw theme, error)])."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict) or not isinstance(raw.get("themes"), list):
        raise ThemeInputError(f"{source}: expected a mapping with a `themes:` list")
    unknown = [str(k) for k in raw if k not in FILE_KEYS]
    if unknown:
        raise ThemeInputError(f"{source}: unknown key {unknown[0]!r}{nearest(unknown[0], FILE_KEYS)}; a themes file "
                              f"has {', '.join(FILE_KEYS)}")
    file_batch = _clean(raw.get("batch_id"))
    if file_batch:
        check_batch_id(file_batch, f"{source}: batch_id")
    records: list[tuple[int, Any, str | None]] = []
    for i, item in enumerate(raw["themes"], start=1):
        if isinstance(item, str):
            item = {"theme_name": item}
        if not isinstance(item, dict):
            records.append((i, {"value": repr(item)[:200]}, "a theme must be a mapping of theme_id, theme_name, ..."))
            continue
        unknown = [str(k) for k in item if k not in THEME_COLUMNS]
        if unknown:
            raise ThemeInputError(f"{source}: theme {i}: unknown key {unknown[0]!r}"
                                  f"{nearest(unknown[0], THEME_COLUMNS)}; theme keys are {', '.join(THEME_COLUMNS)}")
        records.append((i, item, None))
    return file_batch, records


def _problem(values: dict[str, str], raw: dict, batch: str, seen: set[str]) -> tuple[str, str] | None:
    """(field, reason) of the first thing wrong with one theme, or None."""
    nested = next((n for n in THEME_COLUMNS if isinstance(raw.get(n), (dict, list))), None)
    if nested:
        return nested, f"expected text, got a {type(raw[nested]).__name__}"
    if not batch:
        return "batch_id", "missing (give it in the file or with --batch)"
    if id_problem(batch):
        return "batch_id", id_problem(batch)
    if id_problem(values["theme_id"]):
        return "theme_id", id_problem(values["theme_id"])
    if values["theme_id"] in seen:
        return "theme_id", f"duplicate theme_id {values['theme_id']!r}"
    if not values["theme_name"]:
        return "theme_name", "missing"
    if not has_words(" ".join(values[f] for f in BRIEF_FIELDS)):
        return "theme_name", "the brief has no words (no letter or digit)"
    if values["language_preference"] not in ("", *LANGUAGE_PREFERENCES):
        return "language_preference", (f"{values['language_preference']!r} is not one of "
                                       f"{', '.join(LANGUAGE_PREFERENCES)} (or empty)")
    long = next((n for n in BRIEF_FIELDS if len(values[n]) > MAX_FIELD_CHARS), None)
    if long:
        return long, f"{len(values[long]):,} characters, over the limit of {MAX_FIELD_CHARS:,}"
    bad = next((n for n, v in values.items() if has_control_characters(v)), None)
    if bad:
        return bad, "contains control characters"
    return None


def _validate(records: list[tuple[int, Any, str | None]], batch_id: str | None, file_batch: str,
              source: str) -> ThemeFile:
    """Themes of one batch; rows without a name, with a bad id or with control characters are rejected."""
    themes: list[Theme] = []
    rejected: list[RejectedRow] = []
    seen: set[str] = set()
    made = not batch_id and not file_batch and not any(_clean(raw.get("batch_id")) for _, raw, _ in records)
    if made:  # the template has no batch_id column: the batch is named by date, and the CLI says which
        batch_id = new_batch_id()
    for position, (row_number, raw, error) in enumerate(records, start=1):
        if error:
            rejected.append(RejectedRow(source, row_number, "(row)", error, dict(raw)))
            continue
        values = {name: _clean(raw.get(name)) for name in THEME_COLUMNS}
        batch = batch_id or values["batch_id"] or file_batch
        values["theme_id"] = values["theme_id"] or f"theme-{position:02d}"
        problem = _problem(values, raw, batch, seen)
        if problem:
            rejected.append(RejectedRow(source, row_number, problem[0], problem[1], dict(raw)))
            continue
        seen.add(values["theme_id"])
        themes.append(Theme(batch_id=batch, theme_id=values["theme_id"], position=position,
                            language_preference=values["language_preference"],
                            **{f: values[f] for f in BRIEF_FIELDS}))
    batches = {t.batch_id for t in themes}
    if len(batches) > 1:
        raise ThemeInputError(f"{source}: one file is one batch, found batch ids {sorted(batches)}")
    return ThemeFile(batches.pop() if batches else (batch_id or file_batch), themes, rejected, made)
