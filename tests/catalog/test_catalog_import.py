"""Catalog import into a real DuckDB file."""

import csv
import json
from pathlib import Path

import pytest

from storage import catalog_db
from storage.catalog_db import open_catalog
from tasks.catalog.ingest import (
    CatalogFileError,
    ColumnMapping,
    load_mapping,
    validate_file,
)
from tasks.model.books import shared_facet
from tests.conftest import PROJECT_ROOT, shared_data

HEADER = ["book_id", "title", "authors", "pub_year", "language", "summary", "pages", "tags.emotional_tone"]
MALFORMED = [
    ["1", "边城", "沈从文", "1934", "zh", "翠翠在渡口。", "120", "忧伤怅惘"],   # row 2 good
    ["", "No id", "Anon", "2001", "en", "x", "", ""],                          # row 3 no id: rejected
    ["3", "", "Anon", "2001", "en", "x", "", ""],                              # row 4 no title: rejected
    ["4", "Future", "Anon", "2999", "en", "x", "", ""],                        # row 5 impossible year: warned
    ["1", "边城 again", "沈从文", "1934", "zh", "dup", "", ""],                # row 6 duplicate id: rejected
    ["6", "Bell", "Anon", "2001", "en", "ring\x07", "", ""],                   # row 7 control char: cleaned
    ["7", "Thick", "Anon", "2001", "en", "x", "many", ""],                     # row 8 wrong type: warned
    ["9", "Thin", "Anon", "2001", "en", "x", "128页", "快乐"],                 # row 9 units, unknown tag
    ["8", "Stoner", "John Williams", "1965", "en", "A quiet life.", "288", "孤独疏离"],  # row 10 good
]


def write_csv(path: Path, rows) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(HEADER)
        writer.writerows(rows)
    return path


def test_malformed_file_keeps_every_book_it_can_and_says_why_for_the_rest(tmp_path, vocabulary):
    source = write_csv(tmp_path / "malformed.csv", MALFORMED)
    rows = validate_file(source, ColumnMapping(), vocabulary)
    assert [b.book_id for b in rows.books] == ["1", "4", "6", "7", "9", "8"]
    reasons = {r.row_number: (r.field, r.reason) for r in rows.rejected}
    assert reasons == {
        3: ("book_id", "missing"),
        4: ("title", "missing"),
        6: ("book_id", "duplicate book_id '1', first seen at row 2"),
    }
    warned = {(w.row_number, w.field): w.message for w in rows.warnings}
    assert warned == {(5, "pub_year"): "impossible year 2999", (7, "summary"): "control characters removed",
                      (8, "pages"): "expected a whole number, got 'many'", (9, "pages"): "read '128页' as 128",
                      (9, "tags.emotional_tone"): "unknown value '快乐': read as a subject"}
    books = {b.book_id: b for b in rows.books}
    assert books["4"].pub_year is None and books["6"].summary == "ring" and books["9"].pages == 128
    assert books["9"].subjects == ("快乐",)
    with open_catalog(tmp_path / "catalog.duckdb") as db:
        counts = db.import_books(rows.books, rows.rejected, str(source), rows.warnings)
        assert (counts.inserted, counts.updated, counts.unchanged, counts.rejected, counts.warnings) == (6, 0, 0, 3, 5)
        stored = db.rejected_rows(str(source))
        assert [(r.row_number, r.field) for r in stored] == [(3, "book_id"), (4, "title"), (6, "book_id")]
        assert stored[0].raw["title"] == "No id"  # the raw row is kept: nothing is lost
        assert [(w.row_number, w.field, w.value) for w in db.import_warnings(str(source))][:2] == [
            (5, "pub_year", "2999"), (7, "summary", "ring\x07")]
        # Importing the same file again changes nothing, rejected rows and warnings included.
        again = db.import_books(rows.books, rows.rejected, str(source), rows.warnings)
        assert (again.inserted, again.updated, again.unchanged) == (0, 0, 6)
        assert len(db.rejected_rows()) == 3 and len(db.import_warnings()) == 5


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


