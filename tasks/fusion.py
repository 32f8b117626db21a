"""Fusion step: reciprocal rank fusion (seed 003 §2.5) and score fusion with per-query normalisation.

RRF only sees ranks, so a BM25 list with one clear winner counts no more than a flat one; score
fusion keeps those margins. Each path's scores are normalised per query against that path's own
result list: DBSF maps mean ± 3σ to [0, 1] (as Qdrant does), min-max maps min..max. Every book in the
union is scored on every path, so a book found by one path still gets the other path's opinion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tasks.models import Candidate, PathHit


def rrf_fuse(paths: Mapping[str, Sequence[PathHit]], k: int = 60,
             weights: Mapping[str, float] | None = None) -> list[Candidate]:
    """score(book) = sum over paths of weight / (k + rank); best first, ties by book_id."""
    weights = weights or {}
    candidates: dict[str, Candidate] = {}
    for path, hits in paths.items():
        weight = weights.get(path, 1.0)
        for rank, hit in enumerate(hits, start=1):
            cand = candidates.setdefault(hit.book_id, Candidate(hit.book_id))
            if path in cand.ranks:
                continue  # a path lists a book once; keep its best rank
            cand.ranks[path] = rank
            cand.scores[path] = hit.score
            if hit.source not in cand.sources:
                cand.sources.append(hit.source)
            if hit.variant and cand.query_variant is None:
                cand.query_variant = hit.variant
            cand.rrf_score += weight / (k + rank)
    for cand in candidates.values():
        cand.fused_score = cand.rrf_score
    return sorted(candidates.values(), key=lambda c: (-c.fused_score, c.book_id))


def normalizer(name: str, reference: Sequence[float]):
    """A function mapping a path's raw score into [0, 1], fitted on that path's result list."""
    ref = np.asarray(reference, dtype=np.float64)
    if ref.size == 0:
        return lambda s: 0.0
    if name == "dbsf":
        low, high = ref.mean() - 3 * ref.std(), ref.mean() + 3 * ref.std()
    elif name == "minmax":
        low, high = ref.min(), ref.max()
    else:
        raise ValueError(f"unknown normaliser {name!r}")
    span = high - low
    if span <= 0:
        return lambda s: 1.0 if s >= high else 0.0
    return lambda s: float(min(1.0, max(0.0, (s - low) / span)))


def score_fuse(candidates: list[Candidate], all_scores: Mapping[str, Mapping[str, float]],
               references: Mapping[str, Sequence[float]], weights: Mapping[str, float],
               method: str) -> list[Candidate]:
    """fused = sum over paths of weight x normalised score; `all_scores` covers every candidate."""
    norms = {path: normalizer(method, references.get(path, ())) for path in all_scores}
    for cand in candidates:
        cand.fused_score = sum(weights.get(path, 1.0) * norms[path](scores[cand.book_id])
                               for path, scores in all_scores.items() if cand.book_id in scores)
    return sorted(candidates, key=lambda c: (-c.fused_score, -c.rrf_score, c.book_id))
