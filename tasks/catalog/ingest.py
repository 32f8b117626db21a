"""Catalog import step: read a CSV / Parquet / JSON Lines / XLSX file, map its columns, validate rows.

Row numbers follow what a librarian sees when opening the file: for CSV and XLSX the header is
row 1 and the first book is row 2; for JSON Lines it is the line number; for Parquet the
1-based record number. Only a row without an id or a title, or repeating an id of the same file, is
rejected; a value that cannot be read as its field leaves the field empty and is reported as a warning.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from config.vocabulary import Vocabulary
from storage.models import ImportWarning, RejectedRow
from tasks.catalog.fields import (
    SCHEMES,
    Reading,
    class_of_call_number,
    classification_codes,
    is_empty,
    read_count,
    read_list,
    read_material,
    read_pages,
    read_rating,
    read_text,
    read_year,
)
from tasks.catalog.marc import read_marc
from tasks.catalog.marc_records import MARC8
from tasks.catalog.names import Credit, by_names, read_credits
from tasks.errors import nearest
from tasks.intake import tables
from tasks.intake.encodings import named_codec
from tasks.intake.formats import FORMAT_OF_SUFFIX, CatalogFileError, ReadReport
from tasks.intake.yaml_input import read_yaml_file
from tasks.language.text_analysis import normalize_language
from tasks.model.books import BookRecord

TEXT_FIELDS = ("book_id", "isbn", "title", "subtitle", "publisher", "language", "call_no",
               "summary", "author_intro", "toc", "edition", "series", "original_title", "original_language")
# translators: a column of their own (Douban, Gutendex); coded: what a record codes of itself, "scheme:code"
# (tasks/catalog/marc.py writes "marc21_literary_form:p")
LIST_FIELDS = ("authors", "translators", "subjects", "coded")
NUMBER_FIELDS = ("pub_year", "rating", "rating_count", "pages", "copies_available")
# `status` says a delta file's deletions: a row (or a MARC record with leader/05 'd') that withdraws its book.
CATALOG_FIELDS = TEXT_FIELDS + LIST_FIELDS + NUMBER_FIELDS + ("tags", "classification", "status", "material")
WITHDRAWN_STATUSES = frozenset({"withdrawn", "deleted", "d", "注销", "剔除", "已注销", "已剔除"})
MARC_FORMATS = ("marc21", "marcxml", "cnmarc")
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
    withdrawn: list[str] = field(default_factory=list)  # book ids the file says are withdrawn (deletions)
    read: int = 0  # records read: books + withdrawn + rejected
    encoding: str | None = None  # what a text file was read in, and how that was known


class RowError(ValueError):
    def __init__(self, field_name: str, reason: str):
        super().__init__(f"{field_name}: {reason}")
        self.field_name = field_name
        self.reason = reason


def load_mapping(path: Path) -> ColumnMapping:
    """Read a column-mapping YAML file, rejecting unknown catalog fields."""
    raw = read_yaml_file(path) or {}
    if not isinstance(raw, dict):
        raise CatalogFileError(f"{path}: expected a mapping with keys {list(MAPPING_KEYS)}")
    unknown = sorted(map(str, set(raw) - set(MAPPING_KEYS)))
    if unknown:
        raise CatalogFileError(f"{path}: unknown mapping key {unknown[0]!r}{nearest(unknown[0], MAPPING_KEYS)}; "
                               f"known: {', '.join(MAPPING_KEYS)}")
    for key in ("columns", "split", "defaults"):
        if not isinstance(raw.get(key) or {}, dict):
            raise CatalogFileError(f"{path}: `{key}:` must be a mapping of field: value")
    columns = {str(k): str(v) for k, v in (raw.get("columns") or {}).items()}
    bad = [f for f in columns if f not in CATALOG_FIELDS and not f.startswith(("tags.", "classification."))]
    if bad:
        raise CatalogFileError(f"{path}: columns: unknown catalog field {bad[0]!r}{nearest(bad[0], CATALOG_FIELDS)}")
    for key in ("split", "defaults"):
        bad = [f for f in raw.get(key) or {} if str(f) not in CATALOG_FIELDS and not str(f).startswith("tags.")]
        if bad:
            raise CatalogFileError(f"{path}: {key}: unknown catalog field {bad[0]!r}"
                                   f"{nearest(str(bad[0]), CATALOG_FIELDS)}")
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

# A cell may hold a whole book's text; csv's default limit (128 KiB) would abort the import on one row.
def read_rows(path: Path, fmt: str | None = None, columns: set[str] | None = None, encoding: str | None = None,
              report: ReadReport | None = None) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """The file's rows (tasks/intake/tables.py), MARC records among them read by tasks/catalog/marc.py."""
    fmt = fmt or FORMAT_OF_SUFFIX.get(path.suffix.lower())
    report = report if report is not None else ReadReport()
    reader = None
    if fmt in MARC_FORMATS:
        codec = _marc_codec(encoding, str(path))
        reader = lambda p: read_marc(p, fmt, report, codec)  # noqa: E731 - bound to this file's format and codec
    return tables.read_rows(path, fmt, columns, encoding, report, reader)


