"""Embedders: one interface (base.Embedder), one module per backend, and a factory."""

from __future__ import annotations

from config.settings import EmbedderSettings
from tasks.language.embedders.base import Embedder, normalize


def create_embedder(settings: EmbedderSettings) -> Embedder:
    """The embedder named in config: use (default), e5 or openai."""
    if settings.backend == "use":
        from tasks.language.embedders.use import USEEmbedder

        return USEEmbedder(threads=settings.threads, batch_size=settings.batch_size)
    if settings.backend == "e5":
        from tasks.language.embedders.e5 import E5Embedder

        return E5Embedder(threads=settings.threads)
    if settings.backend == "openai":
        from tasks.language.embedders.openai import OpenAIEmbedder

        return OpenAIEmbedder(settings.openai, batch_size=settings.batch_size)
    raise ValueError(f"unknown embedder backend {settings.backend!r}")


# A worker process's models, by the settings they were made from: loaded once per process, not once per chunk.
_SHARED: dict[EmbedderSettings, Embedder] = {}


def shared_embedder(settings: EmbedderSettings) -> Embedder:
    """This process's one embedder of `settings` (a worker's chunks of a build all use it)."""
    found = _SHARED.get(settings)
    if found is None:
        found = _SHARED[settings] = create_embedder(settings)
    return found


__all__ = ["Embedder", "create_embedder", "normalize", "shared_embedder"]
