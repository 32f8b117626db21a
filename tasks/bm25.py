"""BM25 over pre-tokenized books, on bm25s (default) or rank-bm25 (the reference implementation)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from config.settings import BM25Settings


class BM25Index:
    """Scores books for a token query; built from token lists, one per book."""

    def __init__(self, book_ids: Sequence[str], settings: BM25Settings, engine, token_lists=None):
        self.book_ids = list(book_ids)
        self._position = {book_id: i for i, book_id in enumerate(self.book_ids)}
        self.settings = settings
        self._engine = engine
        # rank-bm25 cannot be saved by itself: its tokens are kept so storage can persist them.
        self.token_lists = token_lists

    @classmethod
    def build(cls, book_ids: Sequence[str], token_lists: Sequence[list[str]], settings: BM25Settings) -> BM25Index:
        if settings.backend == "rank_bm25":
            from rank_bm25 import BM25Okapi

            # rank-bm25 divides by zero on an all-empty corpus; a placeholder token avoids it.
            safe = [tokens or ["\u0000"] for tokens in token_lists]
            return cls(book_ids, settings, BM25Okapi(safe, k1=settings.k1, b=settings.b), list(token_lists))
        import bm25s

        engine = bm25s.BM25(k1=settings.k1, b=settings.b, method=settings.method,
                            idf_method="robertson" if settings.method == "atire" else None)
        engine.index(list(token_lists), show_progress=False)
        return cls(book_ids, settings, engine)

    @property
    def engine(self):
        return self._engine

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """A score for every book, in book_ids order."""
        if self.settings.backend == "rank_bm25":
            return np.asarray(self._engine.get_scores(list(query_tokens)), dtype=np.float32)
        known = [t for t in query_tokens if t in self._engine.vocab_dict]
        if not known:
            return np.zeros(len(self.book_ids), dtype=np.float32)
        return np.asarray(self._engine.get_scores(known), dtype=np.float32)

    def scores_for(self, query_tokens: Sequence[str], book_ids: Sequence[str]) -> dict[str, float]:
        """The scores of these books (0 for books the index does not hold)."""
        scores = self.scores(query_tokens)
        return {b: float(scores[self._position[b]]) if b in self._position else 0.0 for b in book_ids}

    def search(self, query_tokens: Sequence[str], k: int) -> list[tuple[str, float]]:
        """The top k books with a positive score, best first; ties broken by book_id."""
        scores = self.scores(query_tokens)
        positive = np.flatnonzero(scores > 0)
        if positive.size == 0:
            return []
        if positive.size > k:
            # Keep every book scoring at least the k-th best, so ties at the cut stay deterministic.
            kth = np.partition(scores[positive], positive.size - k)[positive.size - k]
            positive = positive[scores[positive] >= kth]
        order = sorted(positive.tolist(), key=lambda i: (-float(scores[i]), self.book_ids[i]))[:k]
        return [(self.book_ids[i], float(scores[i])) for i in order]
