"""Index-build steps: from catalog books to vectors, sentence rows and BM25 tokens.

Each function is one step of flows/build_indexes.py; they take and return typed data and touch
storage only through the CatalogDB they are given.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace

import numpy as np

from config.settings import Settings
from config.vocabulary import Vocabulary
from storage.catalog_db import CatalogDB
from storage.models import BookRecord
from storage.sql import tag_column
from tasks.catalog.embedders.base import Embedder
from tasks.catalog.embedding import embed_with_cache
from tasks.catalog.enrich import enrich, needs_enrichment
from tasks.catalog.index_text import (
    INDEX_TEXT_VERSION,
    book_sentences,
    compose_index_text,
)
from tasks.catalog.text_analysis import ANALYZER_VERSION


@dataclass(frozen=True)
class EnrichmentResult:
    books: list[BookRecord]  # the catalog with enriched tags applied
    enriched: int
    embedded: int
    text_hashes: list[str] = field(default_factory=list)  # of the texts embedded to tag (values, titles)


@dataclass(frozen=True)
class BookVectors:
    vectors: np.ndarray  # one row per book, in catalog order
    embedded: int
    text_hashes: list[str]  # of the texts the vectors were computed from (the cache keys)


@dataclass(frozen=True)
class SentenceRows:
    book_ids: list[str]
    positions: list[int]
    texts: list[str]
    vectors: np.ndarray
    embedded: int
    text_hashes: list[str]


def snapshot_hash(books: list[BookRecord], embedder: Embedder, settings: Settings) -> str:
    """Identifies what an index is built from: book contents, tags, embedder and analysis settings."""
    digest = hashlib.sha256()
    digest.update(f"{embedder.model_id}|{ANALYZER_VERSION}|{INDEX_TEXT_VERSION}|{settings.bm25.model_dump_json()}|"
                  f"{settings.index.model_dump_json()}".encode())
    for book in books:
        tags = json.dumps({d: list(v) for d, v in sorted(book.tags.items())}, ensure_ascii=False)
        digest.update(f"\n{book.book_id}|{book.content_hash}|{tags}".encode())
    return digest.hexdigest()


def enrich_untagged(books: list[BookRecord], sentences: SentenceRows, vocabulary: Vocabulary,
                    embedder: Embedder, db: CatalogDB, settings: Settings,
                    use_cache: bool = True) -> EnrichmentResult:
    """Tag books that have no tags (source tags always win) and store the tags with their scores.

    A book's text vector is the mean of its summary-sentence vectors, already computed for the
    sentences table; only books without a summary have their title line embedded here.
    """
    pending = [b for b in books if needs_enrichment(b)]
    if not pending:
        return EnrichmentResult(books, 0, 0)
    values = vocabulary.all_values()
    value_vectors = embed_with_cache([v.profile_text for v in values], embedder, db, "vocabulary values", use_cache)
    summary_vectors = _mean_sentence_vectors(sentences)
    no_summary = [b for b in pending if b.book_id not in summary_vectors]
    titles = embed_with_cache([b.title_line for b in no_summary], embedder, db, "titles to tag", use_cache)
    book_vectors = {**summary_vectors, **dict(zip((b.book_id for b in no_summary), titles.vectors))}
    results = enrich([b.book_id for b in pending], np.vstack([book_vectors[b.book_id] for b in pending]),
                     value_vectors.vectors, vocabulary, settings.enrichment)
    db.save_enriched_tags({r.book_id: (r.tags, r.scores) for r in results})
    by_id = {r.book_id: r for r in results}
    updated = [
        replace(b, tags=by_id[b.book_id].tags, tag_scores=by_id[b.book_id].scores, tag_origin="enriched")
        if b.book_id in by_id else b
        for b in books
    ]
    return EnrichmentResult(updated, len(results), titles.computed + value_vectors.computed,
                            value_vectors.text_hashes + titles.text_hashes)


def _mean_sentence_vectors(sentences: SentenceRows) -> dict[str, np.ndarray]:
    """Each book's mean summary-sentence vector, normalised; books without sentences are absent."""
    sums: dict[str, np.ndarray] = {}
    for book_id, vector in zip(sentences.book_ids, sentences.vectors):
        sums[book_id] = sums[book_id] + vector if book_id in sums else vector.copy()
    return {book_id: vector / max(float(np.linalg.norm(vector)), 1e-12) for book_id, vector in sums.items()}


def embed_books(books: list[BookRecord], vocabulary: Vocabulary, embedder: Embedder, db: CatalogDB,
                settings: Settings, use_cache: bool = True) -> BookVectors:
    """One vector per book, from its weighted index text."""
    texts = [compose_index_text(b, vocabulary, settings.index.text_sections) for b in books]
    result = embed_with_cache(texts, embedder, db, "book index texts", use_cache)
    return BookVectors(result.vectors, result.computed, result.text_hashes)


def embed_books_e5(books: list[BookRecord], vocabulary: Vocabulary, db: CatalogDB, settings: Settings,
                   use_cache: bool = True) -> BookVectors:
    """The same index texts embedded by multilingual-e5, for the optional third path."""
    from tasks.catalog.embedders.e5 import E5Embedder

    texts = [compose_index_text(b, vocabulary, settings.index.text_sections) for b in books]
    result = embed_with_cache(texts, E5Embedder(threads=settings.embedder.threads), db, "book texts (e5)",
                              use_cache)
    return BookVectors(result.vectors, result.computed, result.text_hashes)


def embed_sentences(books: list[BookRecord], embedder: Embedder, db: CatalogDB,
                    use_cache: bool = True) -> SentenceRows:
    """One row and vector per summary sentence."""
    book_ids, positions, texts = [], [], []
    for book in books:
        for position, sentence in enumerate(book_sentences(book)):
            book_ids.append(book.book_id)
            positions.append(position)
            texts.append(sentence)
    result = embed_with_cache(texts, embedder, db, "summary sentences", use_cache)
    return SentenceRows(book_ids, positions, texts, result.vectors, result.computed, result.text_hashes)


def lance_book_columns(books: list[BookRecord], vocabulary: Vocabulary) -> dict[str, list]:
    """The scalar and tag columns the recall filters need."""
    columns: dict[str, list] = {
        "book_id": [b.book_id for b in books],
        "title": [b.title for b in books],
        "language": [b.language or "" for b in books],
        "pub_year": [b.pub_year for b in books],
        "rating": [b.rating for b in books],
        "pages": [b.pages for b in books],
        "copies_available": [b.copies_available for b in books],
    }
    for dim in vocabulary.dimension_names:
        columns[tag_column(dim)] = [list(b.tags.get(dim, ())) for b in books]
    return columns



@dataclass(frozen=True)
class IndexBuildReport:
    """What a build did; also what `shelfwise index build` prints."""

    version_id: str
    up_to_date: bool  # nothing had changed, so the current version was kept
    book_count: int
    sentence_count: int
    books_enriched: int
    books_embedded: int
    sentences_embedded: int
    books_tokenized: int
    stage_seconds: dict[str, float]
    cache_pruned: int = 0  # cached vectors no text of this build needs any more, deleted
