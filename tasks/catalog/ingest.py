"""Catalog import step: read a CSV / Parquet / JSON Lines / XLSX file, map its columns, validate rows.

Row numbers follow what a librarian sees when opening the file: for CSV and XLSX the header is
row 1 and the first book is row 2; for JSON Lines it is the line number; for Parquet the
1-based record number. Only a row without an id or a title, or repeating an id of the same file, is
rejected; a value that cannot be read as its field leaves the field empty and is reported as a warning.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from config.vocabulary import Vocabulary
from storage.models import BookRecord, ImportWarning, RejectedRow
from tasks.catalog.fields import (
    SCHEMES,
    Reading,
    class_of_call_number,
    classification_codes,
    is_empty,
    read_count,
    read_list,
    read_pages,
    read_rating,
    read_text,
    read_year,
)
from tasks.catalog.formats import FORMAT_OF_SUFFIX, CatalogFileError
from tasks.catalog.marc import read_marc
from tasks.catalog.text_analysis import normalize_language

TEXT_FIELDS = ("book_id", "isbn", "title", "subtitle", "publisher", "language", "call_no",
               "summary", "author_intro", "toc", "edition", "series", "original_title")
LIST_FIELDS = ("authors", "subjects")
NUMBER_FIELDS = ("pub_year", "rating", "rating_count", "pages", "copies_available")
CATALOG_FIELDS = TEXT_FIELDS + LIST_FIELDS + NUMBER_FIELDS + ("tags", "classification")
MAPPING_KEYS = ("columns", "split", "defaults", "id_prefix", "ignore", "classification_scheme")
_NUMBER_READERS = {"pub_year": read_year, "rating": read_rating, "rating_count": read_count, "pages": read_pages,
                   "copies_available": read_count}


@dataclass(frozen=True)
class ColumnMapping:
    """How a source file's columns become catalog fields (see config/mappings/)."""

    columns: dict[str, str] = field(default_factory=dict)  # catalog field -> source column
    split: dict[str, str] = field(default_factory=dict)  # list field -> separator (literal)
    defaults: dict[str, Any] = field(default_factory=dict)  # catalog field -> value when empty
    id_prefix: str = ""
    ignore: tuple[str, ...] = ()  # source columns never read
    classification_scheme: str | None = None  # the scheme of codes that do not name theirs (else guessed)

    def source_column(self, catalog_field: str) -> str | None:
        """The column a field is read from; None where that column is ignored or mapped to another field."""
        column = self.columns.get(catalog_field)
        if column is None:
            taken = catalog_field in self.columns.values()  # e.g. `subjects: tags` frees nothing named tags
            column = None if taken else catalog_field
        return None if column is None or column in self.ignore else column

    def value(self, raw: dict[str, Any], catalog_field: str) -> Any:
        """The field's raw value, or the mapping's default when the cell is empty."""
        column = self.source_column(catalog_field)
        found = raw.get(column) if column else None
        return self.defaults.get(catalog_field) if is_empty(found) else found


@dataclass
class ValidatedRows:
    books: list[BookRecord]
    rejected: list[RejectedRow]
    warnings: list[ImportWarning] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # about the file as a whole (unused columns ...)


class RowError(ValueError):
    def __init__(self, field_name: str, reason: str):
        super().__init__(f"{field_name}: {reason}")
        self.field_name = field_name
        self.reason = reason


def load_mapping(path: Path) -> ColumnMapping:
    """Read a column-mapping YAML file, rejecting unknown catalog fields."""
    if not path.exists():
        raise CatalogFileError(f"{path}: mapping file not found")
    try:
        with open(path, encoding="utf-8") as fh:
            raw = yaml.safe_load(fh) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise CatalogFileError(f"{path}: not valid YAML{f' at line {mark.line + 1}' if mark else ''}") from None
    if not isinstance(raw, dict):
        raise CatalogFileError(f"{path}: expected a mapping with keys {list(MAPPING_KEYS)}")
    unknown = set(raw) - set(MAPPING_KEYS)
    if unknown:
        raise CatalogFileError(f"{path}: unknown mapping key(s) {sorted(unknown)}; known: {list(MAPPING_KEYS)}")
    columns = {str(k): str(v) for k, v in (raw.get("columns") or {}).items()}
    bad = [f for f in columns if f not in CATALOG_FIELDS and not f.startswith(("tags.", "classification."))]
    if bad:
        raise CatalogFileError(f"{path}: columns maps unknown catalog field(s) {bad}; known: {CATALOG_FIELDS}")
    scheme = raw.get("classification_scheme")
    if scheme is not None and scheme not in SCHEMES:
        raise CatalogFileError(f"{path}: classification_scheme {scheme!r} is not one of {list(SCHEMES)}")
    return ColumnMapping(
        columns=columns,
        split={str(k): str(v) for k, v in (raw.get("split") or {}).items()},
        defaults=dict(raw.get("defaults") or {}),
        id_prefix=str(raw.get("id_prefix") or ""),
        ignore=tuple(str(c) for c in raw.get("ignore") or ()),
        classification_scheme=scheme,
    )


