"""Real Prefect runs of the index-build flow on a small catalog, with the real embedder."""

import json
from pathlib import Path

import pytest

from flows.build_indexes import build_indexes
from storage.catalog_db import CatalogDB, open_catalog
from storage.index_root import IndexRoot
from storage.index_store import open_current, open_index
from tasks.catalog.ingest import ColumnMapping, validate_file
from tasks.language.text_analysis import tokenize

pytestmark = pytest.mark.slow

BOOKS = [
    ("zh-1", "边城", "沈从文", 1934, "zh", "湘西小镇茶峒，翠翠和爷爷守着渡船。她等一个也许不会回来的人。", {"emotional_tone": ["忧伤怅惘"]}),
    ("zh-2", "呐喊", "鲁迅", 1923, "zh", "鲁迅的第一部小说集。狂人日记和阿Q正传写出了国民的麻木。", {"emotional_tone": ["沉重压抑"]}),
    ("zh-3", "三体", "刘慈欣", 2008, "zh", "文化大革命中，叶文洁向宇宙发出信号。三体文明随之而来。", {"spatial_atmosphere": ["宇宙星空"]}),
    ("zh-4", "我与地坛", "史铁生", 1991, "zh", "作者摇着轮椅走进地坛。他在园子里想生与死，也想念母亲。", {}),
    ("zh-5", "活着", "余华", 1993, "zh", "福贵失去了一个又一个亲人。他和一头老牛一起活了下来。", {}),
    ("zh-6", "草房子", "曹文轩", 1997, "zh", "油麻地小学的桑桑度过了六年。那里有金色的草房子。", {}),
    ("en-1", "Stoner", "John Williams", 1965, "en", "A farm boy becomes a professor of English. His quiet life is full of small defeats.", {"emotional_tone": ["忧伤怅惘"]}),
    ("en-2", "Dune", "Frank Herbert", 1965, "en", "Paul Atreides comes to the desert planet Arrakis. Spice, sandworms and empire collide.", {}),
    ("en-3", "Walden", "Henry David Thoreau", 1854, "en", "Thoreau lives two years in a cabin by a pond. He writes about simple living in nature.", {}),
    ("en-4", "The Martian", "Andy Weir", 2011, "en", "An astronaut is stranded on Mars. He survives with science and jokes.", {}),
    ("en-5", "Charlotte's Web", "E. B. White", 1952, "en", "A spider saves a pig by writing words in her web. A warm story of friendship on a farm.", {}),
    ("en-6", "Moby-Dick", "Herman Melville", 1851, "en", "Captain Ahab hunts the white whale across the oceans. Ishmael tells the tale.", {}),
]


def write_catalog(path: Path, edits: dict[str, str] | None = None) -> Path:
    edits = edits or {}
    with open(path, "w", encoding="utf-8") as fh:
        for book_id, title, author, year, lang, summary, tags in BOOKS:
            fh.write(json.dumps({"book_id": book_id, "title": title, "authors": [author], "pub_year": year,
                                 "language": lang, "summary": edits.get(book_id, summary), "tags": tags,
                                 "copies_available": 1}, ensure_ascii=False) + "\n")
    return path


def import_catalog(settings, vocabulary, source: Path):
    with open_catalog(settings.duckdb_path) as db:
        return db.import_books(validate_file(source, ColumnMapping(), vocabulary).books, [], str(source))


def changed_since_build(settings) -> dict:
    with open_catalog(settings.duckdb_path) as db:
        return db.books_changed_since_build()


