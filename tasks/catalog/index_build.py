"""Index-build steps: from catalog books to vectors, sentence rows and BM25 tokens.

Each function is one step of flows/build_indexes.py; they take and return typed data and touch
storage only through the CatalogDB they are given.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from config.settings import Settings
from config.vocabulary import Vocabulary, load_aliases
from storage.catalog_db import CatalogDB
from storage.models import BookRecord
from storage.sql import tag_column
from tasks.catalog.crosswalk import default_crosswalk
from tasks.catalog.embedders.base import Embedder
from tasks.catalog.embedding import embed_with_cache
from tasks.catalog.enrich import derive_facets
from tasks.catalog.index_text import (
    INDEX_TEXT_VERSION,
    book_sentences,
    compose_index_text,
)
from tasks.catalog.text_analysis import ANALYZER_VERSION
from tasks.catalog.works import group_works


@dataclass(frozen=True)
class EnrichmentResult:
    books: list[BookRecord]  # the catalog with its facets and work ids applied
    enriched: int  # books given a value their source did not give them
    embedded: int
    text_hashes: list[str] = field(default_factory=list)  # of the texts embedded to enrich (value descriptions)


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


def snapshot_hash(books: list[BookRecord], embedder: Embedder, settings: Settings, vocabulary: Vocabulary,
                  crosswalk_file: Path) -> str:
    """Identifies what an index is built from: book contents, embedder, analysis and enrichment settings,
    the vocabulary and the crosswalk, so that a changed rule or threshold rebuilds."""
    digest = hashlib.sha256()
    digest.update(f"{embedder.model_id}|{ANALYZER_VERSION}|{INDEX_TEXT_VERSION}|{settings.bm25.model_dump_json()}|"
                  f"{settings.index.model_dump_json()}|{settings.enrichment.model_dump_json()}|".encode())
    digest.update(repr(vocabulary).encode())
    digest.update(crosswalk_file.read_bytes())
    for book in books:
        tags = json.dumps({d: list(v) for d, v in sorted(book.tags.items())}, ensure_ascii=False)
        digest.update(f"\n{book.book_id}|{book.content_hash}|{tags}".encode())
    return digest.hexdigest()


def enrich_catalog(books: list[BookRecord], book_vectors: np.ndarray, vocabulary: Vocabulary, embedder: Embedder,
                   db: CatalogDB, settings: Settings, use_cache: bool = True) -> EnrichmentResult:
    """Every book's facets (source, crosswalk, calibrated guesses) and its work, stored in the catalog."""
    profiles = {dim: [v.profile_text for v in vocabulary.dimension(dim).values] for dim in vocabulary.dimension_names}
    embedded = embed_with_cache([t for texts in profiles.values() for t in texts], embedder, db,
                                "vocabulary values", use_cache)
    value_vectors, start = {}, 0
    for dim, texts in profiles.items():
        value_vectors[dim] = embedded.vectors[start:start + len(texts)]
        start += len(texts)
    facets = derive_facets(books, book_vectors, value_vectors, vocabulary, default_crosswalk(vocabulary),
                           settings.enrichment)
    works = group_works(books, load_aliases())
    db.save_facets(facets, works)
    updated = [replace(b, facets=facets[b.book_id], work_id=works[b.book_id],
                       tag_origin="source" if b.tags else "enriched" if facets[b.book_id] else None) for b in books]
    enriched = sum(1 for b in updated if any(f.origin != "source" for f in b.facets))
    return EnrichmentResult(updated, enriched, embedded.computed, embedded.text_hashes)


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


def lance_book_columns(books: list[BookRecord], vocabulary: Vocabulary, filter_confidence: float) -> dict[str, list]:
    """The scalar, list and facet columns the recall filters need (facets at the filter confidence)."""
    columns: dict[str, list] = {
        "book_id": [b.book_id for b in books],
        "title": [b.title for b in books],
        "language": [b.language or "" for b in books],
        "pub_year": [b.pub_year for b in books],
        "rating": [b.rating for b in books],
        "pages": [b.pages for b in books],
        "copies_available": [b.copies_available for b in books],
        "work_id": [b.work_id or b.book_id for b in books],
        "authors": [list(b.authors) for b in books],
        "subject_text": [b.subject_text for b in books],
        "class_prefixes": [list(b.class_prefixes) for b in books],
    }
    for facet in vocabulary.facet_names:
        columns[tag_column(facet)] = [sorted(b.values_at(facet, filter_confidence)) for b in books]
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
