"""Embedding step: vectors for many texts, computing only those not already cached."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from storage.catalog_db import CatalogDB
from tasks.catalog.embedders.base import Embedder
from tasks.progress import Progress


@dataclass(frozen=True)
class EmbeddedTexts:
    vectors: np.ndarray  # one row per input text, in input order
    text_hashes: list[str]
    computed: int  # how many texts were sent to the embedder (cache misses)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Texts read from the cache or embedded per round: memory holds one chunk besides the result
# (reading 300k cached vectors at once peaked near 6 GB on the 100k benchmark).
CHUNK_TEXTS = 16_384


def embed_with_cache(
    texts: Sequence[str], embedder: Embedder, db: CatalogDB, label: str, use_cache: bool = True
) -> EmbeddedTexts:
    """Vectors for `texts`; cached ones are reused, new ones embedded and cached, a chunk at a time."""
    hashes = [text_hash(t) for t in texts]
    rows_of: dict[str, list[int]] = {}
    for row, digest in enumerate(hashes):
        rows_of.setdefault(digest, []).append(row)
    unique = list(rows_of)
    vectors = np.empty((len(texts), embedder.dim), dtype=np.float32)
    missing: list[str] = []
    for chunk in _chunks(unique):
        cached = db.cached_vectors(embedder.model_id, chunk) if use_cache else {}
        for digest in chunk:
            if digest in cached:
                vectors[rows_of[digest]] = cached[digest]
            else:
                missing.append(digest)
    if missing:
        progress = Progress(f"embedding {label}", len(missing))
        for chunk in _chunks(missing):
            # stored chunk by chunk: a build that stops half way keeps what it has embedded
            fresh = embedder.embed_documents([texts[rows_of[d][0]] for d in chunk], on_batch=progress.advance)
            db.store_vectors(embedder.model_id, chunk, fresh)
            for digest, vector in zip(chunk, fresh):
                vectors[rows_of[digest]] = vector
    return EmbeddedTexts(vectors=vectors, text_hashes=hashes, computed=len(missing))


def _chunks(items: list[str]) -> list[list[str]]:
    return [items[i:i + CHUNK_TEXTS] for i in range(0, len(items), CHUNK_TEXTS)]
