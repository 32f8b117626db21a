"""Catalog import into a real DuckDB file."""

import csv
import json
from pathlib import Path

import pytest

from storage.catalog_db import open_catalog
from tasks.catalog.ingest import (
    CatalogFileError,
    ColumnMapping,
    load_mapping,
    validate_file,
)
from tests.conftest import PROJECT_ROOT, shared_data

HEADER = ["book_id", "title", "authors", "pub_year", "language", "summary", "pages", "tags.emotional_tone"]
MALFORMED = [
    ["1", "边城", "沈从文", "1934", "zh", "翠翠在渡口。", "120", "忧伤怅惘"],   # row 2 good
    ["", "No id", "Anon", "2001", "en", "x", "", ""],                          # row 3 no id
    ["3", "", "Anon", "2001", "en", "x", "", ""],                              # row 4 no title
    ["4", "Future", "Anon", "2999", "en", "x", "", ""],                        # row 5 impossible year
    ["1", "边城 again", "沈从文", "1934", "zh", "dup", "", ""],                # row 6 duplicate id
    ["6", "Bell", "Anon", "2001", "en", "ring\x07", "", ""],                   # row 7 control char
    ["7", "Thick", "Anon", "2001", "en", "x", "many", ""],                     # row 8 wrong type
    ["8", "Stoner", "John Williams", "1965", "en", "A quiet life.", "288", "孤独疏离"],  # row 9 good
]


def write_csv(path: Path, rows) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(HEADER)
        writer.writerows(rows)
    return path


def test_malformed_file_rejects_exactly_its_bad_rows(tmp_path, vocabulary):
    source = write_csv(tmp_path / "malformed.csv", MALFORMED)
    rows = validate_file(source, ColumnMapping(), vocabulary)
    assert [b.book_id for b in rows.books] == ["1", "8"]
    reasons = {r.row_number: (r.field, r.reason) for r in rows.rejected}
    assert reasons == {
        3: ("book_id", "missing"),
        4: ("title", "missing"),
        5: ("pub_year", "impossible year 2999"),
        6: ("book_id", "duplicate book_id '1', first seen at row 2"),
        7: ("summary", "contains control characters"),
        8: ("pages", "expected a whole number, got 'many'"),
    }
    with open_catalog(tmp_path / "catalog.duckdb") as db:
        counts = db.import_books(rows.books, rows.rejected, str(source))
        assert (counts.inserted, counts.updated, counts.unchanged, counts.rejected) == (2, 0, 0, 6)
        stored = db.rejected_rows(str(source))
        assert [(r.row_number, r.field) for r in stored] == [(3, "book_id"), (4, "title"), (5, "pub_year"),
                                                             (6, "book_id"), (7, "summary"), (8, "pages")]
        assert stored[0].raw["title"] == "No id"  # the raw row is kept: nothing is lost
        # Importing the same file again changes nothing, rejected rows included.
        again = db.import_books(rows.books, rows.rejected, str(source))
        assert (again.inserted, again.updated, again.unchanged) == (0, 0, 2)
        assert len(db.rejected_rows()) == 6


def test_updates_are_counted_and_source_tags_are_kept(tmp_path, vocabulary):
    source = write_csv(tmp_path / "books.csv", [MALFORMED[0], MALFORMED[-1]])
    with open_catalog(tmp_path / "catalog.duckdb") as db:
        db.import_books(validate_file(source, ColumnMapping(), vocabulary).books, [], str(source))
        edited = [MALFORMED[0][:5] + ["翠翠在渡口等了一辈子。"] + MALFORMED[0][6:], MALFORMED[-1]]
        write_csv(source, edited)
        counts = db.import_books(validate_file(source, ColumnMapping(), vocabulary).books, [], str(source))
        assert (counts.inserted, counts.updated, counts.unchanged) == (0, 1, 1)
        book = {b.book_id: b for b in db.load_books()}["1"]
        assert book.summary == "翠翠在渡口等了一辈子。"
        assert book.tags == {"emotional_tone": ("忧伤怅惘",)} and book.tag_origin == "source"


def test_every_file_format_reads_the_same_books(tmp_path, vocabulary):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from openpyxl import Workbook

    records = [{"book_id": "a1", "title": "Walden", "authors": "Henry David Thoreau", "pub_year": 1854},
               {"book_id": "a2", "title": "我与地坛", "authors": "史铁生", "pub_year": 1991}]
    jsonl = tmp_path / "books.jsonl"
    jsonl.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8")
    parquet = tmp_path / "books.parquet"
    pq.write_table(pa.Table.from_pylist(records), parquet)
    xlsx = tmp_path / "books.xlsx"
    wb = Workbook()
    wb.active.append(list(records[0]))
    for r in records:
        wb.active.append(list(r.values()))
    wb.save(xlsx)
    results = [validate_file(p, ColumnMapping(), vocabulary).books for p in (jsonl, parquet, xlsx)]
    hashes = [[b.content_hash for b in books] for books in results]
    assert hashes[0] == hashes[1] == hashes[2] and len(hashes[0]) == 2
    assert results[0][1].language == "zh"


def test_a_file_without_a_title_column_fails_as_a_whole(tmp_path, vocabulary):
    source = tmp_path / "wrong.csv"
    source.write_text("id,name\n1,Walden\n", encoding="utf-8")
    with pytest.raises(CatalogFileError, match="no column 'book_id'"):
        validate_file(source, ColumnMapping(), vocabulary)


def test_goodbooks_imports_all_rows_through_a_mapping_and_reimport_is_a_noop(tmp_path, vocabulary):
    source = shared_data("goodbooks10k/books.csv")
    mapping = load_mapping(PROJECT_ROOT / "config" / "mappings" / "goodbooks10k.yaml")
    rows = validate_file(source, mapping, vocabulary)
    assert len(rows.books) == 10_000 and rows.rejected == []
    with open_catalog(tmp_path / "catalog.duckdb") as db:
        first = db.import_books(rows.books, rows.rejected, str(source))
        assert first.inserted == 10_000
        hunger = {b.book_id: b for b in db.load_books()}["gb-1"]
        assert hunger.title.startswith("The Hunger Games") and hunger.authors == ("Suzanne Collins",)
        assert hunger.pub_year == 2008 and hunger.language == "en" and hunger.rating == 4.34
        again = db.import_books(validate_file(source, mapping, vocabulary).books, [], str(source))
        assert (again.inserted, again.updated, again.unchanged) == (0, 0, 10_000)
