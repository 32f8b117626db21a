"""Ten correctness properties of query expansion and sentence rerank, as hypothesis property tests.

Property 9 (batch embedding equals one-by-one) needs the real model: tests/language/test_embedding_properties.py.
Property 8's whole-shelf half runs on the demo index: tests/flows/test_gating_on_demo.py.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.model.query import Candidate, PathHit
from tasks.ranking.fusion import rrf_fuse
from tasks.ranking.rerank import rerank
from tasks.ranking.rerank.base import Reranker
from tasks.ranking.rerank.sentence import sentence_rerank
from tasks.recall.dense_scores import best_sentences
from tasks.understanding.expansion import expand_query, load_expansion_tables, merge_best, translation

TABLES = load_expansion_tables()
WORDS = list(TABLES.to_english) + [e for terms in TABLES.to_english.values() for e in terms] + [
    "的", "书", "适合", "novels", "for", "a", "and", "，", " "]
# briefs made of mapped terms, synonyms and filler, so expansion has something to do
briefs = st.one_of(st.text(min_size=1, max_size=40),
                   st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join))
book_ids = st.sampled_from([f"b{i}" for i in range(12)])
hits = st.lists(st.builds(PathHit, book_ids, st.floats(-1, 1), st.just("vector"),
                          st.sampled_from(["original", "translation", "synonyms"])), max_size=30)


def candidates_from(ids: list[str]) -> list[Candidate]:
    return [Candidate(b, fused_score=1.0 - i / 100) for i, b in enumerate(ids)]


def sentence_table(owners: list[str], seed: int) -> tuple[list[str], list[str], np.ndarray]:
    vectors = np.random.default_rng(seed).normal(size=(len(owners), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return owners, [f"sentence {i} of {o}" for i, o in enumerate(owners)], vectors


def random_unit_vector(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=8).astype(np.float32)
    return vector / np.linalg.norm(vector)


unit_vector = st.integers(0, 2**16).map(random_unit_vector)
candidate_ids = st.lists(book_ids, unique=True, max_size=12)
sentence_owners = st.lists(book_ids, max_size=40)


# 1. Query expansion keeps the original query, first.
@given(briefs.filter(lambda b: b.strip()))
def test_expansion_keeps_the_original_first_and_repeats_nothing(brief):
    expansion = expand_query(brief, TABLES)
    assert expansion.variants[0].text == brief.strip() and expansion.variants[0].kind == "original"
    keys = [t.lower() for t in expansion.texts]
    assert len(keys) == len(set(keys)) and all(t.strip() for t in expansion.texts)


# 2. De-duplication of multi-query results is idempotent (and leaves one hit per book).
@given(hits)
def test_merge_best_is_idempotent(found):
    once = merge_best(found)
    assert merge_best(once) == once
    assert len({h.book_id for h in once}) == len(once)


# 3. Rerank never adds a book, and never loses one.
@given(candidate_ids, sentence_owners, unit_vector, st.integers(0, 15))
def test_sentence_rerank_returns_the_same_books(ids, owners, query, top_n):
    table = sentence_table(owners, len(owners))
    out = sentence_rerank(candidates_from(ids), query, lambda _: table, top_n, 60.0).candidates
    assert sorted(c.book_id for c in out) == sorted(ids)


class ScoringReranker(Reranker):
    name = "scores"

    def __init__(self, scores: list[float]):
        self.scores = scores

    def score(self, query, documents):
        return self.scores[: len(documents)] + [0.0] * max(0, len(documents) - len(self.scores))


@given(candidate_ids, st.lists(st.floats(-5, 5), max_size=12), st.integers(0, 15))
def test_http_rerank_returns_the_same_books(ids, scores, top_n):
    out = rerank(candidates_from(ids), "q", str, ScoringReranker(scores), top_n).candidates
    assert sorted(c.book_id for c in out) == sorted(ids)


# 4. Sentence similarity is bounded to [0, 1], whatever the vectors.
@given(sentence_owners, st.integers(0, 2**16), st.floats(0.01, 100))
def test_sentence_similarities_stay_in_the_unit_interval(owners, seed, scale):
    owners_, texts, vectors = sentence_table(owners, seed)
    query = np.random.default_rng(seed + 1).normal(size=8).astype(np.float32) * scale
    assert all(0.0 <= b.similarity <= 1.0 for b in best_sentences(query, owners_, texts, vectors).values())


# 5. Translation round trip: a Chinese term to English and back lands on a term with that English meaning.
@given(st.sampled_from(sorted(TABLES.to_english)))
def test_translation_round_trip_keeps_the_meaning(term):
    english = translation(term, TABLES)
    back = translation(english, TABLES).split()
    assert back and english in TABLES.to_english[back[0]]


# 6. Expansion only adds coverage: every book the original query found is still found.
@given(hits, hits)
def test_multi_query_recall_finds_at_least_what_the_original_found(original, others):
    merged = {h.book_id: h.score for h in merge_best(original + others)}
    for hit in original:
        assert hit.book_id in merged and merged[hit.book_id] >= hit.score


# 7. Sentence rerank improves the head's sentence-level relevance.
@given(candidate_ids.filter(len), sentence_owners, unit_vector, st.integers(1, 12))
def test_sentence_rerank_raises_the_heads_mean_sentence_similarity(ids, owners, query, k):
    table = sentence_table(owners, len(owners))
    best = best_sentences(query, *table)
    def mean_head(order):
        return float(np.mean([best[b].similarity if b in best else 0.0 for b in order[:k]]))
    out = sentence_rerank(candidates_from(ids), query, lambda _: table, len(ids), 60.0).candidates
    assert mean_head([c.book_id for c in out]) >= mean_head(ids) - 1e-9


# 8. Fallback: a failing expansion or rerank still gives a result, the plain one.
@given(briefs.filter(lambda b: b.strip()))
def test_a_failing_expansion_searches_the_original(brief):
    broken = dataclasses.replace(TABLES, synonym_of={})  # any synonym match raises KeyError
    expansion = expand_query(brief, broken)
    assert expansion.variants[0].text == brief.strip()
    assert "synonyms" not in {v.kind for v in expansion.variants}


@given(candidate_ids, st.sampled_from(["raise", "budget"]))
def test_a_failing_or_slow_sentence_rerank_keeps_the_fused_order(ids, failure):
    def broken(_):
        raise OSError("sentences table unreadable")
    source, budget = (broken, 60.0) if failure == "raise" else (lambda _: sentence_table(ids, 0), -1.0)
    outcome = sentence_rerank(candidates_from(ids), np.ones(8, np.float32), source, 50, budget)
    assert [c.book_id for c in outcome.candidates] == ids
    assert not ids or "fused order kept" in outcome.note


# 10. Every book any path found reaches fusion,
# with that path's rank in its provenance.
@given(st.dictionaries(st.sampled_from(["vector", "bm25", "entity", "related"]), hits, max_size=4))
def test_fusion_keeps_every_found_book_with_its_provenance(paths):
    paths = {name: merge_best(found) for name, found in paths.items()}
    fused = {c.book_id: c for c in rrf_fuse(paths)}
    for name, found in paths.items():
        for rank, hit in enumerate(found, start=1):
            assert fused[hit.book_id].ranks[name] == rank


@pytest.mark.parametrize("top_n", [0, 3])
@settings(max_examples=20)
@given(ids=candidate_ids)
def test_sentence_rerank_leaves_the_tail_alone(ids, top_n):
    table = sentence_table(ids, 1)
    out = sentence_rerank(candidates_from(ids), np.ones(8, np.float32) / np.sqrt(8), lambda _: table, top_n, 60.0)
    assert [c.book_id for c in out.candidates[top_n:]] == ids[top_n:]


@given(candidate_ids.filter(len), sentence_owners, unit_vector, st.floats(0, 1))
def test_a_blended_sentence_rerank_moves_between_the_fused_and_the_sentence_order(ids, owners, query, weight):
    table = sentence_table(owners, len(owners))
    fused_only = sentence_rerank(candidates_from(ids), query, lambda _: table, len(ids), 60.0, 0.0).candidates
    assert [c.book_id for c in fused_only] == ids  # weight 0: the fused order, sentences only shown
    blended = sentence_rerank(candidates_from(ids), query, lambda _: table, len(ids), 60.0, weight).candidates
    assert all(c.rerank_score is not None and 0.0 <= c.rerank_score <= 1.0 for c in blended)
