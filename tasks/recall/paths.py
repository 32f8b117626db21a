"""Recall step: the vector path and the BM25 path, each a ranked list of hits."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from config.settings import RecallSettings
from storage.index_store import IndexSnapshot
from storage.models import BookRecord
from tasks.catalog.embedders.base import Embedder
from tasks.catalog.text_analysis import bm25_tokens
from tasks.models import PathHit, ThemeQuery
from tasks.progress import timed
from tasks.recall.filters import All, Expr, condition_expr, evaluate
from tasks.recall.vector_search import VectorSearch
from tasks.understanding.expansion import Expansion, contributions, expand_query, merge_best


# A wish recalls the books guessed this likely to hold it: of the tag-blind demo's 17 books guessed 悬疑紧张 this
# surely, 12 held it. A filter needs enrichment.filter_confidence; a wish only brings books to be ranked.
WISH_CONFIDENCE = 0.4
WISHED_SHARE = 0.25  # of the vector path's k: the books nearest the brief of each wished value, beyond its top k


@dataclass(frozen=True)
class VectorRecall:
    hits: list[PathHit]
    expansion: Expansion
    query_vector: np.ndarray  # the original query's vector (the first variant)

    def describe(self, path: str) -> str:
        """E.g. 'vector: 87 (best by variant: original 52, translation 20, synonyms 15)'."""
        counts = ", ".join(f"{kind} {n}" for kind, n in contributions(self.hits).items())
        note = f"; {self.expansion.note}" if self.expansion.note else ""
        return f"{path}: {len(self.hits)} (best by variant: {counts or 'none'}){note}"


def theme_seed(batch_id: str, theme_id: str) -> int:
    """A stable seed per (batch, theme): a rerun draws the same random share."""
    return int.from_bytes(hashlib.sha256(f"{batch_id}\x1f{theme_id}".encode()).digest()[:8], "big")


def vector_recall(query: ThemeQuery, constraints: Expr, search: VectorSearch, embedder: Embedder,
                  settings: RecallSettings, facet_confidence: float, path: str = "vector",
                  expand: bool = True) -> VectorRecall:
    """Hard constraints as prefilter, one query per variant: the best k, a book keeping its best, no variant but
    the original more than `max_variant_share` of them. Then the original once per SHOULD value (a facet held
    with WISH_CONFIDENCE, or `facet_confidence` if lower; a class range's codes together): its nearest
    WISHED_SHARE of k books not yet found are added."""
    expansion = expand_query(query.synthetic_query, None, expand=expand)
    kinds = [v.kind for v in expansion.variants]
    vectors = embedder.embed_queries(expansion.texts)  # one batched call for every variant
    k = settings.vector_top_k
    # a class range's codes are one wish, said as many prefixes: one query for them all, not one per code
    should = [All((constraints, condition_expr(cond.field, values, min(facet_confidence, WISH_CONFIDENCE))))
              for cond in query.conditions("SHOULD")
              for values in ([cond.values] if cond.field in ("classification", "topic")
                             else [(v,) for v in cond.values])]
    found = search.nearest(vectors, k, constraints, should)
    hits = [PathHit(book_id, similarity, path, kind) for kind, ranked in zip(kinds, found.by_query)
            for book_id, similarity in ranked]
    best = merge_best(hits, k, settings.max_variant_share)
    # Added beyond the top k: a filtered query uses the brief's own vector, so a wished book it finds is either
    # in the unfiltered top k already or below all of it; merged into the k, the filtered lists added nothing.
    seen = {h.book_id for h in best}
    for ranked in found.by_filter:
        wished = [PathHit(b, s, path, "original") for b, s in ranked if b not in seen][:int(k * WISHED_SHARE)]
        seen.update(h.book_id for h in wished)
        best += wished
    best.sort(key=lambda h: (-h.score, h.book_id))
    return VectorRecall(best, expansion, vectors[0])


def bm25_query_tokens(query: ThemeQuery, snapshot: IndexSnapshot, max_share: float = 1.0) -> list[str]:
    """The keywords analysed as the index was built (whatever the config says now), without the words no book
    holds or that more than `max_share` of the books hold: those say nothing about which book is meant."""
    tokens = bm25_tokens(" ".join(query.search_keywords), query.language, snapshot.bm25.settings.english_stemming)
    if max_share >= 1.0 or not tokens:
        return tokens
    limit = max_share * snapshot.bm25.size
    frequencies = snapshot.bm25.document_frequencies(tokens)
    return [t for t, df in zip(tokens, frequencies) if 0 < df <= limit]


def most_together(tokens: Sequence[str], snapshot: IndexSnapshot) -> int:
    """How many of the keywords the book that holds most of them holds."""
    if not tokens:
        return 0
    held = sum((snapshot.bm25.scores([token]) > 0).astype(np.int32) for token in dict.fromkeys(tokens))
    return int(np.max(held))


def bm25_recall(query: ThemeQuery, constraints: Expr, snapshot: IndexSnapshot, books: Mapping[str, BookRecord],
                settings: RecallSettings, seed: int, randomness: float | None = None) -> list[PathHit]:
    """The top k BM25 books for the keywords, plus a seeded share of k drawn from below them: the draw adds
    books a shelf would not otherwise see and never displaces one the keywords rank in the top k."""
    share = settings.bm25_randomness if randomness is None else randomness
    tokens = bm25_query_tokens(query, snapshot, settings.max_keyword_share)
    k = settings.bm25_top_k
    ranked = [(b, s) for b, s in snapshot.bm25.search(tokens, k * 4)
              if b in books and evaluate(constraints, books[b])]
    hits = [PathHit(b, s, "bm25") for b, s in ranked[:k]]
    if share > 0 and len(ranked) > k:
        # The pool: below the top k, but at least half the score of the (3k)-th book.
        floor = ranked[min(k * 3, len(ranked) - 1)][1] * 0.5
        pool = [(b, s) for b, s in ranked[k:] if s >= floor]
        drawn = random.Random(seed).sample(pool, min(round(k * share), len(pool)))
        hits += [PathHit(b, s, "bm25_random") for b, s in sorted(drawn, key=lambda x: (-x[1], x[0]))]
    return hits


@dataclass(frozen=True)
class PathRecall:
    """What one recall job found: one or more named paths, and for a dense path its query vector."""

    paths: dict[str, list[PathHit]]
    note: str = ""
    dense: VectorRecall | None = None


def run_jobs(jobs: Mapping[str, Callable[[], PathRecall]], timings: dict[str, float],
             parallel: bool = True) -> dict[str, PathRecall]:
    """Run the recall jobs on threads (LanceDB, bm25s and NumPy release the GIL); results in the jobs' order.

    Each job's own time is kept as "recall.<job>" (they overlap: only "recall" adds up with other stages).
    """
    def run(name: str) -> PathRecall:
        with timed(timings, f"recall.{name}"):
            return jobs[name]()

    if len(jobs) <= 1 or not parallel:
        return {name: run(name) for name in jobs}
    with ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix="recall") as pool:
        futures = {name: pool.submit(run, name) for name in jobs}
        return {name: future.result() for name, future in futures.items()}
