"""The subject path: the books carrying the catalog subjects a brief's topics matched (tasks/understanding/subjects.py),
nearest the brief first, and per book the typed evidence of which matched subject it carries and how strongly.

A book's score on the path is its strongest evidence: the topic's match strength (1 for the same words, 0.9 for a
mapped term, a vector match its similarity), halved for a subject the brief only prefers. The relevance score
(tasks/ranking/relevance.py) reads the evidence; fusion reads the score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from storage.index_store import BOOKS_TABLE
from tasks.model.books import BookRecord
from tasks.model.constraints import All, AnyOf, Expr, condition_expr, evaluate
from tasks.model.query import PathHit
from tasks.model.stages import Understood
from tasks.model.subjects import PREFERRED_ROLE, REQUIRED_ROLE, SubjectEvidence, SubjectMatch, TopicSubjects
from tasks.recall.context import RecallContext
from tasks.recall.paths.base import PathRecall, RecallPath, register
from tasks.recall.vector_search import VectorSearch

PATH = "subject"
PREFERRED_WEIGHT = 0.5  # a preferred subject's evidence counts half a required one's


def _wanted(found: Sequence[TopicSubjects]) -> list[tuple[TopicSubjects, SubjectMatch]]:
    """The matches a shelf looks for: those of required and preferred topics (not doubtful or excluded ones)."""
    return [(t, m) for t in found if t.role in (REQUIRED_ROLE, PREFERRED_ROLE) for m in t.matches]


def _expr(match: SubjectMatch) -> Expr:
    return condition_expr(match.subject.field, match.subject.values)


def weight(evidence: SubjectEvidence) -> float:
    """What one piece of evidence counts for on the path."""
    return evidence.strength * (1.0 if evidence.role == REQUIRED_ROLE else PREFERRED_WEIGHT)


def evidence_for(book: BookRecord, found: Sequence[TopicSubjects]) -> tuple[SubjectEvidence, ...]:
    """The matched subjects this book carries, strongest first."""
    held = [SubjectEvidence(book.book_id, m.topic, m.subject.label, m.subject.kind, m.how, m.strength, t.role,
                            m.subject.books)
            for t, m in _wanted(found) if evaluate(_expr(m), book)]
    return tuple(sorted(held, key=lambda e: (-weight(e), e.subject)))


def subject_score(evidence: Sequence[SubjectEvidence]) -> float:
    return max(map(weight, evidence), default=0.0)


def subject_recall(found: Sequence[TopicSubjects], constraints: Expr, query_vector: np.ndarray,
                   search: VectorSearch, books: Mapping[str, BookRecord], k: int) -> list[PathHit]:
    """Up to k books carrying a matched subject, within the constraints: per topic the nearest to the brief, then
    the strongest evidence first."""
    wanted = [t for t in found if t.role in (REQUIRED_ROLE, PREFERRED_ROLE) and t.matches]
    if not wanted:
        return []
    per_topic = [All((constraints, AnyOf(tuple(_expr(m) for m in t.matches)))) for t in wanted]
    nearest = search.nearest(np.asarray(query_vector)[None, :], k, constraints, per_topic)
    ids = list(dict.fromkeys(b for ranked in nearest.by_filter for b, _ in ranked[:k]))
    evidence = {b: evidence_for(books[b], wanted) for b in ids}
    hits = [PathHit(b, subject_score(evidence[b]), PATH) for b in ids if evidence[b]]
    hits.sort(key=lambda h: -h.score)  # stable: the nearest first among equals
    return hits[:k]


class SubjectPath(RecallPath):
    """Runs for a brief some of whose topics matched the catalog's subjects, required or preferred."""

    name, order = PATH, 4

    def runs(self, understood: Understood, ctx: RecallContext) -> bool:
        return any(t.role in (REQUIRED_ROLE, PREFERRED_ROLE) and t.matches for t in understood.query.subjects)

    def find(self, understood: Understood, ctx: RecallContext) -> PathRecall:
        query = understood.query
        vector = ctx.embedder.embed_queries([query.synthetic_query])[0]  # cached: the vector path embeds it too
        hits = subject_recall(query.subjects, understood.constraints, vector, ctx.searches[BOOKS_TABLE], ctx.books,
                              ctx.settings.recall.vector_top_k)
        return PathRecall({PATH: hits}, f"{PATH}: {len(hits)}")


register(SubjectPath())
