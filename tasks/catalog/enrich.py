"""Enrichment step: books the source left untagged get vocabulary tags by embedding similarity."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from config.settings import EnrichmentSettings
from config.vocabulary import Vocabulary, VocabularyValue
from storage.models import BookRecord

TagSet = dict[str, tuple[str, ...]]
TagScores = dict[str, dict[str, float]]


@dataclass(frozen=True)
class EnrichedTags:
    book_id: str
    tags: TagSet
    scores: TagScores  # every value's similarity, per dimension, so a curator can see why


def needs_enrichment(book: BookRecord) -> bool:
    """Source tags always win; enriched tags stay until the book's content changes."""
    return book.tag_origin is None


def choose_tags(
    similarities: np.ndarray, values: list[VocabularyValue], settings: EnrichmentSettings
) -> tuple[TagSet, TagScores]:
    """Per dimension: the best value if similar enough, plus close runners-up."""
    tags: TagSet = {}
    scores: TagScores = {}
    by_dimension: dict[str, list[tuple[float, str]]] = {}
    for score, value in zip(similarities.tolist(), values):
        by_dimension.setdefault(value.dimension, []).append((score, value.name))
    for dim, scored in by_dimension.items():
        scored.sort(key=lambda item: (-item[0], item[1]))
        scores[dim] = {name: round(score, 4) for score, name in scored}
        best = scored[0][0]
        if best < settings.min_similarity:
            continue
        chosen = [name for score, name in scored if score >= best - settings.second_value_margin]
        tags[dim] = tuple(chosen[: settings.max_values_per_dimension])
    return tags, scores


def enrich(
    book_ids: list[str],
    book_vectors: np.ndarray,
    value_vectors: np.ndarray,
    vocabulary: Vocabulary,
    settings: EnrichmentSettings,
) -> list[EnrichedTags]:
    """Tags for each book from the cosine similarity of its text to every value's description."""
    values = list(vocabulary.all_values())
    similarities = book_vectors @ value_vectors.T
    return [
        EnrichedTags(book_id, *choose_tags(row, values, settings))
        for book_id, row in zip(book_ids, similarities)
    ]
