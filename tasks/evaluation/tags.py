"""Enrichment measured against the truth: a tagged catalog's tags hidden, re-derived, and compared.

Per facet value, at the confidence hard filters use: how many books were given it (derived), how many
of those truly have it (precision), and how many of the books that truly have it were found (recall).
A book's true form and audience follow from its true genre values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from config.vocabulary import Vocabulary
from tasks.model.books import BookRecord


@dataclass(frozen=True)
class TagScore:
    dimension: str
    value: str
    derived: int  # books given the value at the confidence
    correct: int  # of those, books that truly have it
    truly: int  # books that truly have it

    @property
    def precision(self) -> float | None:
        return self.correct / self.derived if self.derived else None

    @property
    def recall(self) -> float | None:
        return self.correct / self.truly if self.truly else None


def true_values(book: BookRecord, dimension: str, vocabulary: Vocabulary) -> frozenset[str]:
    """A tagged book's values of a dimension; form and audience from its genre values."""
    if dimension in ("form", "audience"):
        genres = set(book.tags.get("genre", ()))
        return frozenset(k.name for k in vocabulary.kinds_of(dimension) if genres & set(k.genres))
    return frozenset(book.tags.get(dimension, ()))


def score_tags(truth: Mapping[str, BookRecord], derived: Iterable[BookRecord], vocabulary: Vocabulary,
               confidence: float) -> list[TagScore]:
    """Precision and recall of every facet value on the books present in both catalogs."""
    counts: dict[tuple[str, str], list[int]] = {}
    for book in derived:
        if book.book_id not in truth:
            continue
        for dim in vocabulary.facet_names:
            real = true_values(truth[book.book_id], dim, vocabulary)
            found = book.values_at(dim, confidence)
            for value in real | found:
                row = counts.setdefault((dim, value), [0, 0, 0])
                row[0] += value in found
                row[1] += value in found and value in real
                row[2] += value in real
    order = {name: i for i, name in enumerate(vocabulary.facet_names)}
    return [TagScore(dim, value, *row) for (dim, value), row in sorted(counts.items(),
                                                                       key=lambda kv: (order[kv[0][0]], kv[0][1]))]


def pooled(scores: Iterable[TagScore], dimension: str) -> TagScore:
    """All of a dimension's values pooled into one score."""
    rows = [s for s in scores if s.dimension == dimension]
    return TagScore(dimension, "(all)", sum(s.derived for s in rows), sum(s.correct for s in rows),
                    sum(s.truly for s in rows))
