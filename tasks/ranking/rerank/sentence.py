"""Sentence-level rerank: a book scores as well as its best summary sentence matches the query.

The sentences come from the index's `sentences` table; the best one becomes the book's evidence. Only
the top N fused books are reordered, never more books than came in, and past the time budget (or on
any failure) the fused order stands.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from tasks.model.query import Candidate
from tasks.recall.dense_scores import best_sentences

SentenceSource = Callable[[Sequence[str]], tuple[list[str], list[str], np.ndarray]]  # ids -> owners, texts, vectors


@dataclass(frozen=True)
class SentenceRerankOutcome:
    candidates: list[Candidate]
    note: str  # what was done, or why the fused order was kept


def sentence_rerank(candidates: list[Candidate], query_vector: np.ndarray, sentences_of: SentenceSource,
                    top_n: int, budget_seconds: float, weight: float = 1.0) -> SentenceRerankOutcome:
    """Reorder the top_n candidates by best-sentence similarity; books without sentences score 0.

    With weight w < 1 the order is w x sentence score + (1 - w) x the fused score min-max scaled
    over the head, so the other paths' judgement is not thrown away.
    """
    head, tail = candidates[:top_n], candidates[top_n:]
    if not head:
        return SentenceRerankOutcome(candidates, "sentence rerank: nothing to rerank")
    start = time.perf_counter()
    try:
        best = best_sentences(query_vector, *sentences_of([c.book_id for c in head]))
    except Exception as err:  # noqa: BLE001 - an optional stage: any failure keeps the fused order
        return SentenceRerankOutcome(candidates, f"sentence rerank failed, fused order kept: {type(err).__name__}")
    elapsed = time.perf_counter() - start
    if elapsed > budget_seconds:
        return SentenceRerankOutcome(candidates, f"sentence rerank over budget ({elapsed:.1f}s), fused order kept")
    head = [replace(cand, rerank_score=best[cand.book_id].similarity, evidence=best[cand.book_id].text)
            if cand.book_id in best else replace(cand, rerank_score=0.0) for cand in head]
    fused = [c.fused_score for c in head]
    low, span = min(fused), (max(fused) - min(fused)) or 1.0
    order = {c.book_id: weight * (c.rerank_score or 0.0) + (1 - weight) * (c.fused_score - low) / span for c in head}
    # ties keep the fused order: sorted() is stable
    reordered = sorted(head, key=lambda c: -order[c.book_id])
    return SentenceRerankOutcome(reordered + tail, f"sentence rerank: top {len(head)} in {elapsed:.2f}s")
