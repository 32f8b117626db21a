"""Co-occurrence graph of books: two books are linked by every author and tag they share.

"More like 边城" and an author spotlight both walk it: a book is related to the seed books by the
weight of what they share, rarer features weighing more (idf), authors more than tags.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from tasks.model.books import BookRecord

AUTHOR_BOOST = 2.0  # a shared author (or co-author) says more than a shared tag
# A tag held by more than this share of a large catalog links nothing (idf already weighs it down;
# this keeps a walk from visiting tens of thousands of books for "小说").
MAX_HOLDER_SHARE = 0.2
MIN_COMMON_HOLDERS = 200


def book_features(book: BookRecord) -> tuple[str, ...]:
    """What a book can share with another: its authors and its tag values."""
    authors = [f"author:{a}" for a in book.authors]
    tags = [f"tag:{dim}={value}" for dim, values in sorted(book.tags.items()) for value in values]
    return tuple(dict.fromkeys(authors + tags))


@dataclass(frozen=True)
class BookGraph:
    """Features per book and books per feature, with each feature's weight."""

    features: dict[str, tuple[str, ...]]  # book id -> features
    holders: dict[str, tuple[str, ...]]  # feature -> book ids
    weights: dict[str, float]  # feature -> idf (x AUTHOR_BOOST for authors); 0 for features too common

    @classmethod
    def build(cls, books: Iterable[BookRecord]) -> BookGraph:
        features = {b.book_id: book_features(b) for b in books}
        holders: dict[str, list[str]] = {}
        for book_id, own in features.items():
            for feature in own:
                holders.setdefault(feature, []).append(book_id)
        n = max(len(features), 1)
        weights = {}
        for feature, ids in holders.items():
            common = len(ids) > max(MIN_COMMON_HOLDERS, MAX_HOLDER_SHARE * n) and not feature.startswith("author:")
            idf = 0.0 if common else math.log(1 + n / len(ids))
            weights[feature] = idf * (AUTHOR_BOOST if feature.startswith("author:") else 1.0)
        return cls(features, {f: tuple(ids) for f, ids in holders.items()}, weights)

    def related(self, seeds: Sequence[str], allowed: Callable[[str], bool], limit: int) -> list[tuple[str, float]]:
        """Books sharing features with the seeds, scored in [0, 1] by the weight shared; seeds left out."""
        seed_set = set(seeds)
        seed_features = {f for s in seeds for f in self.features.get(s, ()) if self.weights[f] > 0}
        total = sum(self.weights[f] for f in seed_features)
        if total <= 0:
            return []
        shared: dict[str, float] = {}
        for feature in seed_features:
            for book_id in self.holders[feature]:
                if book_id not in seed_set:
                    shared[book_id] = shared.get(book_id, 0.0) + self.weights[feature]
        ranked = sorted(((b, w / total) for b, w in shared.items() if allowed(b)), key=lambda x: (-x[1], x[0]))
        return ranked[:limit]


NO_GRAPH = BookGraph({}, {}, {})  # links nothing: where no path walks the graph
