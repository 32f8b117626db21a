"""The BM25 path: the top k books for the brief's keywords, and a seeded share drawn from below them."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping

from config.settings import RecallSettings
from storage.index_store import IndexSnapshot
from tasks.model.books import BookRecord
from tasks.model.constraints import Expr, evaluate
from tasks.model.query import PathHit, ThemeQuery
from tasks.model.stages import Understood
from tasks.recall.context import RecallContext
from tasks.recall.keywords import bm25_query_tokens
from tasks.recall.paths.base import PathRecall, RecallPath, register


def theme_seed(batch_id: str, theme_id: str) -> int:
    """A stable seed per (batch, theme): a rerun draws the same random share."""
    return int.from_bytes(hashlib.sha256(f"{batch_id}\x1f{theme_id}".encode()).digest()[:8], "big")


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


class Bm25Path(RecallPath):
    name, order = "bm25", 3

    def runs(self, understood: Understood, ctx: RecallContext) -> bool:
        return self.name in ctx.switches.paths

    def find(self, understood: Understood, ctx: RecallContext) -> PathRecall:
        theme = understood.theme
        hits = bm25_recall(understood.query, understood.constraints, ctx.snapshot, ctx.books, ctx.settings.recall,
                           theme_seed(theme.batch_id, theme.theme_id), ctx.switches.bm25_randomness)
        return PathRecall({self.name: hits}, f"bm25: {len(hits)}")


register(Bm25Path())