# ---- reading files --------------------------------------------------------------------------

def read_rows(path: Path, fmt: str | None = None) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """Yield (row_number, raw row, parse error) for every record in the file, in `fmt` or as its extension says."""
    fmt = fmt or FORMAT_OF_SUFFIX.get(path.suffix.lower())
    readers = {"csv": _read_csv, "tsv": _read_csv, "jsonl": _read_jsonl, "parquet": _read_parquet,
               "xlsx": _read_xlsx, "marc21": read_marc, "marcxml": read_marc, "cnmarc": read_marc}
    if fmt not in readers:
        raise CatalogFileError(f"{path}: unsupported file type {path.suffix!r}; use CSV, JSON Lines, Parquet, XLSX "
                               "or MARC (.mrc, .xml), or name the format with --format")
    if not path.exists():
        raise CatalogFileError(f"{path}: file not found")
    reader = readers[fmt]
    yield from reader(path, fmt) if reader is read_marc else reader(path)


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

@dataclass
class _Row:
    """One row being read: its values and the warnings they gave."""

    raw: dict[str, Any]
    mapping: ColumnMapping
    warnings: list[tuple[str, str, str]] = field(default_factory=list)  # (field, message, value)

    def take(self, name: str, reading: Reading, value: Any):
        if reading.warning:
            self.warnings.append((name, reading.warning, "" if value is None else str(value)[:200]))
        return reading.value


def _tags_and_subjects(row: _Row, vocabulary: Vocabulary) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """Vocabulary tags from a `tags` object / JSON text or `tags.<dimension>` columns.

    A `tags` cell that is not such an object holds reader tags ("二战|历史"): they are subjects. A value
    outside the vocabulary is kept as a subject too, with a warning.
    """
    tags_value = row.mapping.value(row.raw, "tags")
    per_dimension: dict[str, Any] = {}
    subjects: list[str] = []
    if isinstance(tags_value, str) and tags_value.strip().startswith("{"):
        try:
            tags_value = json.loads(tags_value)
        except json.JSONDecodeError:
            row.warnings.append(("tags", "not a JSON object {dimension: [values]}: read as subjects",
                                 tags_value[:200]))
    if isinstance(tags_value, dict):
        per_dimension.update(tags_value)
    elif not is_empty(tags_value):
        subjects += row.take("tags", read_list(tags_value, row.mapping.split.get("tags")), tags_value) or ()
    for dim in vocabulary.dimension_names:
        column = row.mapping.columns.get(f"tags.{dim}", f"tags.{dim}")
        if column not in row.mapping.ignore and not is_empty(row.raw.get(column)):
            per_dimension[dim] = row.raw[column]
    tags: dict[str, tuple[str, ...]] = {}
    for dim, values in per_dimension.items():
        items = row.take(f"tags.{dim}", read_list(values, row.mapping.split.get(f"tags.{dim}")), values) or ()
        if dim not in vocabulary.dimension_names:
            row.warnings.append(("tags", f"unknown dimension {dim!r}: its values read as subjects", str(values)))
            subjects += items
            continue
        known = vocabulary.value_names(dim)
        for item in items:
            if item not in known:
                row.warnings.append((f"tags.{dim}", f"unknown value {item!r}: read as a subject", item))
        subjects += [i for i in items if i not in known]
        if kept := tuple(i for i in items if i in known):
            tags[dim] = kept
    return tags, tuple(subjects)


def _classification(row: _Row, language: str | None, call_no: str | None) -> tuple[str, ...]:
    """Codes from a `classification` object / list / text, or `classification.<scheme>` columns; else the
    class part of the call number, which most exports carry."""
    value = row.mapping.value(row.raw, "classification")
    by_scheme: dict[str | None, tuple[str, ...]] = {}
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            pass
    if isinstance(value, dict):
        for scheme, codes in value.items():
            if str(scheme).lower() not in SCHEMES:
                row.warnings.append(("classification", f"unknown scheme {scheme!r} (known: {list(SCHEMES)})",
                                     str(codes)[:200]))
                continue
            by_scheme[str(scheme).lower()] = row.take("classification", read_list(codes), codes) or ()
    elif not is_empty(value):
        by_scheme[None] = row.take("classification", read_list(value, row.mapping.split.get("classification")),
                                   value) or ()
    for scheme in SCHEMES:
        column = row.mapping.columns.get(f"classification.{scheme}", f"classification.{scheme}")
        if column not in row.mapping.ignore and not is_empty(row.raw.get(column)):
            by_scheme[scheme] = row.take("classification", read_list(row.raw[column]), row.raw[column]) or ()
    if not any(by_scheme.values()) and call_no:
        by_scheme[None] = (class_of_call_number(call_no, language),)
    return classification_codes(by_scheme, language, row.mapping.classification_scheme)


