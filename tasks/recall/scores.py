"""Every candidate scored on every path that ran, so that fusion weighs each path's opinion of each book.

A book only one path found still gets the other paths' scores: BM25 scores it directly, the dense
path from its stored vectors (blended with its best summary sentence, which becomes its evidence).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from storage.index_store import BOOKS_E5_TABLE, IndexSnapshot
from tasks.model.query import PathHit
from tasks.recall.dense_scores import dense_scores

# Paths whose own scores are used as they are: books such a path did not reach get nothing from it.
INTENT_SCORED_PATHS = ("similar", "related", "recent")


@dataclass(frozen=True)
class PathScoring:
    """Per path: a score for every candidate, and the path's own result scores to normalise against."""

    scores: dict[str, dict[str, float]]
    references: dict[str, list[float]]
    evidence: dict[str, str]  # book id -> the summary sentence closest to the brief


def candidate_ids(paths: Mapping[str, Sequence[PathHit]]) -> list[str]:
    """Every book any path found, once, in the order first found."""
    return list(dict.fromkeys(h.book_id for hits in paths.values() for h in hits))


def score_every_path(paths: Mapping[str, Sequence[PathHit]], query_tokens: Sequence[str],
                     query_vectors: Mapping[str, np.ndarray], snapshot: IndexSnapshot,
                     sentence_weight: float) -> PathScoring:
    """Scores of every found book on BM25, the dense paths and the intent paths that ran."""
    ids = candidate_ids(paths)
    scores: dict[str, dict[str, float]] = {}
    references: dict[str, list[float]] = {}
    evidence: dict[str, str] = {}
    if "bm25" in paths:
        scores["bm25"] = snapshot.bm25.scores_for(query_tokens, ids)
        references["bm25"] = [h.score for h in paths["bm25"]]
    if "vector" in query_vectors:
        blended = dense_scores(query_vectors["vector"], ids, snapshot, sentence_weight)
        scores["vector"] = {b: d.score for b, d in blended.items()}
        references["vector"] = [blended[h.book_id].score for h in paths["vector"] if h.book_id in blended]
        evidence = {b: d.evidence for b, d in blended.items() if d.evidence is not None}
    if "entity" in paths:
        own = {h.book_id for h in paths["entity"]}
        scores["entity"] = {b: 1.0 if b in own else 0.0 for b in ids}
        references["entity"] = [0.0, 1.0]
    for path in INTENT_SCORED_PATHS:
        if path in paths:
            scores[path] = {h.book_id: h.score for h in paths[path]}
            references[path] = list(scores[path].values())
    if "e5" in query_vectors:
        vectors = snapshot.book_vectors(ids, BOOKS_E5_TABLE)
        scores["e5"] = {b: float(v @ query_vectors["e5"]) for b, v in vectors.items()}
        references["e5"] = [scores["e5"][h.book_id] for h in paths["e5"] if h.book_id in vectors]
    return PathScoring(scores, references, evidence)
