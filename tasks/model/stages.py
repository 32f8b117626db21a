"""What the stages hand each other: understanding -> Understood -> recall -> Hits -> ranking -> ThemeShelf."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.constraints import Expr
from tasks.model.intent import THEME_SHELF, Understanding
from tasks.model.query import PathHit, ThemeQuery
from tasks.model.themes import HistoryShelf, Theme


@dataclass(frozen=True)
class Understood:
    """A brief as understanding settled it: the query, its hard constraints, its intent and what it names."""

    theme: Theme
    query: ThemeQuery
    constraints: Expr
    understanding: Understanding = THEME_SHELF
    history: tuple[HistoryShelf, ...] = ()  # the earlier shelves the theme is read against
    unchecked: tuple[FilterCondition | NumericCondition, ...] = ()  # conditions the catalog cannot check: wishes
    referenced: str | None = None  # "batch/theme" of the earlier shelf the brief referred to
    notes: tuple[str, ...] = ()
    stage_seconds: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Hits:
    """What recall found: every path's hits by path name, and each dense path's query vector."""

    paths: Mapping[str, list[PathHit]]
    query_vectors: Mapping[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    stage_seconds: Mapping[str, float] = field(default_factory=dict)
