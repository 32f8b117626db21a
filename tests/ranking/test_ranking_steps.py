"""Recall helpers, fusion, de-duplication and shelf selection on tiny in-memory data."""

import pytest

from config.settings import HistorySettings, RecallSettings
from config.vocabulary import get_vocabulary
from tasks.model.books import BookRecord, Facet
from tasks.model.conditions import FilterCondition
from tasks.model.query import Candidate, PathHit, ThemeQuery
from tasks.ranking.dedupe import condition_similarity
from tasks.ranking.fusion import (
    adults_first,
    demote_doubtful,
    preferred_first,
    promote_wished,
    rrf_fuse,
    screen_unsure_exclusions,
)
from tasks.ranking.shelf import select_shelf
from tasks.recall.paths.bm25 import theme_seed
from tasks.understanding.expansion import expand_query


def test_rrf_matches_the_seed_example_and_keeps_provenance():
    vector = [PathHit(f"v{i}", 0.9 - i / 100, "vector") for i in range(1, 3)] + [PathHit("A", 0.8, "vector")]
    bm25 = [PathHit(f"b{i}", 9 - i, "bm25") for i in range(1, 7)] + [PathHit("A", 3.4, "bm25_random")]
    fused = {c.book_id: c for c in rrf_fuse({"vector": vector, "bm25": bm25}, k=60)}
    a = fused["A"]
    assert a.ranks == {"vector": 3, "bm25": 7}
    assert a.rrf_score == pytest.approx(1 / 63 + 1 / 67)  # 0.03080: RRF with k = 60
    assert a.sources == ["vector", "bm25_random"] and a.scores["bm25"] == 3.4
    assert fused["v1"].rrf_score == pytest.approx(1 / 61)


def test_rrf_weights_scale_a_path():
    fused = rrf_fuse({"vector": [PathHit("x", 1, "vector")], "bm25": [PathHit("y", 1, "bm25")]},
                     weights={"vector": 1.0, "bm25": 0.5})
    assert [c.book_id for c in fused] == ["x", "y"]


def test_query_variants_keep_the_original_first_without_duplicates():
    variants = expand_query("这本书暗示了辽阔的自然场景，适合想要抽离日常的读者", None, expand=False).texts
    assert variants[0] == "这本书暗示了辽阔的自然场景，适合想要抽离日常的读者"
    assert "暗示了辽阔的自然场景，适合想要抽离日常的读者" in variants
    assert "适合想要抽离日常的读者" in variants
    assert len(set(variants)) == len(variants)


def test_theme_seed_is_stable_and_distinct():
    assert theme_seed("b1", "t1") == theme_seed("b1", "t1") != theme_seed("b1", "t2")


def test_condition_similarity_counts_overlapping_fields():
    a = [FilterCondition("emotional_tone", ("平静淡然",), "SHOULD"),
         FilterCondition("genre", ("小说",), "SHOULD")]
    b = [FilterCondition("emotional_tone", ("平静淡然", "忧伤怅惘"), "SHOULD"),
         FilterCondition("genre", ("诗歌",), "SHOULD")]
    assert condition_similarity(a, a) == 1.0
    assert condition_similarity(a, b) == 0.5
    assert condition_similarity([], []) == 0.0
    assert HistorySettings().condition_similarity == 0.8


def test_shelf_skips_excluded_books_and_caps_each_author():
    from tasks.model.query import Candidate

    books = {f"b{i}": BookRecord(f"b{i}", f"T{i}", authors=("Same",) if i < 4 else (f"A{i}",)) for i in range(8)}
    candidates = [Candidate(f"b{i}", rrf_score=1 - i / 10) for i in range(8)]
    query = ThemeQuery((), (), "", 1.0, "rules")
    shelf = select_shelf(candidates, books, frozenset({"b5"}), query, size=4, max_per_author=2).entries
    assert [e.book.book_id for e in shelf] == ["b0", "b1", "b4", "b6"]
    assert [e.rank for e in shelf] == [1, 2, 3, 4]


