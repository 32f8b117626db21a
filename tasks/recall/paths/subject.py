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
from tasks.language.embedders.base import Embedder
from tasks.model.books import BookRecord
from tasks.model.constraints import All, AnyOf, Expr, condition_expr, evaluate
from tasks.model.query import PathHit
from tasks.model.stages import Understood
from tasks.model.subjects import (PREFERRED_ROLE, REQUIRED_ROLE, Subject, SubjectEvidence, SubjectMatch,
                                  TopicSubjects)
from tasks.recall.context import RecallContext
from tasks.recall.paths.base import PathRecall, RecallPath, register
from tasks.recall.vector_search import VectorSearch
from tasks.understanding.subjects import PREFERRED_FIT, SubjectVocabulary, says_topic

PATH = "subject"
PREFERRED_WEIGHT = 0.5  # a preferred subject's evidence counts half a required one's
# Cosine (the shipped USE embedder) from which a heading near a matched topic says it in other words or the other
# language, and brings its books as candidates: 抗战 for 战争 (0.68) and war (0.65), "Natural history" for 自然 (0.71)
# and nature (0.64), "Satire" and "Comedy plays" for humorous (0.61). From 0.60, 75% of the term tables' pairs were
# right (benchmarks/subject_threshold.py): enough for a candidate the relevance score then reads, not for a condition
# (VECTOR_THRESHOLD, 0.79). Below it "ghosts" / "Horror tales" (0.58), "dystopias" / "Science fiction" (0.46).
NEAR_RECALL = 0.6
NEAR_PER_TOPIC = 5  # near headings kept per topic, nearest first
NEAR_WEIGHT = 0.25  # a near heading's book scores this share of its similarity: under any matched subject's


def _wanted(found: Sequence[TopicSubjects]) -> list[tuple[TopicSubjects, SubjectMatch]]:
    """The matches a shelf looks for: those of required and preferred topics (not doubtful or excluded ones)."""
    return [(t, m) for t in found if t.role in (REQUIRED_ROLE, PREFERRED_ROLE) for m in t.matches]


def _carries(book: BookRecord, topic: TopicSubjects, match: SubjectMatch) -> bool:
    """Whether the book carries the match, and a modifier's head too ("women in science": a book on women counts
    where it is on science)."""
    return evaluate(_expr(match), book) and (not topic.within or any(evaluate(_expr(h), book) for h in topic.within))


def _expr(match: SubjectMatch) -> Expr:
    return condition_expr(match.subject.field, match.subject.values)


def weight(evidence: SubjectEvidence) -> float:
    """What one piece of evidence counts for on the path."""
    return evidence.strength * (1.0 if evidence.role == REQUIRED_ROLE else PREFERRED_WEIGHT)


def evidence_for(book: BookRecord, found: Sequence[TopicSubjects]) -> tuple[SubjectEvidence, ...]:
    """The matched subjects this book carries, strongest first."""
    held = [SubjectEvidence(book.book_id, m.topic, m.subject.label, m.subject.kind, m.how, m.strength, t.role,
                            m.subject.books)
            for t, m in _wanted(found) if _carries(book, t, m)]
    return tuple(sorted(held, key=lambda e: (-weight(e), e.subject)))


def subject_score(evidence: Sequence[SubjectEvidence]) -> float:
    return max(map(weight, evidence), default=0.0)


def subject_recall(found: Sequence[TopicSubjects], constraints: Expr, query_vector: np.ndarray,
                   search: VectorSearch, books: Mapping[str, BookRecord], k: int) -> list[PathHit]:
    """Up to k books carrying a matched subject, within the constraints: per topic the nearest to the brief, then
    the strongest evidence first."""
    # a modifier brings no book of its own: its books are found by its head's subjects, its evidence narrows them
    wanted = [t for t in found if t.role in (REQUIRED_ROLE, PREFERRED_ROLE) and t.matches and not t.within]
    if not wanted:
        return []
    per_topic = [All((constraints, AnyOf(tuple(_expr(m) for m in t.matches)))) for t in wanted]
    nearest = search.nearest(np.asarray(query_vector)[None, :], k, constraints, per_topic)
    ids = list(dict.fromkeys(b for ranked in nearest.by_filter for b, _ in ranked[:k]))
    evidence = {b: evidence_for(books[b], wanted) for b in ids}
    hits = [PathHit(b, subject_score(evidence[b]), PATH) for b in ids if evidence[b]]
    hits.sort(key=lambda h: -h.score)  # stable: the nearest first among equals
    return hits[:k]