def test_derived_facets_are_written_in_batches_and_a_build_reads_books_without_them(tmp_path, vocabulary,
                                                                                     monkeypatch):
    monkeypatch.setattr(catalog_db, "WRITE_BATCH", 2)  # several statements in the one transaction
    source = write_csv(tmp_path / "books.csv", [MALFORMED[-1], MALFORMED[0], MALFORMED[3]])
    guess = shared_facet("spatial_atmosphere", "乡土小镇", 0.7134567, "reference", "a probe's \"guess\"")
    with open_catalog(tmp_path / "catalog.duckdb") as db:
        db.import_books(validate_file(source, ColumnMapping(), vocabulary).books, [], str(source))
        db.save_facets({"1": (guess,), "4": (guess,), "8": ()}, {"1": "w-1", "4": "w-4", "8": "w-8"})
        books = db.load_books()
        assert [b.book_id for b in books] == ["1", "4", "8"]  # in book_id order, whatever order DuckDB reads
        assert books[0].facets == (shared_facet("spatial_atmosphere", "乡土小镇", 0.7135, "reference",
                                                'a probe\'s "guess"'),)
        assert [b.work_id for b in books] == ["w-1", "w-4", "w-8"]
        assert [b.tag_origin for b in books] == ["source", "enriched", "source"]
        bare = db.load_books(derived=False)  # a build derives them again
        assert [b.facets for b in bare] == [(), (), ()]
        assert [(b.title, b.tags) for b in bare] == [(b.title, b.tags) for b in books]


def test_another_file_that_overwrites_books_says_how_many(tmp_path, vocabulary):
    first = write_csv(tmp_path / "branch-a.csv", [MALFORMED[0], MALFORMED[-1]])
    second = write_csv(tmp_path / "branch-b.csv", [MALFORMED[0][:5] + ["另一段简介。"] + MALFORMED[0][6:],
                                                   MALFORMED[-1]])
    with open_catalog(tmp_path / "catalog.duckdb") as db:
        db.import_books(validate_file(first, ColumnMapping(), vocabulary).books, [], str(first))
        counts = db.import_books(validate_file(second, ColumnMapping(), vocabulary).books, [], str(second))
        assert (counts.updated, counts.overwritten, counts.unchanged) == (1, 1, 1)
        # the same file again overwrites nothing
        again = write_csv(second, [MALFORMED[0][:5] + ["第三段简介。"] + MALFORMED[0][6:], MALFORMED[-1]])
        counts = db.import_books(validate_file(again, ColumnMapping(), vocabulary).books, [], str(again))
        assert (counts.updated, counts.overwritten) == (1, 0)


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


def test_a_whole_catalogs_facets_are_saved_past_the_memory_cap(tmp_path, monkeypatch):
    # DuckDB keeps an UPDATE's new values in memory until commit: 1M books' facets outgrew the 512 MB cap at the
    # end of a full build. Here the cap is 32 MB and the facets written about 65 MB, in the one transaction (without
    # the cap raised for it, DuckDB runs out of memory at 30 of 30.5 MiB; at 64 MB and 40k books the test took twice
    # the CPU for the same proof; at 16 MB DuckDB cannot give the cap back).
    monkeypatch.setattr(catalog_db, "MEMORY_LIMIT_MB", 32)
    monkeypatch.setattr(catalog_db, "MEMORY_LIMIT", "32MB")
    books = 20_000
    with open_catalog(tmp_path / "catalog.duckdb") as db:
        db.conn.execute("INSERT INTO books (book_id, title, content_hash) "
                        f"SELECT 'b' || lpad(i::VARCHAR, 6, '0'), 'T', 'h' FROM range({books}) t(i)")
        facets = {f"b{i:06d}": tuple(shared_facet("theme", f"value {j}", 0.8, "subject", f"heading {i} {'x' * 200}")
                                     for j in range(8)) for i in range(books)}
        db.save_facets(facets, {b: f"w-{b}" for b in facets})
        saved = db.conn.execute("SELECT count(*) FROM books WHERE facets IS NOT NULL AND work_id = 'w-' || book_id")
        assert saved.fetchone()[0] == books
        assert db.conn.execute("SELECT current_setting('memory_limit')").fetchone()[0] == "30.5 MiB"  # given back
