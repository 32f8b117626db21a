"""Catalog import step: read a CSV / Parquet / JSON Lines / XLSX file, map its columns, validate rows.

Row numbers follow what a librarian sees when opening the file: for CSV and XLSX the header is
row 1 and the first book is row 2; for JSON Lines it is the line number; for Parquet the
1-based record number.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from config.vocabulary import Vocabulary
from storage.models import BookRecord, RejectedRow
from tasks.catalog.text_analysis import has_control_characters, normalize_language

MIN_YEAR = -3000  # the oldest works a library catalogs (Gilgamesh is about -1750)
TEXT_FIELDS = ("book_id", "isbn", "title", "subtitle", "publisher", "language", "call_no",
               "summary", "author_intro", "toc")
INT_FIELDS = ("pub_year", "rating_count", "pages", "copies_available")
FLOAT_FIELDS = ("rating",)
CATALOG_FIELDS = TEXT_FIELDS + INT_FIELDS + FLOAT_FIELDS + ("authors", "tags")
DEFAULT_LIST_SEPARATOR = r"[;；|、]"


class CatalogFileError(ValueError):
    """A source file that cannot be read at all (format, encoding, missing columns)."""


@dataclass(frozen=True)
class ColumnMapping:
    """How a source file's columns become catalog fields (see config/mappings/)."""

    columns: dict[str, str] = field(default_factory=dict)  # catalog field -> source column
    split: dict[str, str] = field(default_factory=dict)  # list field -> separator (literal)
    defaults: dict[str, Any] = field(default_factory=dict)  # catalog field -> value when empty
    id_prefix: str = ""

    def source_column(self, catalog_field: str) -> str:
        return self.columns.get(catalog_field, catalog_field)


@dataclass
class ValidatedRows:
    books: list[BookRecord]
    rejected: list[RejectedRow]


class RowError(ValueError):
    def __init__(self, field_name: str, reason: str):
        super().__init__(f"{field_name}: {reason}")
        self.field_name = field_name
        self.reason = reason


def load_mapping(path: Path) -> ColumnMapping:
    """Read a column-mapping YAML file, rejecting unknown catalog fields."""
    with open(path, encoding="utf-8") as fh:
        raw = yaml.safe_load(fh) or {}
    unknown = set(raw) - {"columns", "split", "defaults", "id_prefix"}
    if unknown:
        raise CatalogFileError(f"{path}: unknown mapping key(s) {sorted(unknown)}")
    columns = {str(k): str(v) for k, v in (raw.get("columns") or {}).items()}
    bad = [f for f in columns if f not in CATALOG_FIELDS and not f.startswith("tags.")]
    if bad:
        raise CatalogFileError(f"{path}: columns maps unknown catalog field(s) {bad}; known: {CATALOG_FIELDS}")
    return ColumnMapping(
        columns=columns,
        split={str(k): str(v) for k, v in (raw.get("split") or {}).items()},
        defaults=dict(raw.get("defaults") or {}),
        id_prefix=str(raw.get("id_prefix") or ""),
    )


# ---- reading files --------------------------------------------------------------------------

def read_rows(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """Yield (row_number, raw row, parse error) for every record in the file."""
    suffix = path.suffix.lower()
    readers = {".csv": _read_csv, ".tsv": _read_csv, ".jsonl": _read_jsonl, ".ndjson": _read_jsonl,
               ".parquet": _read_parquet, ".xlsx": _read_xlsx}
    if suffix not in readers:
        raise CatalogFileError(f"{path}: unsupported file type {suffix!r}; use CSV, JSON Lines, Parquet or XLSX")
    if not path.exists():
        raise CatalogFileError(f"{path}: file not found")
    yield from readers[suffix](path)


def _read_csv(path: Path):
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh, delimiter=delimiter)
            for index, row in enumerate(reader, start=2):
                extra = row.pop(None, None)
                yield index, row, ("more cells than header columns" if extra else None)
    except UnicodeDecodeError as exc:
        raise CatalogFileError(f"{path}: not UTF-8 text ({exc})") from exc