def test_incremental_build_reembeds_only_the_edited_books(prefect_server, workspace, vocabulary, tmp_path):
    source = write_catalog(tmp_path / "catalog.jsonl")
    import_catalog(workspace, vocabulary, source)
    first = build_indexes()
    # every book gets calibrated guesses for the dimensions its source did not tag; its head line is
    # embedded a part at a time: 12 title lines and 4 tag labels (忧伤怅惘 twice: once in Chinese, once in English)
    assert (first.book_count, first.books_enriched, first.books_embedded) == (12, 12, 16)
    assert first.sentence_count == first.sentences_embedded == 24

    edits = {"zh-4": "他在地坛里坐了十五年。", "en-2": "A desert planet. A boy becomes a prophet.",
             "en-6": "A whaling voyage ends in ruin."}
    counts = import_catalog(workspace, vocabulary, write_catalog(source, edits))
    assert (counts.updated, counts.unchanged) == (3, 9)
    assert changed_since_build(workspace) == {"added": 0, "changed": 3, "removed": 0}

    second = build_indexes()
    # only the edited books' new sentences: their head lines (tags, title, authors) did not change,
    # and their vectors follow from the new sentences without embedding anything else
    assert second.sentences_embedded == 4 and second.books_embedded == 0
    assert second.books_tokenized == 3
    assert changed_since_build(workspace) == {"added": 0, "changed": 0, "removed": 0}

    third = build_indexes()
    assert third.up_to_date and third.version_id == second.version_id

    with open_catalog(workspace.duckdb_path) as db:
        books = {b.book_id: b for b in db.load_books()}
        current = db.current_index_version()
    # Untagged books got facets with their origin and confidence, 12 books being too few to teach their own
    # neighbours: the reference catalog's books vote; a tagged dimension keeps the source's values.
    assert books["zh-4"].tag_origin == "enriched"
    assert {f.origin for f in books["zh-4"].facets} == {"zero-shot", "reference"}
    assert books["zh-1"].tag_origin == "source" and books["zh-1"].tags == {"emotional_tone": ("忧伤怅惘",)}
    assert {f.value for f in books["zh-1"].facets if f.dimension == "emotional_tone"} == {"忧伤怅惘"}
    assert all(f.confidence < 0.85 for f in books["zh-4"].facets)  # 12 books are too few to calibrate a guess
    snapshot = open_index(current.version_id, Path(current.path))
    assert snapshot.bm25.search(tokenize("desert prophet", "en"), 3)[0][0] == "en-2"
    assert len(snapshot.sentences_of([b.book_id for b in books.values()])[1]) == second.sentence_count == 22
    before = open_index(first.version_id, workspace.indexes_dir / first.version_id).book_vectors(["zh-4", "zh-5"])
    after = snapshot.book_vectors(["zh-4", "zh-5"])
    assert before["zh-4"] @ after["zh-4"] < 0.999 and before["zh-5"] @ after["zh-5"] > 0.9999
    # the old sentences' vectors left the cache with the build that replaced them: reverting the edits
    # embeds those sentences again instead of finding their stale vectors
    assert second.cache_pruned == 6
    import_catalog(workspace, vocabulary, write_catalog(source))
    reverted = build_indexes()
    assert reverted.sentences_embedded == 6 and reverted.cache_pruned == 4


def test_an_incremental_build_takes_unchanged_books_from_the_previous_version_as_a_full_build_makes_them(
        prefect_server, workspace, vocabulary, tmp_path):
    import numpy as np

    source = write_catalog(tmp_path / "catalog.jsonl")
    import_catalog(workspace, vocabulary, source)
    built = build_indexes()
    before = {b.book_id: b.facets for b in open_index(built.version_id, workspace.indexes_dir / built.version_id)
              .load_books()}
    edits = {"en-3": "A cabin by a pond, again. Simple living. In the woods."}  # with en-7: 2 of 13, patched
    with open(write_catalog(source, edits), "a", encoding="utf-8") as fh:  # and a book the catalog did not have
        fh.write(json.dumps({"book_id": "en-7", "title": "Middlemarch", "authors": ["George Eliot"],
                             "pub_year": 1871, "language": "en", "copies_available": 1,
                             "summary": "Dorothea marries a dry scholar. A provincial town watches."}) + "\n")
    import_catalog(workspace, vocabulary, source)
    carried = build_indexes()
    assert carried.book_count == 13 and carried.sentences_embedded == 5 and carried.books_tokenized == 2
    incremental = open_index(carried.version_id, workspace.indexes_dir / carried.version_id)
    full = build_indexes(full=True)
    rebuilt = open_index(full.version_id, workspace.indexes_dir / full.version_id)

    ids = [b.book_id for b in rebuilt.load_books()]
    assert [b.book_id for b in incremental.load_books()] == ids
    # sentences (texts and vectors) and book vectors are the book's own: the same as a full build makes them
    assert incremental.sentences_of(ids)[1] == rebuilt.sentences_of(ids)[1]
    np.testing.assert_allclose(incremental.sentences_of(ids)[2], rebuilt.sentences_of(ids)[2], atol=1e-6)
    np.testing.assert_allclose(incremental.vector_matrix(), rebuilt.vector_matrix(), atol=1e-6)
    # facets: a changed book's as the full build derives them, an unchanged one's as the previous version had them
    # (scored in a smaller matrix product, a changed book's guesses may differ in the eighth decimal)
    derived = {b.book_id: b.facets for b in incremental.load_books()}
    for book in rebuilt.load_books():
        if book.book_id in [*edits, "en-7"]:
            ours, theirs = (sorted(f, key=lambda f: (f.dimension, f.value, f.origin))
                            for f in (derived[book.book_id], book.facets))
            assert [(f.dimension, f.value, f.origin) for f in ours] == [
                (f.dimension, f.value, f.origin) for f in theirs]
            np.testing.assert_allclose([f.confidence for f in ours], [f.confidence for f in theirs], atol=1e-6)
    assert {b: f for b, f in derived.items() if b not in [*edits, "en-7"]} == {
        b: f for b, f in before.items() if b not in edits}
    assert incremental.bm25.search(tokenize("cabin pond woods", "en"), 1)[0][0] == "en-3"
    # its LanceDB table is the previous one patched (one row replaced, one added): the rows a full build writes
    patched, written = (sorted(s.books.search().limit(None).to_arrow().to_pylist(), key=lambda r: r["book_id"])
                        for s in (incremental, rebuilt))
    assert [{k: v for k, v in r.items() if k != "vector"} for r in patched] == [
        {k: v for k, v in r.items() if k != "vector"} for r in written]
    np.testing.assert_allclose([r["vector"] for r in patched], [r["vector"] for r in written], atol=1e-6)
    assert incremental.books.version > rebuilt.books.version


