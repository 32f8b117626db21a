"""History de-duplication step: skip books already shelved for a similar theme."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from config.settings import HistorySettings
from tasks.language.embedders.base import Embedder
from tasks.model.conditions import FilterCondition
from tasks.model.themes import HistoryShelf


@dataclass(frozen=True)
class Exclusions:
    book_ids: frozenset[str]
    because_of: tuple[str, ...]  # "batch/theme (brief 0.91)" for every similar earlier shelf
    shelves: tuple[HistoryShelf, ...] = ()  # those shelves


MIN_SHARED_FIELDS = 2  # one shared field ("fiction" on both) makes two shelves alike in kind, not the same theme


def condition_similarity(a: Sequence[FilterCondition], b: Sequence[FilterCondition]) -> float:
    """Share of the fields named by either side on which their value sets overlap; 0 when fewer than two
    fields are named, since shelves that only share a form or a genre are different themes."""
    def grouped(conditions: Sequence[FilterCondition]) -> dict[str, set[str]]:
        fields: dict[str, set[str]] = {}
        for cond in conditions:
            fields.setdefault(cond.field, set()).update(cond.values)
        return fields

    ga, gb = grouped(a), grouped(b)
    fields = set(ga) | set(gb)
    if len(fields) < MIN_SHARED_FIELDS:
        return 0.0
    return sum(1 for f in fields if ga.get(f, set()) & gb.get(f, set())) / len(fields)


def find_exclusions(brief: str, conditions: Sequence[FilterCondition], history: Sequence[HistoryShelf],
                    embedder: Embedder, settings: HistorySettings) -> Exclusions:
    """Books of recent shelves whose brief or conditions are similar enough to this theme's."""
    history = [h for h in history if h.recent]
    if not history:
        return Exclusions(frozenset(), ())
    vectors = embedder.embed_queries([brief, *(h.brief for h in history)])
    brief_sims = vectors[1:] @ vectors[0]
    excluded: set[str] = set()
    reasons, similar = [], []
    for shelf, brief_sim in zip(history, np.asarray(brief_sims).tolist()):
        cond_sim = condition_similarity(conditions, shelf.conditions)
        if brief_sim >= settings.brief_similarity or cond_sim >= settings.condition_similarity:
            excluded.update(shelf.book_ids)
            reasons.append(f"{shelf.batch_id}/{shelf.theme_id} (brief {brief_sim:.2f}, conditions {cond_sim:.2f})")
            similar.append(shelf)
    return Exclusions(frozenset(excluded), tuple(reasons), tuple(similar))