def _read_jsonl(path: Path):
    with open(path, encoding="utf-8-sig") as fh:
        for line_number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                yield line_number, {"line": line.rstrip("\n")}, f"invalid JSON ({exc.msg})"
                continue
            if not isinstance(record, dict):
                yield line_number, {"line": line.rstrip("\n")}, "a line must hold one JSON object"
                continue
            yield line_number, record, None


def _read_parquet(path: Path):
    import pyarrow.parquet as pq

    for index, record in enumerate(pq.read_table(path).to_pylist(), start=1):
        yield index, record, None


def _read_xlsx(path: Path):
    from openpyxl import load_workbook

    workbook = load_workbook(path, read_only=True, data_only=True)
    try:
        rows = workbook.worksheets[0].iter_rows(values_only=True)
        header = [str(h).strip() if h is not None else "" for h in next(rows, [])]
        for index, values in enumerate(rows, start=2):
            if values is None or all(v is None or str(v).strip() == "" for v in values):
                continue
            yield index, dict(zip(header, values)), None
    finally:
        workbook.close()


# ---- validation -----------------------------------------------------------------------------

def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or (
        isinstance(value, str) and not value.strip()
    )


def _text(name: str, value: Any) -> str | None:
    if _is_empty(value):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # spreadsheets turn ids like 123 into 123.0
    if isinstance(value, (dict, list)):
        raise RowError(name, f"expected text, got {type(value).__name__}")
    text = str(value).strip()
    if has_control_characters(text):
        raise RowError(name, "contains control characters")
    return text


def _integer(name: str, value: Any) -> int | None:
    if _is_empty(value):
        return None
    if isinstance(value, bool):
        raise RowError(name, f"expected a whole number, got {value!r}")
    try:
        number = float(str(value).strip()) if not isinstance(value, (int, float)) else float(value)
    except ValueError:
        raise RowError(name, f"expected a whole number, got {value!r}") from None
    if not number.is_integer():
        raise RowError(name, f"expected a whole number, got {value!r}")
    return int(number)


def _decimal(name: str, value: Any) -> float | None:
    if _is_empty(value):
        return None
    try:
        number = float(str(value).strip()) if not isinstance(value, (int, float)) else float(value)
    except ValueError:
        raise RowError(name, f"expected a number, got {value!r}") from None
    if math.isnan(number) or math.isinf(number):
        raise RowError(name, f"expected a finite number, got {value!r}")
    return number


def _string_list(name: str, value: Any, separator: str | None) -> tuple[str, ...]:
    if _is_empty(value):
        return ()
    if isinstance(value, (list, tuple)):
        items = [_text(name, v) for v in value]
    elif isinstance(value, str):
        pattern = re.escape(separator) if separator else DEFAULT_LIST_SEPARATOR
        items = [_text(name, v) for v in re.split(pattern, value)]
    else:
        raise RowError(name, f"expected a list or separated text, got {value!r}")
    return tuple(i for i in items if i)


def _tags(raw: dict[str, Any], mapping: ColumnMapping, vocabulary: Vocabulary) -> dict[str, tuple[str, ...]]:
    """Tags from a `tags` object / JSON text, or from one column per dimension (tags.<dimension>)."""
    tags_value = raw.get(mapping.source_column("tags"))
    if isinstance(tags_value, str) and tags_value.strip():
        try:
            tags_value = json.loads(tags_value)
        except json.JSONDecodeError:
            raise RowError("tags", "expected a JSON object {dimension: [values]}") from None
    per_dimension: dict[str, Any] = {}
    if isinstance(tags_value, dict):
        per_dimension.update(tags_value)
    elif not _is_empty(tags_value):
        raise RowError("tags", f"expected an object {{dimension: [values]}}, got {tags_value!r}")
    for dim in vocabulary.dimension_names:
        column = mapping.columns.get(f"tags.{dim}", f"tags.{dim}")
        if not _is_empty(raw.get(column)):
            per_dimension[dim] = raw[column]
    tags: dict[str, tuple[str, ...]] = {}
    for dim, values in per_dimension.items():
        if dim not in vocabulary.dimension_names:
            raise RowError("tags", f"unknown dimension {dim!r}")
        items = _string_list(f"tags.{dim}", values, mapping.split.get(f"tags.{dim}"))
        known = vocabulary.value_names(dim)
        for item in items:
            if item not in known:
                raise RowError(f"tags.{dim}", f"unknown value {item!r}")
        if items:
            tags[dim] = tuple(dict.fromkeys(items))
    return tags