def test_a_build_failing_in_its_last_step_leaves_the_previous_index_queryable(
    prefect_server, workspace, vocabulary, embedder, tmp_path, monkeypatch
):
    source = write_catalog(tmp_path / "catalog.jsonl")
    import_catalog(workspace, vocabulary, source)
    good = build_indexes()
    import_catalog(workspace, vocabulary, write_catalog(source, {"en-1": "A new summary of a quiet life."}))

    def fail(*args, **kwargs):
        raise RuntimeError("disk full while committing")

    with monkeypatch.context() as patch, pytest.raises(RuntimeError, match="disk full"):
        patch.setattr(CatalogDB, "commit_index_version", fail)
        build_indexes()

    with open_catalog(workspace.duckdb_path) as db:
        current = db.current_index_version()
        assert current.version_id == good.version_id
        assert db.books_changed_since_build()["changed"] == 1
    snapshot = open_current(IndexRoot(workspace.indexes_dir))  # what readers open
    assert snapshot.version_id == good.version_id
    query = embedder.embed_queries(["宇宙 外星文明"])[0]
    assert snapshot.vector_search(query, 3)[0][0] == "zh-3"
    assert snapshot.vector_search(query, 3, where="pub_year < 1900")[0][0] in {"en-3", "en-6"}

    # The next build succeeds and clears the half-built folder away.
    recovered = build_indexes()
    folders = sorted(p.name for p in workspace.indexes_dir.iterdir() if p.is_dir())
    assert folders == sorted([good.version_id, recovered.version_id])
    assert open_current(IndexRoot(workspace.indexes_dir)).version_id == recovered.version_id


def test_the_optional_e5_path_is_built_and_recalls(prefect_server, workspace, vocabulary, tmp_path, monkeypatch):
    from config.settings import load_settings
    from tasks.model.constraints import EVERYTHING
    from tasks.model.query import ThemeQuery
    from tasks.model.stages import Understood
    from tasks.model.themes import Theme
    from tasks.ranking.rank import order
    from tasks.recall.recall import recall
    from tasks.shelving import build_context

    monkeypatch.setenv("SHELFWISE__INDEX__E5_PATH", "true")
    settings = load_settings()
    import_catalog(settings, vocabulary, write_catalog(tmp_path / "catalog.jsonl"))
    report = build_indexes()
    assert "embed_books_e5" in report.stage_seconds
    ctx = build_context(settings, vocabulary)
    assert ctx.recall.snapshot.books_e5.count_rows() == 12 and ctx.recall.e5_embedder is not None
    query = ThemeQuery((), ("whale",), "a whaling voyage on the ocean", 1.0, "test", "en")
    understood = Understood(Theme("b", "t", "whales"), query, EVERYTHING)
    ranking = order(recall(understood, ctx.recall), understood, ctx.ranking)
    top = ranking.candidates[0]
    assert top.book_id == "en-6" and {"vector", "bm25", "e5"} <= set(top.ranks)
