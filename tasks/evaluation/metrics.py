"""Ranking metrics: nDCG@k and Recall@k against graded judgements."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


def ndcg_at(ranking: Sequence[str], judged: Mapping[str, int], k: int = 10) -> float:
    """Normalised discounted cumulative gain of the first k results (graded, log2 discount)."""
    dcg = sum(judged.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranking[:k]))
    ideal = sorted(judged.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranking: Sequence[str], judged: Mapping[str, int], k: int = 100) -> float:
    """Share of the relevant documents found in the first k results."""
    relevant = {d for d, g in judged.items() if g > 0}
    return len(relevant & set(ranking[:k])) / len(relevant) if relevant else 0.0


@dataclass(frozen=True)
class ModeScore:
    """The mean scores of one evaluation mode over a set's queries."""

    mode: str
    ndcg_at_10: float
    recall_at_100: float
    queries: int
    seconds: float
