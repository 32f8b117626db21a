"""Theme import step: curators' briefs from YAML, CSV or XLSX (the template in config/)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from storage.models import LANGUAGE_PREFERENCES, RejectedRow, Theme
from tasks.catalog.ingest import CatalogFileError, read_rows
from tasks.catalog.text_analysis import has_control_characters

THEME_COLUMNS = ("batch_id", "theme_id", "theme_name", "slogan", "description", "target_vibe", "language_preference")
_ID = re.compile(r"^[\w\-.]{1,64}$")


@dataclass
class ThemeFile:
    batch_id: str
    themes: list[Theme]
    rejected: list[RejectedRow]


def _clean(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _records(path: Path) -> tuple[str, list[tuple[int, dict]]]:
    """(batch_id named in the file or "", [(row number, raw theme)])."""
    if path.suffix.lower() in {".yaml", ".yml"}:
        with open(path, encoding="utf-8") as fh:
            raw = yaml.safe_load(fh) or {}
        if not isinstance(raw, dict) or not isinstance(raw.get("themes"), list):
            raise CatalogFileError(f"{path}: expected a mapping with a `themes:` list")
        return _clean(raw.get("batch_id")), [(i, t if isinstance(t, dict) else {"theme_name": t})
                                             for i, t in enumerate(raw["themes"], start=1)]
    rows = []
    for row_number, raw, error in read_rows(path):
        rows.append((row_number, raw if not error else {}))
    return "", rows


def read_themes(path: Path, batch_id: str | None = None) -> ThemeFile:
    """Themes of one batch; rows without a name or with control characters are rejected."""
    file_batch, records = _records(path)
    themes: list[Theme] = []
    rejected: list[RejectedRow] = []
    seen: set[str] = set()
    for position, (row_number, raw) in enumerate(records, start=1):
        values = {name: _clean(raw.get(name)) for name in THEME_COLUMNS}
        batch = batch_id or values["batch_id"] or file_batch
        theme_id = values["theme_id"] or f"theme-{position:02d}"
        problem = None
        if not batch:
            problem = ("batch_id", "missing (give it in the file or with --batch)")
        elif not _ID.match(batch):
            problem = ("batch_id", f"{batch!r} may hold only letters, digits, '-', '_' and '.'")
        elif not _ID.match(theme_id):
            problem = ("theme_id", f"{theme_id!r} may hold only letters, digits, '-', '_' and '.'")
        elif theme_id in seen:
            problem = ("theme_id", f"duplicate theme_id {theme_id!r}")
        elif not values["theme_name"]:
            problem = ("theme_name", "missing")
        elif values["language_preference"] not in ("", *LANGUAGE_PREFERENCES):
            problem = ("language_preference", f"{values['language_preference']!r} is not one of "
                                              f"{', '.join(LANGUAGE_PREFERENCES)} (or empty)")
        else:
            bad = next((n for n, v in values.items() if has_control_characters(v)), None)
            if bad:
                problem = (bad, "contains control characters")
        if problem:
            rejected.append(RejectedRow(str(path), row_number, problem[0], problem[1], dict(raw)))
            continue
        seen.add(theme_id)
        themes.append(Theme(batch_id=batch, theme_id=theme_id, theme_name=values["theme_name"],
                            slogan=values["slogan"], description=values["description"],
                            target_vibe=values["target_vibe"], position=position,
                            language_preference=values["language_preference"]))
    batches = {t.batch_id for t in themes}
    if len(batches) > 1:
        raise CatalogFileError(f"{path}: one file is one batch, found batch ids {sorted(batches)}")
    return ThemeFile(batches.pop() if batches else (batch_id or file_batch), themes, rejected)
