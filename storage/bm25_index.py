"""BM25 over pre-tokenized books, on bm25s (default) or rank-bm25 (the reference implementation).

The index saves itself to and loads itself from a folder of an index version.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from config.settings import BM25Settings

META_FILE = "meta.json"


class BM25Index:
    """Scores books for a token query; built from token lists, one per book."""

    def __init__(self, book_ids: Sequence[str], settings: BM25Settings, engine, token_lists=None):
        self.book_ids = list(book_ids)
        self._position = {book_id: i for i, book_id in enumerate(self.book_ids)}
        self.settings = settings
        self._engine = engine
        # rank-bm25 cannot be saved by itself: its tokens are kept so that save() can persist them.
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

    def save(self, folder: Path) -> None:
        """The index's files in `folder`: meta.json plus the engine's own files (or, for rank-bm25, the tokens)."""
        folder.mkdir(parents=True, exist_ok=True)
        if self.settings.backend == "rank_bm25":
            with open(folder / "tokens.jsonl", "w", encoding="utf-8") as fh:
                for tokens in self.token_lists:
                    fh.write(json.dumps(tokens, ensure_ascii=False) + "\n")
        else:
            self._engine.save(str(folder / "bm25s"), show_progress=False)
        meta = {"backend": self.settings.backend, "method": self.settings.method, "k1": self.settings.k1,
                "b": self.settings.b, "english_stemming": self.settings.english_stemming, "book_ids": self.book_ids}
        # meta.json last: its presence says the folder is complete
        (folder / META_FILE).write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        """The index a build saved, with the analysis settings it was built with (not today's config)."""
        meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
        settings = BM25Settings(backend=meta["backend"], method=meta["method"], k1=meta["k1"], b=meta["b"],
                                english_stemming=meta.get("english_stemming", False))  # older versions: unstemmed
        if settings.backend == "rank_bm25":
            with open(folder / "tokens.jsonl", encoding="utf-8") as fh:
                token_lists = [json.loads(line) for line in fh]
            return cls.build(meta["book_ids"], token_lists, settings)
        import bm25s

        engine = bm25s.BM25.load(str(folder / "bm25s"), show_progress=False)
        return cls(meta["book_ids"], settings, engine)

    @property
    def size(self) -> int:
        return len(self.book_ids)

    def document_frequencies(self, tokens: Sequence[str]) -> list[int]:
        """How many books hold each token (0 for a token the catalog does not have)."""
        if self.settings.backend == "rank_bm25":
            return [sum(1 for doc in self._engine.doc_freqs if token in doc) for token in tokens]
        indptr = self._engine.scores["indptr"]
        ids = [self._engine.vocab_dict.get(token) for token in tokens]
        return [int(indptr[i + 1] - indptr[i]) if i is not None and i + 1 < len(indptr) else 0 for i in ids]

    def _holders(self, token: str) -> np.ndarray:
        """The positions of the books that hold the token."""
        if self.settings.backend == "rank_bm25":
            return np.array([i for i, doc in enumerate(self._engine.doc_freqs) if token in doc], dtype=np.int64)
        i = self._engine.vocab_dict.get(token)
        indptr = self._engine.scores["indptr"]
        if i is None or i + 1 >= len(indptr):
            return np.zeros(0, dtype=np.int64)
        return np.asarray(self._engine.scores["indices"][indptr[i]:indptr[i + 1]], dtype=np.int64)

    def token_weights(self, query_tokens: Sequence[str]) -> dict[str, float]:
        """Each token's IDF over this catalog (tokens no book holds weigh nothing)."""
        count = len(self.book_ids)
        return {token: float(np.log(1 + (count - len(h) + 0.5) / (len(h) + 0.5))) if len(h) else 0.0
                for token, h in ((t, self._holders(t)) for t in dict.fromkeys(query_tokens))}

    def cover(self, query_tokens: Sequence[str]) -> np.ndarray:
        """For every book, in book_ids order, the share of the tokens' weight (IDF) that it holds."""
        weights = self.token_weights(query_tokens)
        total = sum(weights.values())
        held = np.zeros(len(self.book_ids), dtype=np.float64)
        if not total:
            return held
        for token, weight in weights.items():
            held[self._holders(token)] += weight
        return held / total

    def cover_of(self, query_tokens: Sequence[str], book_ids: Sequence[str]) -> dict[str, float]:
        """`cover` for these books (0 for books the index does not hold)."""
        cover = self.cover(query_tokens)
        return {b: float(cover[self._position[b]]) if b in self._position else 0.0 for b in book_ids}

    def best_cover(self, query_tokens: Sequence[str]) -> float:
        """The share of the tokens' weight (IDF) that the book holding most of it holds: 1.0 where one book has
        every keyword, 1/n where each of n equally rare keywords is in a different book."""
        cover = self.cover(query_tokens)
        return float(cover.max()) if len(cover) else 0.0

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """A score for every book, in book_ids order (read-only: recall and fusion share the last query's)."""
        return self._scores(tuple(query_tokens))

    @lru_cache(maxsize=4)  # noqa: B019 - one index per version, kept for the process's life anyway
    def _scores(self, query_tokens: tuple[str, ...]) -> np.ndarray:
        scores = self._compute_scores(query_tokens)
        scores.flags.writeable = False
        return scores

    def _compute_scores(self, query_tokens: tuple[str, ...]) -> np.ndarray:
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