def test_bm25_random_share_is_seeded_by_batch_and_theme_and_never_displaces_the_top_k():
    from types import SimpleNamespace

    from config.settings import BM25Settings
    from storage.bm25_index import BM25Index
    from tasks.model.constraints import EVERYTHING
    from tasks.recall.paths.bm25 import bm25_recall

    ids = [f"b{i:03d}" for i in range(200)]
    tokens = [["rain"] * (1 + i % 7) + [f"w{i}"] for i in range(200)]
    snapshot = SimpleNamespace(bm25=BM25Index.build(ids, tokens, BM25Settings()))
    books = {b: BookRecord(b, b) for b in ids}
    query = ThemeQuery((), ("rain",), "rain", 1.0, "rules", "en")
    settings = RecallSettings(bm25_top_k=20, bm25_randomness=0.15, max_keyword_share=1.0)
    first = bm25_recall(query, EVERYTHING, snapshot, books, settings, seed=theme_seed("b1", "t1"))
    again = bm25_recall(query, EVERYTHING, snapshot, books, settings, seed=theme_seed("b1", "t1"))
    other = bm25_recall(query, EVERYTHING, snapshot, books, settings, seed=theme_seed("b1", "t2"))
    assert first == again
    assert [h.source for h in first].count("bm25_random") == 3 and len(first) == 23
    assert {h.book_id for h in first if h.source == "bm25_random"} != {
        h.book_id for h in other if h.source == "bm25_random"}
    plain = bm25_recall(query, EVERYTHING, snapshot, books, settings, seed=1, randomness=0.0)
    assert first[:20] == other[:20] == plain  # the draw only adds


def test_score_fusion_keeps_margins_that_rrf_throws_away():
    from tasks.model.query import Candidate
    from tasks.ranking.fusion import normalizer, score_fuse

    # BM25 is sure about "a" (a clear margin); the dense path barely prefers "b".
    bm25 = {"a": 12.0, "b": 3.0, "c": 2.9, "d": 2.8}
    dense = {"a": 0.50, "b": 0.52, "c": 0.40, "d": 0.39}
    cands = [Candidate(b) for b in "abcd"]
    fused = score_fuse(cands, {"bm25": bm25, "vector": dense}, {"bm25": list(bm25.values()),
                       "vector": list(dense.values())}, {"bm25": 1.0, "vector": 0.5}, "dbsf")
    assert fused[0].book_id == "a"
    minmax = normalizer("minmax", [1.0, 3.0])
    assert (minmax(1.0), minmax(2.0), minmax(5.0)) == (0.0, 0.5, 1.0)
    dbsf = normalizer("dbsf", [0.0, 1.0])  # mean 0.5, sd 0.5: [-1, 2] maps to [0, 1]
    assert dbsf(0.5) == 0.5 and dbsf(-5) == 0.0


def test_keywords_no_book_holds_or_too_many_books_hold_do_not_search():
    from types import SimpleNamespace

    from config.settings import BM25Settings
    from storage.bm25_index import BM25Index
    from tasks.recall.keywords import bm25_query_tokens

    ids = [f"b{i}" for i in range(10)]
    tokens = [["reader", "snow" if i < 2 else "rain"] for i in range(10)]
    snapshot = SimpleNamespace(bm25=BM25Index.build(ids, tokens, BM25Settings()))
    query = ThemeQuery((), ("reader", "snow", "rain", "gibberish"), "", 1.0, "rules", "en")
    assert bm25_query_tokens(query, snapshot, max_share=0.25) == ["snow"]
    assert bm25_query_tokens(query, snapshot) == ["reader", "snow", "rain", "gibberish"]


