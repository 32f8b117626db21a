"""Dense scores for fusion: a book's similarity blended with its best summary sentence's.

The best sentence is also the book's evidence: the line of its summary closest to the brief.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from storage.index_store import IndexSnapshot


@dataclass(frozen=True)
class BestSentence:
    similarity: float  # cosine, clipped to [0, 1]
    text: str


def best_sentences(query_vector: np.ndarray, owners: Sequence[str], texts: Sequence[str],
                   vectors: np.ndarray) -> dict[str, BestSentence]:
    """Each owner's summary sentence most similar to the query (first wins a tie)."""
    best: dict[str, BestSentence] = {}
    if not len(owners):
        return best
    similarities = np.clip(vectors @ query_vector, 0.0, 1.0)
    for owner, text, similarity in zip(owners, texts, similarities.tolist()):
        if owner not in best or similarity > best[owner].similarity:
            best[owner] = BestSentence(float(similarity), text)
    return best


@dataclass(frozen=True)
class DenseScore:
    document: float  # cosine of the book's index vector and the query
    sentence: float  # cosine of its best summary sentence, clipped to [0, 1] (= document when it has none)
    score: float  # the blend fusion uses
    evidence: str | None


def dense_scores(query_vector: np.ndarray, book_ids: Sequence[str], snapshot: IndexSnapshot,
                 sentence_weight: float) -> dict[str, DenseScore]:
    """Blend (1 - w) x document similarity + w x best-sentence similarity, for every book given."""
    ids = list(dict.fromkeys(book_ids))
    documents = snapshot.book_vectors(ids)
    best = best_sentences(query_vector, *snapshot.sentences_of(ids)) if sentence_weight > 0 else {}
    scores = {}
    for book_id in ids:
        if book_id not in documents:
            continue
        doc = float(documents[book_id] @ query_vector)
        sentence = best[book_id].similarity if book_id in best else doc
        blended = (1 - sentence_weight) * doc + sentence_weight * sentence
        scores[book_id] = DenseScore(doc, sentence, blended, best[book_id].text if book_id in best else None)
    return scores
