"""The dense path: the books nearest the brief's meaning (and each of its variants) under the hard constraints."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from config.settings import RecallSettings
from storage.index_store import BOOKS_TABLE
from tasks.language.embedders.base import Embedder
from tasks.model.constraints import All, Expr, HasAny
from tasks.model.query import PathHit, ThemeQuery
from tasks.model.stages import Understood
from tasks.recall.context import RecallContext
from tasks.recall.paths.base import PathRecall, RecallPath, register
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
    should = [All((constraints, HasAny(cond.field, values, min(facet_confidence, WISH_CONFIDENCE))))
              for cond in query.conditions("SHOULD")
              for values in ([cond.values] if cond.field == "classification" else [(v,) for v in cond.values])]
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


class DensePath(RecallPath):
    """A dense path over one vector table with one embedder: runs when the run's paths name it and the index has it."""

    def __init__(self, name: str, order: int, table: str, embedder: Callable[[RecallContext], Embedder | None]):
        self.name, self.order, self.table, self.embedder = name, order, table, embedder

    def runs(self, understood: Understood, ctx: RecallContext) -> bool:
        return self.name in ctx.switches.paths and self.embedder(ctx) is not None

    def find(self, understood: Understood, ctx: RecallContext) -> PathRecall:
        found = vector_recall(understood.query, understood.constraints, ctx.searches[self.table], self.embedder(ctx),
                              ctx.settings.recall, ctx.snapshot.filter_confidence, self.name, ctx.expand)
        return PathRecall({self.name: found.hits}, found.describe(self.name), found.query_vector)


register(DensePath("vector", 1, BOOKS_TABLE, lambda ctx: ctx.embedder))
