"""The e5 path: the dense path over the index's second embedder, where the index was built with index.e5_path."""

from __future__ import annotations

from storage.index_store import BOOKS_E5_TABLE
from tasks.recall.paths.base import register
from tasks.recall.paths.vector import DensePath

register(DensePath("e5", 2, BOOKS_E5_TABLE, lambda ctx: ctx.e5_embedder))
