"""The embedder interface every backend implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np

ProgressCallback = Callable[[int], None]


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors, in batches."""

    #: Identifies the model in caches and index versions; vectors of different ids never mix.
    model_id: str
    dim: int

    QUERY_CACHE_SIZE = 4096

    def __init__(self, batch_size: int = 64):
        self.batch_size = batch_size
        # Briefs and their variants recur (reruns, similar themes, evaluation modes): keep their vectors.
        self._query_cache: dict[str, np.ndarray] = {}

    @abstractmethod
    def _embed_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        """Embed one batch; may return vectors that are not yet normalised."""

    def embed_documents(self, texts: Sequence[str], on_batch: ProgressCallback | None = None) -> np.ndarray:
        """Vectors for catalog texts, one row per text."""
        return self._embed(texts, is_query=False, on_batch=on_batch)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for queries (some models embed queries differently from documents)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Taken from the cache before it may be cleared below: a full cache must not lose this call's texts.
        found = {t: self._query_cache[t] for t in texts if t in self._query_cache}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            found.update(zip(missing, self._embed(missing, is_query=True, on_batch=None)))
            if len(self._query_cache) + len(missing) > self.QUERY_CACHE_SIZE:
                self._query_cache.clear()
            self._query_cache.update((t, found[t]) for t in missing)
        return np.vstack([found[t] for t in texts])

    def _embed(self, texts: Sequence[str], is_query: bool, on_batch: ProgressCallback | None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), self.batch_size):
            batch = [t if t.strip() else " " for t in texts[start:start + self.batch_size]]
            parts.append(np.asarray(self._embed_batch(batch, is_query), dtype=np.float32))
            if on_batch:
                on_batch(len(batch))
        return normalize(np.vstack(parts))


def normalize(vectors: np.ndarray, in_place: bool = False) -> np.ndarray:
    """Scale each row to unit length (zero rows stay zero); `in_place` spares a copy of a float32 matrix."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    if in_place:
        vectors /= norms
        return vectors
    return (vectors / norms).astype(np.float32, copy=False)
