"""Embedding step: vectors for many texts, computing only those not already cached."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from config.settings import EmbedderSettings
from storage.catalog_db import CatalogDB
from tasks.compute import Fanout, chunked
from tasks.language.embedders import shared_embedder
from tasks.language.embedders.base import Embedder
from tasks.progress import Progress


@dataclass(frozen=True)
class EmbeddedTexts:
    vectors: np.ndarray  # one row per input text, in input order
    text_hashes: list[str]
    computed: int  # how many texts were sent to the embedder (cache misses)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Texts embedded (and stored in the cache) per round: a build that stops half way keeps what it has embedded.
CHUNK_TEXTS = 16_384


class EmbeddingChunks:
    """The vectors of `texts` as (rows, vectors) chunks: every row exactly once, in no set order.

    Cached vectors come first, from one scan of the cache; then the missing texts are embedded a chunk
    at a time and stored as they are. Memory holds one chunk, never the vectors of every text.
    """

    def __init__(self, texts: Sequence[str], embedder: Embedder, db: CatalogDB, label: str, use_cache: bool = True,
                 fanout: Fanout | None = None):
        self.texts = texts
        self.text_hashes = [text_hash(t) for t in texts]
        self.computed = 0  # texts sent to the embedder so far (cache misses)
        self._embedder, self._db, self._label, self._use_cache = embedder, db, label, use_cache
        self._fanout = fanout

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        found = np.zeros(len(self.texts), dtype=bool)
        if self._use_cache:
            for rows, vectors in self._db.stream_cached_vectors(self._embedder.model_id, self.text_hashes):
                found[rows] = True
                yield rows, vectors
        rows_of: dict[str, list[int]] = {}
        for row in np.flatnonzero(~found).tolist():
            rows_of.setdefault(self.text_hashes[row], []).append(row)
        if not rows_of:
            return
        missing = list(rows_of)
        progress = Progress(f"embedding {self._label}", len(missing))
        for chunk, fresh in self._embedded(missing, rows_of, progress):
            self._db.store_vectors(self._embedder.model_id, chunk, fresh)
            self.computed += len(chunk)
            counts = [len(rows_of[d]) for d in chunk]  # a text that occurs twice gets its vector twice
            yield np.fromiter((r for d in chunk for r in rows_of[d]), dtype=np.int64), np.repeat(fresh, counts, axis=0)

    def _embedded(self, missing: list[str], rows_of: dict[str, list[int]],
                  progress: Progress) -> Iterator[tuple[list[str], np.ndarray]]:
        """(text hashes, their vectors) a chunk at a time: embedded here, or on the fanout's workers, whose
        chunks are smaller (one task run each, spread over the workers) and stored here as they come back in order."""
        if self._fanout is None:
            for chunk in chunked(missing, CHUNK_TEXTS):
                yield chunk, self._embedder.embed_documents([self.texts[rows_of[d][0]] for d in chunk],
                                                            on_batch=progress.advance)
            return
        chunks = chunked(missing, self._fanout.chunk)
        # made as they are sent: the texts of every chunk at once would be a second copy of them all
        jobs = (EmbedChunk(self._fanout.embedder, tuple(self.texts[rows_of[d][0]] for d in chunk)) for chunk in chunks)
        for chunk, fresh in zip(chunks, self._fanout.map("embed-chunk", embed_chunk, jobs)):
            progress.advance(len(chunk))
            yield chunk, fresh


@dataclass(frozen=True)
class EmbedChunk:
    """Texts one worker embeds, with the settings its model is made from."""

    embedder: EmbedderSettings
    texts: tuple[str, ...]


def embed_chunk(chunk: EmbedChunk) -> np.ndarray:
    """On a worker: the chunk's vectors, by the model the worker process loaded once."""
    return shared_embedder(chunk.embedder).embed_documents(chunk.texts)


def embed_with_cache(
    texts: Sequence[str], embedder: Embedder, db: CatalogDB, label: str, use_cache: bool = True,
    fanout: Fanout | None = None,
) -> EmbeddedTexts:
    """Vectors for `texts`, in input order; cached ones are reused, new ones embedded (on `fanout`'s workers where
    given) and cached."""
    chunks = EmbeddingChunks(texts, embedder, db, label, use_cache, fanout)
    vectors = np.empty((len(texts), embedder.dim), dtype=np.float32)
    for rows, chunk_vectors in chunks:
        vectors[rows] = chunk_vectors
    return EmbeddedTexts(vectors=vectors, text_hashes=chunks.text_hashes, computed=chunks.computed)
