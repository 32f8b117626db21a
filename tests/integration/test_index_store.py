"""LanceDB tables and filters compiled from the filter tree, on real tables."""

import numpy as np

from storage.index_store import write_books_table
from tasks.recall.filters import All, Compare, HasAny, Not, to_lance_sql

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
    snapshot = IndexSnapshot("v", tmp_path, table, table, None)
    hits = snapshot.vector_search(vectors[5], 3)
    assert hits[0][0] == "b05" and abs(hits[0][1] - 1.0) < 1e-4


def test_filter_trees_run_as_lance_prefilters(tmp_path):
    from storage.index_store import IndexSnapshot

    table, vectors = small_table(tmp_path, brute_force_max_rows=1000)
    snapshot = IndexSnapshot("v", tmp_path, table, table, None)
    expr = All((HasAny("emotional_tone", ("平静淡然",)), Not(Compare("copies_available", "<=", 0)),
                Compare("pub_year", ">=", 1920)))
    ids = {b for b, _ in snapshot.vector_search(vectors[0], 64, to_lance_sql(expr))}
    expected = {f"b{i:02d}" for i in range(64) if i % 4 == 0 and i % 3 != 0 and 1900 + i >= 1920}
    assert ids == expected
    # An injected value is a literal like any other: it matches nothing and raises nothing.
    evil = to_lance_sql(HasAny("genre", ("x' OR 1=1 --",)))
    assert snapshot.vector_search(vectors[0], 64, evil) == []
