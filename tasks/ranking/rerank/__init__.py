"""Optional rerank stage: one interface, an HTTP backend, and the step that applies it safely."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from config.settings import RerankSettings
from tasks.model.books import BookRecord
from tasks.model.query import Candidate
from tasks.ranking.rerank.base import Reranker


def create_reranker(settings: RerankSettings) -> Reranker | None:
    """The reranker named in config, or None when reranking is off."""
    if settings.backend == "http":
        from tasks.ranking.rerank.http import HTTPReranker

        return HTTPReranker(settings.http, settings.budget_seconds)
    return None


def document_text(book: BookRecord) -> str:
    """What a reranker reads of a book."""
    return f"{book.title_line}\n{book.summary or ''}"[:1000]


@dataclass(frozen=True)
class RerankOutcome:
    candidates: list[Candidate]
    note: str  # "off", "http", or why the fused order was kept


def rerank(candidates: list[Candidate], query: str, document_of: Callable[[str], str],
           reranker: Reranker | None, top_n: int) -> RerankOutcome:
    """Reorder the top_n candidates by the reranker's scores; on any failure keep the fused order."""
    if reranker is None or not candidates:
        return RerankOutcome(candidates, "off")
    head, tail = candidates[:top_n], candidates[top_n:]
    try:
        scores = reranker.score(query, [document_of(c.book_id) for c in head])
    except Exception as err:  # noqa: BLE001 - any failure of an optional stage keeps the fused order
        reason = f"{type(err).__name__}: {err}"[:200]
        return RerankOutcome(candidates, f"{reranker.name} failed, fused order kept: {reason}")
    scored = [replace(cand, rerank_score=score) for cand, score in zip(head, scores)]
    reordered = sorted(scored, key=lambda c: (-(c.rerank_score or 0.0), -c.fused_score, c.book_id))
    return RerankOutcome(reordered + tail, reranker.name)


__all__: Sequence[str] = ["Reranker", "RerankOutcome", "create_reranker", "document_text", "rerank"]
