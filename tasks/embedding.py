"""Embedding step: vectors for many texts, computing only those not already cached."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from storage.catalog_db import CatalogDB
from tasks.embedders.base import Embedder
from tasks.progress import Progress


@dataclass(frozen=True)
class EmbeddedTexts:
    vectors: np.ndarray  # one row per input text, in input order
    text_hashes: list[str]
    computed: int  # how many texts were sent to the embedder (cache misses)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def embed_with_cache(
    texts: Sequence[str], embedder: Embedder, db: CatalogDB, label: str, use_cache: bool = True
) -> EmbeddedTexts:
    """Vectors for `texts`; cached ones are reused, new ones embedded in batches and cached."""
    hashes = [text_hash(t) for t in texts]
    cached = db.cached_vectors(embedder.model_id, hashes) if use_cache else {}
    missing: dict[str, str] = {}
    for text, digest in zip(texts, hashes):
        if digest not in cached and digest not in missing:
            missing[digest] = text
    if missing:
        progress = Progress(f"embedding {label}", len(missing))
        fresh = embedder.embed_documents(list(missing.values()), on_batch=progress.advance)
        db.store_vectors(embedder.model_id, list(missing), fresh)
        cached.update(zip(missing, fresh))
    vectors = np.vstack([cached[h] for h in hashes]) if hashes else np.zeros((0, embedder.dim), np.float32)
    return EmbeddedTexts(vectors=vectors, text_hashes=hashes, computed=len(missing))