def test_bm25_counts_less_where_its_best_book_holds_little_of_the_keywords():
    from config.settings import BM25Settings, FusionSettings
    from storage.bm25_index import BM25Index
    from tasks.ranking.fusion import fusion_weights

    # "crowd", "morning", "saturday", "finish": each in its own book, as a chatty brief's stray words are
    tokens = [["crowd", "x"], ["morning", "x"], ["saturday", "x"], ["finish", "x"], ["crowd", "morning", "saturday"],
              *[["x"]] * 15]
    index = BM25Index.build([f"b{i}" for i in range(len(tokens))], tokens, BM25Settings())
    assert index.best_cover(["crowd", "morning"]) == 1.0  # book 4 holds both
    scattered = index.best_cover(["crowd", "morning", "saturday", "finish"])
    assert 0.7 < scattered < 0.8  # book 4 holds three of four equally rare words, finish is a bit rarer
    assert index.best_cover(["finish", "unknown"]) == 1.0 and index.best_cover(["unknown"]) == 0.0
    settings = FusionSettings()
    assert fusion_weights(settings, 5, 0.9)["bm25"] == fusion_weights(settings, 5)["bm25"] == 1.0
    assert fusion_weights(settings, 5, 0.25)["bm25"] == 0.5  # half the full cover: half the weight
    assert fusion_weights(settings, 5, 0.25)["vector"] == 0.3


def test_a_short_brief_counts_the_dense_path_fully_unless_it_names_what_to_shelve_around():
    from config.settings import FusionSettings
    from tasks.ranking.fusion import fusion_weights

    settings = FusionSettings()
    assert fusion_weights(settings, 1)["vector"] == 1.0  # "宇宙": the words are too few for BM25 alone
    # "像《三体》那样的书": its one keyword is the title, and the named book's neighbours carry the brief
    assert fusion_weights(settings, 1, named=True)["vector"] == 0.3


def test_a_book_that_may_hold_an_excluded_value_moves_down_as_far_as_the_doubt_says():
    ranked = [Candidate(book_id) for book_id in ("a", "b", "c", "d", "e")]
    doubt = {"a": 0.5, "c": 0.8}  # below the filter confidence: kept, but after books without the doubt
    order = [c.book_id for c in demote_doubtful(ranked, lambda book_id: doubt.get(book_id, 0.0))]
    assert order == ["b", "a", "d", "e", "c"]  # a: 1 / 0.5 = 2nd place after b (2); c: 3 / 0.2 = 15, last
    assert [c.book_id for c in demote_doubtful(ranked, lambda _: 0.0)] == ["a", "b", "c", "d", "e"]


def test_a_book_likely_excluded_is_left_out_and_a_less_likely_one_moves_down():
    warm = ("emotional_tone", "温暖治愈")
    guesses = {"a": 0.4, "b": 0.0, "c": 0.35, "d": 0.0, "e": 0.95}
    books = {b: BookRecord(book_id=b, title=b, facets=(Facet(*warm, g, "reference"),) if g else ())
             for b, g in guesses.items()}
    books["f"] = BookRecord(book_id="f", title="f", facets=(Facet(*warm, 0.45, "zero-shot"),))  # uncalibrated
    books["g"] = BookRecord(book_id="g", title="g", facets=(Facet(*warm, 0.45, "crosswalk"),))  # a rule's precision
    books["h"] = BookRecord(book_id="h", title="h", facets=(Facet(*warm, 0.1, "reference"),))
    ranked = [Candidate(b) for b in books]
    no_warm = ThemeQuery((FilterCondition(warm[0], (warm[1],), "MUST_NOT"),), (), "", 1.0, "rules", "en")
    screened = screen_unsure_exclusions(ranked, no_warm, books)
    # a (0.4, LIKELY_EXCLUDED), e and g left out; h, 0.1, from 5th place: 5 / 0.9 = 5.6, after f (4); c, 0.35
    # (DOUBTFUL or more), after every book guessed less
    assert [c.book_id for c in screened.candidates] == ["b", "d", "f", "h", "c"]
    assert [c.book_id for c in screened.candidates if c.doubtful] == ["c"]  # after the other language's books too
    assert screened.left_out == 3
    wish = ThemeQuery((FilterCondition(warm[0], (warm[1],), "SHOULD"),), (), "", 1.0, "rules", "en")
    assert screen_unsure_exclusions(ranked, wish, books).candidates == ranked