def _marc_codec(encoding: str | None, source: str) -> str | None:
    if encoding is None:
        return None
    return MARC8 if encoding.lower().replace("_", "-") in ("marc-8", "marc8") else named_codec(encoding, source)


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


def _credits(row: _Row) -> tuple[Credit, ...]:
    """The persons of the authors field, then of a translators field where the export has one: a list, or text that
    tasks/catalog/names.py splits into statements itself (a role written after several names is theirs: "王蕴洁、
    李某 译"), unless the mapping names a separator. A person of the translators field is a translator unless the
    statement says otherwise."""
    found: list[Credit] = []
    for name, role in (("authors", None), ("translators", "translator")):
        value = row.mapping.value(row.raw, name)
        separator = row.mapping.split.get(name)
        if separator or not isinstance(value, str):
            statements = row.take(name, read_list(value, separator), value) or ()
        else:
            statements = row.take(name, read_text(value), value)
        # kept as credits, a statement must say its role itself: "李继宏" from the translators column is "李继宏 [translator]"
        found += [c if role is None or read_credits(c.written)[0].role == c.role
                  else replace(c, written=f"{c.written} [{c.role}]") for c in read_credits(statements, role)]
    return tuple(found)


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
    credits = _credits(row)
    subjects = row.take("subjects", read_list(mapping.value(raw, "subjects"), mapping.split.get("subjects")),
                        mapping.value(raw, "subjects")) or ()
    coded = row.take("coded", read_list(mapping.value(raw, "coded")), mapping.value(raw, "coded")) or ()
    material = row.take("material", read_material(mapping.value(raw, "material")), mapping.value(raw, "material"))
    tags, reader_tags = _tags_and_subjects(row, vocabulary)
    language = normalize_language(texts.pop("language"), f"{texts['title']} {texts['summary'] or ''}")
    book = BookRecord(
        **{**texts, "book_id": mapping.id_prefix + texts["book_id"]},
        language=language,
        authors=by_names(credits),
        # kept as written where the marks say more than the names: a nation, a role other than author
        credits=(tuple(dict.fromkeys(c.written for c in credits)) if any(c.role != "author" or c.nation for c in credits)
                 else ()),
        subjects=tuple(dict.fromkeys(subjects + reader_tags)),
        classification=_classification(row, language, texts["call_no"]),
        material=material,
        coded=coded,
        tags=tags,
        tag_origin="source" if tags else None,
        **numbers,
    )
    return replace(book, content_hash=book.compute_content_hash()), row.warnings


def validate_file(path: Path, mapping: ColumnMapping, vocabulary: Vocabulary, fmt: str | None = None,
                  encoding: str | None = None) -> ValidatedRows:
    """Read and validate every row of a catalog file; bad rows are kept with their reason, withdrawn ones listed.

    Every record read is counted once: as a book, a withdrawal or a rejected row.
    """
    source = str(path)
    result = ValidatedRows([], [])
    report = ReadReport()
    first_seen: dict[str, int] = {}
    checked_columns = False
    seen_columns: set[str] = set()
    for row_number, raw, parse_error in read_rows(path, fmt, _read_columns(mapping, vocabulary), encoding, report):
        result.read += 1
        if parse_error:
            result.rejected.append(RejectedRow(source, row_number, "(row)", parse_error, raw or {}))
            continue
        if not checked_columns and path.suffix.lower() in {".csv", ".tsv", ".xlsx", ".parquet"}:
            _check_required_columns(path, raw, mapping)
            checked_columns = True
        seen_columns.update(raw)
        book_id = read_text(mapping.value(raw, "book_id")).value
        if book_id and _withdrawn(mapping.value(raw, "status")):
            result.withdrawn.append(mapping.id_prefix + book_id)
            continue
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
    result.warnings += [ImportWarning(source, *warning) for warning in report.warnings]
    result.encoding = report.encoding
    if fmt not in MARC_FORMATS and FORMAT_OF_SUFFIX.get(path.suffix.lower()) not in MARC_FORMATS and seen_columns:
        _check_mapped_columns(path, seen_columns, mapping)
    unused = sorted(c for c in seen_columns if c not in _read_columns(mapping, vocabulary) and c not in mapping.ignore)
    if unused:
        result.notes.append(f"columns not read: {', '.join(unused)} (map them in a mapping file, or list them "
                            "under `ignore:`)")
    return result


def _withdrawn(value: Any) -> bool:
    status = read_text(value).value
    return bool(status) and status.casefold() in WITHDRAWN_STATUSES


def _check_mapped_columns(path: Path, seen: set[str], mapping: ColumnMapping) -> None:
    """A column the mapping names that no row has is a typo, never an empty field."""
    for catalog_field, column in mapping.columns.items():
        if column not in seen:
            raise CatalogFileError(f"{path}: the mapping reads {catalog_field!r} from column {column!r}, which the "
                                   f"file does not have{nearest(column, seen)}")


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
