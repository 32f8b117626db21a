"""Fusion step: reciprocal rank fusion (seed 003 §2.5) keeping every path's rank and score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tasks.models import Candidate, PathHit


def path_of(hit: PathHit) -> str:
    """The path a hit ranks on: BM25's random share ranks on the BM25 path."""
    return "bm25" if hit.source.startswith("bm25") else hit.source


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
            cand.rrf_score += weight / (k + rank)
    return sorted(candidates.values(), key=lambda c: (-c.rrf_score, c.book_id))
