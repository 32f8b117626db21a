"""The reranker interface: (query, documents) -> one score per document."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence


class Reranker(ABC):
    name: str

    @abstractmethod
    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """A relevance score per document, higher is better; raises on failure."""