def validate_row(raw: dict[str, Any], mapping: ColumnMapping, vocabulary: Vocabulary) -> BookRecord:
    """One source row as a BookRecord, or RowError naming the field that is wrong."""
    def value(name: str) -> Any:
        found = raw.get(mapping.source_column(name))
        return mapping.defaults.get(name) if _is_empty(found) else found

    texts = {name: _text(name, value(name)) for name in TEXT_FIELDS}
    ints = {name: _integer(name, value(name)) for name in INT_FIELDS}
    rating = _decimal("rating", value("rating"))
    authors = _string_list("authors", value("authors"), mapping.split.get("authors"))
    tags = _tags(raw, mapping, vocabulary)

    if not texts["book_id"]:
        raise RowError("book_id", "missing")
    if not texts["title"]:
        raise RowError("title", "missing")
    year = ints["pub_year"]
    if year is not None and not MIN_YEAR <= year <= date.today().year + 1:
        raise RowError("pub_year", f"impossible year {year}")
    if ints["pages"] is not None and ints["pages"] <= 0:
        raise RowError("pages", f"must be positive, got {ints['pages']}")
    for name in ("copies_available", "rating_count"):
        if ints[name] is not None and ints[name] < 0:
            raise RowError(name, f"must not be negative, got {ints[name]}")
    if rating is not None and not 0 <= rating <= 10:
        raise RowError("rating", f"must be between 0 and 10, got {rating}")

    language = normalize_language(texts.pop("language"), f"{texts['title']} {texts['summary'] or ''}")
    book = BookRecord(
        **{**texts, "book_id": mapping.id_prefix + texts["book_id"]},
        language=language,
        authors=authors,
        tags=tags,
        rating=rating,
        tag_origin="source" if tags else None,
        **ints,
    )
    return _with_hash(book)


def _with_hash(book: BookRecord) -> BookRecord:
    return replace(book, content_hash=book.compute_content_hash())


def validate_file(path: Path, mapping: ColumnMapping, vocabulary: Vocabulary) -> ValidatedRows:
    """Read and validate every row of a catalog file; bad rows are kept with their reason."""
    source = str(path)
    books: list[BookRecord] = []
    rejected: list[RejectedRow] = []
    first_seen: dict[str, int] = {}
    checked_columns = False
    for row_number, raw, parse_error in read_rows(path):
        if parse_error:
            rejected.append(RejectedRow(source, row_number, "(row)", parse_error, raw or {}))
            continue
        if not checked_columns and path.suffix.lower() in {".csv", ".tsv", ".xlsx", ".parquet"}:
            _check_required_columns(path, raw, mapping)
            checked_columns = True
        try:
            book = validate_row(raw, mapping, vocabulary)
        except RowError as err:
            rejected.append(RejectedRow(source, row_number, err.field_name, err.reason, raw))
            continue
        if book.book_id in first_seen:
            rejected.append(RejectedRow(
                source, row_number, "book_id",
                f"duplicate book_id {book.book_id!r}, first seen at row {first_seen[book.book_id]}", raw,
            ))
            continue
        first_seen[book.book_id] = row_number
        books.append(book)
    return ValidatedRows(books, rejected)


def _check_required_columns(path: Path, first_row: dict[str, Any], mapping: ColumnMapping) -> None:
    """A file without an id or title column fails as a whole, with one clear message."""
    for name in ("book_id", "title"):
        column = mapping.source_column(name)
        if column not in first_row:
            raise CatalogFileError(
                f"{path}: no column {column!r} for catalog field {name!r}; "
                f"columns are {sorted(first_row)} (a mapping file can name the right one)"
            )