def validate_row(raw: dict[str, Any], mapping: ColumnMapping, vocabulary: Vocabulary
                 ) -> tuple[BookRecord, list[tuple[str, str, str]]]:
    """One source row as a BookRecord with the warnings of its values; RowError when it has no id or title."""
    row = _Row(raw, mapping)
    texts = {name: row.take(name, read_text(mapping.value(raw, name)), mapping.value(raw, name))
             for name in TEXT_FIELDS}
    if not texts["book_id"]:
        raise RowError("book_id", "missing")
    if not texts["title"]:
        raise RowError("title", "missing")
    numbers = {name: row.take(name, _NUMBER_READERS[name](mapping.value(raw, name)), mapping.value(raw, name))
               for name in NUMBER_FIELDS}
    authors = row.take("authors", read_list(mapping.value(raw, "authors"), mapping.split.get("authors")),
                       mapping.value(raw, "authors")) or ()
    subjects = row.take("subjects", read_list(mapping.value(raw, "subjects"), mapping.split.get("subjects")),
                        mapping.value(raw, "subjects")) or ()
    tags, reader_tags = _tags_and_subjects(row, vocabulary)
    language = normalize_language(texts.pop("language"), f"{texts['title']} {texts['summary'] or ''}")
    book = BookRecord(
        **{**texts, "book_id": mapping.id_prefix + texts["book_id"]},
        language=language,
        authors=authors,
        subjects=tuple(dict.fromkeys(subjects + reader_tags)),
        classification=_classification(row, language, texts["call_no"]),
        tags=tags,
        tag_origin="source" if tags else None,
        **numbers,
    )
    return replace(book, content_hash=book.compute_content_hash()), row.warnings


def validate_file(path: Path, mapping: ColumnMapping, vocabulary: Vocabulary, fmt: str | None = None) -> ValidatedRows:
    """Read and validate every row of a catalog file; bad rows are kept with their reason."""
    source = str(path)
    result = ValidatedRows([], [])
    first_seen: dict[str, int] = {}
    checked_columns = False
    seen_columns: set[str] = set()
    for row_number, raw, parse_error in read_rows(path, fmt):
        if parse_error:
            result.rejected.append(RejectedRow(source, row_number, "(row)", parse_error, raw or {}))
            continue
        if not checked_columns and path.suffix.lower() in {".csv", ".tsv", ".xlsx", ".parquet"}:
            _check_required_columns(path, raw, mapping)
            checked_columns = True
        seen_columns.update(raw)
        try:
            book, warnings = validate_row(raw, mapping, vocabulary)
        except RowError as err:
            result.rejected.append(RejectedRow(source, row_number, err.field_name, err.reason, raw))
            continue
        if book.book_id in first_seen:
            result.rejected.append(RejectedRow(
                source, row_number, "book_id",
                f"duplicate book_id {book.book_id!r}, first seen at row {first_seen[book.book_id]}", raw,
            ))
            continue
        first_seen[book.book_id] = row_number
        result.books.append(book)
        result.warnings += [ImportWarning(source, row_number, name, message, value)
                            for name, message, value in warnings]
    unused = sorted(c for c in seen_columns if c not in _read_columns(mapping, vocabulary) and c not in mapping.ignore)
    if unused:
        result.notes.append(f"columns not read: {', '.join(unused)} (map them in a mapping file, or list them "
                            "under `ignore:`)")
    return result


def _read_columns(mapping: ColumnMapping, vocabulary: Vocabulary) -> set[str]:
    """Every source column some field is read from."""
    names = [*CATALOG_FIELDS, *(f"tags.{d}" for d in vocabulary.dimension_names),
             *(f"classification.{s}" for s in SCHEMES)]
    return {c for c in (mapping.source_column(n) or mapping.columns.get(n) for n in names) if c}


def _check_required_columns(path: Path, first_row: dict[str, Any], mapping: ColumnMapping) -> None:
    """A file without an id or title column fails as a whole, with one clear message."""
    for name in ("book_id", "title"):
        column = mapping.source_column(name)
        if column not in first_row:
            raise CatalogFileError(
                f"{path}: no column {column!r} for catalog field {name!r}; "
                f"columns are {sorted(first_row)} (a mapping file can name the right one)"
            )
