"""Work handed out in pieces: the index build's chunks of texts and books, a batch's themes.

A step that can hand its work out takes a `Fanout`; None keeps today's in-process path unchanged. The flows
provide the one that runs each piece as a Prefect task run on a Dask cluster (flows/compute.py); this module
knows nothing of Prefect or Dask, so that a local build imports neither.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol, TypeVar

from config.settings import EmbedderSettings

Item = TypeVar("Item")
Result = TypeVar("Result")


class Fanout(Protocol):
    """Runs `fn` over `items` elsewhere, each item one retried unit of work; results in the items' order."""

    chunk: int  # how many texts (or books) one piece holds: compute.chunk_texts
    embedder: EmbedderSettings  # what a worker makes its model from: the build's, with the worker's threads

    def map(self, name: str, fn: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[Result]: ...


def chunked(items: Sequence[Item], size: int) -> list[Sequence[Item]]:
    """`items` in consecutive slices of at most `size`."""
    return [items[start:start + size] for start in range(0, len(items), size)]
