"""LanceDB tables and filters compiled from the filter tree, on real tables."""

import marshal

import numpy as np
import pytest

from storage.index_store import write_books_table
from tasks.model.constraints import All, Compare, HasAny, Not
from tasks.recall.filters import to_lance_sql

DIMS = ("emotional_tone", "genre")


def small_table(tmp_path, rows=64, brute_force_max_rows=10):
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(rows, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    columns = {
        "book_id": [f"b{i:02d}" for i in range(rows)], "title": [f"t{i}" for i in range(rows)],
        "language": ["zh" if i % 2 else "en" for i in range(rows)], "pub_year": [1900 + i for i in range(rows)],
        "rating": [None] * rows, "pages": [100 + i for i in range(rows)],
        "copies_available": [i % 3 for i in range(rows)], "work_id": [f"b{i:02d}" for i in range(rows)],
        "authors": [[f"a{i % 5}"] for i in range(rows)], "subject_text": [" " for _ in range(rows)],
        "class_prefixes": [[] for _ in range(rows)],
        "tag_emotional_tone": [["平静淡然"] if i % 4 == 0 else ["忧伤怅惘"] for i in range(rows)],
        "tag_genre": [["小说"] if i < 10 else [] for i in range(rows)],
    }
    write_books_table(tmp_path, columns, vectors, DIMS, brute_force_max_rows)
    import lancedb

    return lancedb.connect(str(tmp_path / "lance")).open_table("books"), vectors


def test_large_tables_get_an_ivf_flat_index_that_still_finds_the_nearest_book(tmp_path):
    from storage.index_store import IndexSnapshot

    table, vectors = small_table(tmp_path)
    assert any(i.index_type == "IvfFlat" for i in table.list_indices())
    snapshot = IndexSnapshot("v", tmp_path)
    hits = snapshot.vector_search(vectors[5], 3)
    assert hits[0][0] == "b05" and abs(hits[0][1] - 1.0) < 1e-4


def test_filter_trees_run_as_lance_prefilters(tmp_path):
    from storage.index_store import IndexSnapshot

    table, vectors = small_table(tmp_path, brute_force_max_rows=1000)
    snapshot = IndexSnapshot("v", tmp_path)
    expr = All((HasAny("emotional_tone", ("平静淡然",)), Not(Compare("copies_available", "<=", 0)),
                Compare("pub_year", ">=", 1920)))
    ids = {b for b, _ in snapshot.vector_search(vectors[0], 64, to_lance_sql(expr))}
    expected = {f"b{i:02d}" for i in range(64) if i % 4 == 0 and i % 3 != 0 and 1900 + i >= 1920}
    assert ids == expected
    # An injected value is a literal like any other: it matches nothing and raises nothing.
    evil = to_lance_sql(HasAny("genre", ("x' OR 1=1 --",)))
    assert snapshot.vector_search(vectors[0], 64, evil) == []


def test_a_version_folder_gives_back_its_books_vocabulary_and_sentences_without_duckdb(tmp_path):
    from datetime import datetime

    from storage.index_store import (
        FOLDER_FORMAT,
        NoIndexError,
        SentenceFiles,
        new_version,
        open_current,
        set_current,
        write_book_vectors,
        write_books_snapshot,
        write_version_file,
        write_vocabulary_vectors,
    )
    from storage.models import IndexVersion
    from tasks.model.books import BookRecord, Facet

    books = [
        BookRecord("b1", "边城", authors=("沈从文",), pub_year=1934, language="zh", summary="翠翠等人。渡船。",
                   tags={"emotional_tone": ("忧伤怅惘",)}, tag_origin="source", work_id="b1", content_hash="h1",
                   updated_at=datetime(2026, 11, 1, 8, 30)),
        BookRecord("b2", "Stoner", authors=("John Williams", "x"), rating=4.5, pages=288, copies_available=0,
                   subjects=("Teachers -- Fiction",), classification=("lcc:PS3545",), tag_origin="enriched",
                   facets=(Facet("genre", "小说", 0.8, "neighbours", "4 of 5 neighbours"),), work_id="w-stoner",
                   content_hash="h2"),
    ]
    from storage.index_root import IndexRoot

    indexes = IndexRoot(tmp_path / "indexes")
    with pytest.raises(NoIndexError, match="no index has been built yet"):
        open_current(indexes)
    version_id, path = new_version(indexes, "f" * 64)
    table, vectors = small_table(path, rows=2, brute_force_max_rows=10)
    sentence_vectors = np.vstack([vectors, vectors[:1] * -1])
    sentences = SentenceFiles(path, ["b1", "b1", "b2"], ["翠翠等人。", "渡船。", "A quiet life."], 8)
    sentences.write(np.array([2, 0]), sentence_vectors[[2, 0]])  # in any order, a chunk at a time, as a build does
    sentences.write(np.array([1]), sentence_vectors[[1]])
    sentences.finish()
    write_books_snapshot(path, books)
    write_book_vectors(path, vectors)
    write_vocabulary_vectors(path, [("genre", "小说：虚构"), ("genre", "传记：人生")], vectors)
    (path / "bm25").mkdir()
    from config.settings import BM25Settings
    from storage.bm25_index import BM25Index

    BM25Index.build(["b1", "b2"], [["翠翠"], ["quiet"]], BM25Settings()).save(path / "bm25")
    set_current(indexes, version_id)
    with pytest.raises(NoIndexError, match="incomplete"):
        open_current(indexes)  # no version file yet: the build has not finished writing
    write_version_file(path, IndexVersion(version_id, datetime(2026, 11, 2), str(path), "f" * 64, 2, 3, "m", 8,
                                          2, 3, {"embed": 1.5}), "inputs")

    snapshot = open_current(indexes)
    assert snapshot.load_books() == books
    # the books are read from their marshal form; from the Parquet file where that is missing, another Python's
    # or damaged
    from storage.index_store import BOOK_OBJECTS_FILE, BOOKS_FILE

    objects = (path / BOOK_OBJECTS_FILE).read_bytes()
    (path / BOOKS_FILE).rename(path / "hidden")
    assert snapshot.load_books() == books  # not read from the Parquet file
    (path / "hidden").rename(path / BOOKS_FILE)
    key, rows = marshal.loads(objects)
    other_python = marshal.dumps([[[2, 7], *key[1:]], [(row[0], "misread", *row[2:]) for row in rows]])
    for stored in (b"", objects[:-9], other_python):
        (path / BOOK_OBJECTS_FILE).write_bytes(stored)
        assert snapshot.load_books() == books
    (path / BOOK_OBJECTS_FILE).unlink()
    assert snapshot.load_books() == books
    # each distinct facet is stored once; the filter columns take its books' rows without walking them
    assert {f: rows.tolist() for f, rows in snapshot.facet_rows().items()} == {books[1].facets[0]: [1]}
    from tasks.model.constraints import HasAny
    from tasks.recall.filters import FilterColumns

    walked, stored = FilterColumns.build(books), FilterColumns.build(books, snapshot.facet_rows())
    for expr in (HasAny("genre", ("小说",), 0.5), HasAny("genre", ("小说",), 0.9), HasAny("emotional_tone", ("忧伤怅惘",))):
        assert stored.has_any(expr).tolist() == walked.has_any(expr).tolist()
    record = (path / "version.json").read_text(encoding="utf-8")
    (path / "version.json").write_text(record.replace(f'"format": {FOLDER_FORMAT}', '"format": 0'), encoding="utf-8")
    with pytest.raises(NoIndexError, match="older Shelfwise"):
        open_current(indexes)  # a folder of another format is rebuilt, never misread
    assert snapshot.version.embedder == "m" and snapshot.version.stage_seconds == {"embed": 1.5}
    stored = snapshot.vocabulary_vectors()
    np.testing.assert_allclose(stored[("genre", "传记：人生")], vectors[1])
    owners, texts, found = snapshot.sentences_of(["b2", "nobody", "b1"])
    assert owners == ["b2", "b1", "b1"] and texts == ["A quiet life.", "翠翠等人。", "渡船。"]
    np.testing.assert_allclose(found, sentence_vectors[[2, 0, 1]])
    assert list(snapshot.book_vectors(["b2", "b1", "nobody"])) == ["b2", "b1"]
    np.testing.assert_allclose(snapshot.book_vectors(["b2"])["b2"], vectors[1])

    # a build may take books from a version built from the same inputs, whole: not from a file cut short
    (path / "version.json").write_text(record, encoding="utf-8")
    from storage.index_store import SENTENCE_VECTORS_FILE, open_previous

    built = snapshot.version
    assert open_previous(built, "inputs").vectors_at(np.array([1, 0])).tolist() == vectors[[1, 0]].tolist()
    assert open_previous(built, "other inputs") is None
    with open(path / SENTENCE_VECTORS_FILE, "r+b") as fh:
        fh.truncate(fh.seek(0, 2) - 4)
    assert open_previous(built, "inputs") is None


def test_lancedb_is_imported_without_its_rest_client_until_something_asks_for_it():
    import subprocess
    import sys

    from config.settings import PROJECT_ROOT

    code = ("import sys, storage.index_store; print('lance_namespace_urllib3_client.api' in sys.modules); "
            "import lance_namespace_urllib3_client as client; client.ApiClient; "
            "print('lance_namespace_urllib3_client.api' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
