"""One recall path: whether it runs for a brief, and what it finds. Each path is one file of this folder that
registers itself; recall runs every registered path that says it runs, in their `order`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from tasks.model.query import PathHit
from tasks.model.stages import Understood
from tasks.recall.context import RecallContext


@dataclass(frozen=True)
class PathRecall:
    """What one recall path found: one or more named hit lists, and for a dense path its query vector."""

    paths: dict[str, list[PathHit]]
    note: str = ""
    query_vector: np.ndarray | None = None


class RecallPath(ABC):
    name: str
    order: int  # where its hits come among the paths': fusion meets books in this order

    @abstractmethod
    def runs(self, understood: Understood, ctx: RecallContext) -> bool:
        """Whether this path runs for the brief in this run."""

    @abstractmethod
    def find(self, understood: Understood, ctx: RecallContext) -> PathRecall:
        """The books this path finds under the brief's constraints."""


REGISTRY: dict[str, RecallPath] = {}


def register(path: RecallPath) -> RecallPath:
    REGISTRY[path.name] = path
    return path
