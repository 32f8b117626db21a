"""The exact in-memory search finds what LanceDB's own search finds, on a real table, under filters."""

import numpy as np
import pytest

from storage.index_store import BOOKS_TABLE, IndexSnapshot, write_book_vectors, write_books_snapshot, write_books_table
from tasks.catalog.index_build import lance_book_columns
from tasks.model.books import BookRecord
from tasks.model.constraints import EVERYTHING, All, Compare, HasAny, Not
from tasks.recall.filters import FilterColumns
from tasks.recall.vector_search import LanceSearch, MemorySearch, create_vector_search

ROWS = 300


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory, vocabulary):
    folder = tmp_path_factory.mktemp("version")
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(ROWS, 16)).astype(np.float32)
    vectors[::3] *= 4.0  # unnormalised rows: the similarity is a cosine whatever the length
    books = [BookRecord(f"b{i:03d}", f"t{i}", language="zh" if i % 2 else "en", pub_year=1900 + i % 120,
                        authors=(f"a{i % 7}",), tags={"genre": ("小说",) if i % 5 == 0 else ("历史",)})
             for i in range(ROWS)]
    write_books_table(folder, lance_book_columns(books, vocabulary, 0.85), vectors, vocabulary.facet_names,
                      brute_force_max_rows=ROWS)
    write_book_vectors(folder, vectors)
    write_books_snapshot(folder, books)
    return IndexSnapshot("v", folder), FilterColumns.build(books), vectors


FILTERS = [EVERYTHING, HasAny("genre", ("小说",), 0.85), All((Compare("pub_year", ">=", 1950), Not(HasAny("author", ("a3",))))),
           HasAny("language", ("fr",))]


@pytest.mark.parametrize("where", FILTERS)
def test_exact_search_finds_the_books_and_similarities_lancedb_finds(snapshot, where):
    index, columns, vectors = snapshot
    exact, lance = MemorySearch(columns, index.vector_matrix()), LanceSearch(index, BOOKS_TABLE)
    queries = vectors[[1, 2, 40]] + 0.1
    mine, theirs = exact.nearest(queries, 10, where, FILTERS), lance.nearest(queries, 10, where, FILTERS)
    assert len(mine.by_query) == 3 and len(mine.by_filter) == len(FILTERS)
    for found, expected in zip(mine.by_query + mine.by_filter, theirs.by_query + theirs.by_filter, strict=True):
        assert [b for b, _ in found] == [b for b, _ in expected]
        assert np.allclose([s for _, s in found], [s for _, s in expected], atol=1e-5)
    assert exact.nearest(queries, 10, HasAny("language", ("fr",))).by_query == [[], [], []]


def test_the_catalog_size_chooses_the_engine(snapshot):
    index, columns, _ = snapshot
    assert isinstance(create_vector_search(index, BOOKS_TABLE, columns, memory_max_rows=ROWS), MemorySearch)
    assert isinstance(create_vector_search(index, BOOKS_TABLE, columns, memory_max_rows=ROWS - 1), LanceSearch)


def test_the_shortlist_then_full_vectors_finds_what_lancedb_finds(snapshot, monkeypatch):
    # 16-dimension vectors: the 128-dimension projection loses nothing, so the shortlist holds the true best
    from tasks.recall import vector_search

    monkeypatch.setattr(vector_search, "SHORTLIST_MIN_ROWS", 0)
    monkeypatch.setattr(vector_search, "SHORTLIST", 40)
    index, columns, vectors = snapshot
    search, lance = MemorySearch(columns, index.vector_matrix()), LanceSearch(index, BOOKS_TABLE)
    assert search._projection is not None
    queries = vectors[[3, 9]] - 0.2
    for where in FILTERS:
        mine, theirs = search.nearest(queries, 10, where, FILTERS), lance.nearest(queries, 10, where, FILTERS)
        for found, expected in zip(mine.by_query + mine.by_filter, theirs.by_query + theirs.by_filter, strict=True):
            assert [b for b, _ in found] == [b for b, _ in expected]
            assert np.allclose([s for _, s in found], [s for _, s in expected], atol=1e-5)


def test_a_wish_brings_the_books_likely_to_hold_it_beyond_the_top_k(embedder):
    # The filtered query uses the brief's own vector: merged into the k, its books were all cut below the k-th.
    from config.settings import RecallSettings
    from tasks.model.books import Facet
    from tasks.model.conditions import FilterCondition
    from tasks.model.query import ThemeQuery
    from tasks.recall.paths.vector import vector_recall

    topics = ["a tense thriller about a detective", "a murder on a night train", "a spy chase across Europe",
              "a kidnapping and a ransom", "a gripping crime novel", "a courtroom drama with a twist",
              "a cookbook of winter soups", "planting tulips in spring", "a field guide to garden birds",
              "knitting patterns for beginners"]

    def guess(confidence: float) -> tuple[Facet, ...]:
        return (Facet("emotional_tone", "悬疑紧张", confidence, "reference", "a probe"),)
    facets = {"b8": guess(0.6), "b9": guess(0.3)}  # b9: less likely than a wish needs
    books = [BookRecord(f"b{i}", text, facets=facets.get(f"b{i}", ())) for i, text in enumerate(topics)]
    search = MemorySearch(FilterColumns.build(books), embedder.embed_documents(topics))
    brief = "A gripping, tense story for a long night"
    settings = RecallSettings(vector_top_k=4)

    def found(*conditions: FilterCondition) -> list[str]:
        query = ThemeQuery(conditions, (), brief, 0.8, "rules", "en")
        return [h.book_id for h in vector_recall(query, EVERYTHING, search, embedder, settings, 0.85,
                                                 expand=False).hits]
    assert set(found()) <= {f"b{i}" for i in range(6)}
    wished = found(FilterCondition("emotional_tone", ("悬疑紧张",), "SHOULD"))
    assert wished[:4] == found() and wished[4:] == ["b8"]