def near_subjects(found: Sequence[TopicSubjects], vocabulary: SubjectVocabulary, embedder: Embedder,
                  brief_vector: np.ndarray) -> dict[Subject, float]:
    """The headings (not source tags) near a matched topic's words from NEAR_RECALL, that no topic matched, each with
    its best similarity: at most NEAR_PER_TOPIC a topic, not one writing the topic's own words (自然科学 for 自然: how
    much that says is the lexical match's to weigh, `partial_holds`), and only those near the whole brief as a
    preferred topic's subjects must be (PREFERRED_FIT: "Life" stays out of a sea brief)."""
    wanted = [t for t in found if t.role in (REQUIRED_ROLE, PREFERRED_ROLE) and t.matches and not t.within]
    if not wanted or not vocabulary.subjects:
        return {}
    matched = {m.subject for t in wanted for m in t.matches}
    out: dict[Subject, float] = {}
    rows = vocabulary.nearest(embedder.embed_queries([t.topic.text for t in wanted]), NEAR_RECALL,
                              3 * NEAR_PER_TOPIC + len(matched))  # room for the tags and matched ones among them
    for topic, row in zip(wanted, rows):
        near = [(vocabulary.subjects[i], similarity) for i, similarity in row
                if vocabulary.subjects[i].kind != "tag" and vocabulary.subjects[i] not in matched
                and not says_topic(topic.topic.text, vocabulary.subjects[i])
                and float(vocabulary.vectors[i] @ brief_vector) >= PREFERRED_FIT]
        for subject, similarity in near[:NEAR_PER_TOPIC]:
            out[subject] = max(similarity, out.get(subject, 0.0))
    return out


def near_recall(found: Sequence[TopicSubjects], vocabulary: SubjectVocabulary, embedder: Embedder,
                constraints: Expr, query_vector: np.ndarray, search: VectorSearch, books: Mapping[str, BookRecord],
                k: int, recalled: set[str]) -> list[PathHit]:
    """Up to k books under a heading near a matched topic (`near_subjects`), within the constraints, nearest the brief
    first, none the matched subjects brought already (`recalled`); each scored NEAR_WEIGHT of its best heading's
    similarity. They carry no subject evidence: the relevance score reads what else their record says."""
    near = near_subjects(found, vocabulary, embedder, np.asarray(query_vector))
    if not near:
        return []
    exprs = {subject: condition_expr(subject.field, subject.values) for subject in near}
    nearest = search.nearest(np.asarray(query_vector)[None, :], k, All((constraints, AnyOf(tuple(exprs.values())))))
    hits = []
    for book_id, _ in nearest.by_query[0] if nearest.by_query else ():
        if book_id in recalled:
            continue
        best = max((s for s, expr in exprs.items() if evaluate(expr, books[book_id])), key=near.get, default=None)
        if best is not None:
            hits.append(PathHit(book_id, NEAR_WEIGHT * near[best], PATH))
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
        search, k = ctx.searches[BOOKS_TABLE], ctx.settings.recall.vector_top_k
        hits = subject_recall(query.subjects, understood.constraints, vector, search, ctx.books, k)
        near = near_recall(query.subjects, ctx.subjects, ctx.embedder, understood.constraints, vector, search,
                           ctx.books, k, {h.book_id for h in hits})
        return PathRecall({PATH: hits + near}, f"{PATH}: {len(hits)}" + (f", near headings {len(near)}" if near else ""))


register(SubjectPath())