def test_a_shelf_for_adults_unless_the_brief_speaks_of_children():
    children = get_vocabulary().kind("audience", "children")
    held = (Facet("audience", "children", 0.95, "crosswalk"),)
    books = {b: BookRecord(book_id=b, title=b, facets=held if b.startswith("kid") else ()) for b in
             ("kid1", "a", "kid2", "b", "c", "d", "e", "f", "g")}
    ranked = [Candidate(b) for b in books]
    novels = ThemeQuery((FilterCondition("form", ("fiction",), "MUST"),), (), "", 1.0, "rules", "en")
    # after every adult book, each in its own order: kid1 no longer ahead of the adult books from 4th place on
    assert [c.book_id for c in adults_first(ranked, novels, books, children, 0.85)] == [
        "a", "b", "c", "d", "e", "f", "g", "kid1", "kid2"]
    assert [c.doubtful for c in adults_first(ranked, novels, books, children, 0.85)] == [False] * 7 + [True] * 2
    for speaks in (FilterCondition("audience", ("children",), "MUST_NOT"), FilterCondition("genre", ("儿童文学",), "SHOULD"),
                   FilterCondition("reading_context", ("亲子共读",), "SHOULD")):
        query = ThemeQuery((speaks,), (), "", 1.0, "rules", "zh")
        assert [c.book_id for c in adults_first(ranked, query, books, children, 0.85)] == list(books)
    unsure = {b: BookRecord(book_id=b, title=b, facets=(Facet("audience", "children", 0.6, "neighbours"),))
              for b in books}
    assert [c.book_id for c in adults_first(ranked, novels, unsure, children, 0.85)] == list(books)
    # books like a named book: for adults unless that book is for children
    assert [c.book_id for c in adults_first(ranked, novels, books, children, 0.85, ("a",))][-2:] == ["kid1", "kid2"]
    assert [c.book_id for c in adults_first(ranked, novels, books, children, 0.85, ("kid2",))] == list(books)


def test_books_that_meet_a_preferred_number_come_first_each_group_in_its_order():
    from tasks.model.conditions import NumericCondition

    years = {"a": 1990, "b": 2019, "c": None, "d": 2021, "e": 2001}
    books = {b: BookRecord(book_id=b, title=b, pub_year=y) for b, y in years.items()}
    ranked = [Candidate(b) for b in years]
    recent = ThemeQuery((), (), "", 1.0, "rules", preferred_numbers=(NumericCondition("pub_year", ">=", 2016),))
    assert [c.book_id for c in preferred_first(ranked, recent, books)] == ["b", "d", "a", "c", "e"]
    assert preferred_first(ranked, ThemeQuery((), (), "", 1.0, "rules"), books) == ranked


def test_a_book_likely_to_hold_a_wished_value_moves_up_as_far_as_that_likelihood_says():
    def book(book_id, *facets):
        return BookRecord(book_id=book_id, title=book_id, facets=facets)
    calm = ("emotional_tone", "平静淡然")
    books = {b.book_id: b for b in (book("a"), book("b"), book("c", Facet(*calm, 1.0, "source")),
                                    book("d", Facet(*calm, 0.45, "zero-shot")), book("e", Facet(*calm, 0.5, "reference")))}
    ranked = [Candidate(b) for b in books]
    wish = ThemeQuery((FilterCondition(*calm[:1], (calm[1],), "SHOULD"),), (), "", 1.0, "rules", "zh")
    # c, sure: 3 / 2 = 1.5, ahead of b (2); e, a calibrated 0.5: 5 / 1.5 = 3.3, ahead of d (4), whose
    # uncalibrated guess counts nothing
    assert [c.book_id for c in promote_wished(ranked, wish, books)] == ["a", "c", "b", "e", "d"]
    assert [c.book_id for c in promote_wished(ranked, ThemeQuery((), (), "", 1.0, "rules", "zh"), books)] == list(books)

