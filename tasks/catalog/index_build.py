"""Index-build steps: from catalog books to vectors, sentence rows and BM25 tokens.

Each function is one step of flows/build_indexes.py; they take and return typed data and touch
storage only through the CatalogDB they are given.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from config.settings import Settings
from config.vocabulary import Vocabulary, VocabularyValue, load_aliases
from storage.catalog_db import CatalogDB
from storage.model_cache import cached_value
from storage.models import BookRecord
from storage.sql import tag_column
from tasks.catalog.crosswalk import default_crosswalk
from tasks.catalog.embedders.base import Embedder, normalize
from tasks.catalog.embedding import EmbeddingChunks, embed_with_cache
from tasks.catalog.enrich import ENRICHMENT_VERSION, Reference, derive_facets
from tasks.catalog.formats import CatalogFileError
from tasks.catalog.index_text import (
    INDEX_TEXT_VERSION,
    book_sentences,
    compose_index_text,
    head_parts,
)
from tasks.catalog.ingest import ColumnMapping, validate_file
from tasks.catalog.text_analysis import ANALYZER_VERSION
from tasks.catalog.works import group_works, work_key
from tasks.progress import logger


@dataclass(frozen=True)
class EnrichmentResult:
    books: list[BookRecord]  # the catalog with its facets and work ids applied
    enriched: int  # books given a value their source did not give them


@dataclass(frozen=True)
class SentenceList:
    """Every summary sentence of the catalog, grouped by book in catalog order."""

    owners: np.ndarray  # the index of each sentence's book in the catalog list
    texts: list[str]


@dataclass(frozen=True)
class SentenceVectors:
    """What the sentence step leaves for the next ones: each book's mean summary-sentence vector."""

    means: np.ndarray  # one normalised row per book, in catalog order; zeros for a book without sentences
    has_sentences: np.ndarray  # bool per book
    count: int
    embedded: int
    text_hashes: list[str]


@dataclass(frozen=True)
class BookVectors:
    vectors: np.ndarray  # one row per book, in catalog order
    embedded: int
    text_hashes: list[str]  # of the texts the vectors were computed from (the cache keys)


@dataclass(frozen=True)
class VocabularyVectors:
    values: tuple[VocabularyValue, ...]
    vectors: np.ndarray  # one profile vector per value
    embedded: int
    text_hashes: list[str]


# Books whose vectors are composed at once: their head parts' vectors are gathered, about 12 a book (50 MB).
COMPOSE_BOOKS = 2048

SentenceWriter = Callable[[np.ndarray, np.ndarray], None]  # (sentence rows, their vectors)


def snapshot_hash(books: list[BookRecord], embedder: Embedder, settings: Settings, vocabulary: Vocabulary,
                  crosswalk_file: Path) -> str:
    """Identifies what an index is built from: book contents, embedder, analysis and enrichment settings,
    the vocabulary, the crosswalk and the reference catalog, so that a changed rule or threshold rebuilds."""
    digest = hashlib.sha256()
    digest.update(f"{embedder.model_id}|{ANALYZER_VERSION}|{INDEX_TEXT_VERSION}|{ENRICHMENT_VERSION}|"
                  f"{settings.bm25.model_dump_json()}|"
                  f"{settings.index.model_dump_json()}|{settings.enrichment.model_dump_json()}|".encode())
    digest.update(repr(vocabulary).encode())
    digest.update(crosswalk_file.read_bytes())
    reference = settings.enrichment.reference_path()
    if reference is not None and reference.is_file():  # its tags vote where the catalog's books cannot
        digest.update(reference.read_bytes())
    for book in books:
        tags = json.dumps({d: list(v) for d, v in sorted(book.tags.items())}, ensure_ascii=False)
        digest.update(f"\n{book.book_id}|{book.content_hash}|{tags}".encode())
    return digest.hexdigest()


def embed_vocabulary(vocabulary: Vocabulary, embedder: Embedder, db: CatalogDB,
                     use_cache: bool = True) -> VocabularyVectors:
    """Every vocabulary value's profile vector: for enrichment, and stored with the version for gating."""
    values = vocabulary.all_values()
    result = embed_with_cache([v.profile_text for v in values], embedder, db, "vocabulary values", use_cache)
    return VocabularyVectors(values, result.vectors, result.computed, result.text_hashes)


def split_sentences(books: list[BookRecord]) -> SentenceList:
    """The summaries' sentences, book after book."""
    owners, texts = [], []
    for index, book in enumerate(books):
        sentences = book_sentences(book)
        owners += [index] * len(sentences)
        texts += sentences
    return SentenceList(np.asarray(owners, dtype=np.int64), texts)


def embed_sentences(sentences: SentenceList, book_count: int, embedder: Embedder, db: CatalogDB,
                    write: SentenceWriter, use_cache: bool = True) -> SentenceVectors:
    """Every summary sentence embedded and handed to `write` a chunk at a time; each book's mean kept.

    The sentences' vectors never sit in memory all at once (300k of them at 100k books).
    """
    sums = np.zeros((book_count, embedder.dim), dtype=np.float32)
    chunks = EmbeddingChunks(sentences.texts, embedder, db, "summary sentences", use_cache)
    for rows, vectors in chunks:
        write(rows, vectors)
        _add_by_group(sums, sentences.owners[rows], vectors)
    has_sentences = np.zeros(book_count, dtype=bool)
    has_sentences[sentences.owners] = True
    return SentenceVectors(normalize(sums, in_place=True), has_sentences, len(sentences.texts), chunks.computed,
                           chunks.text_hashes)


def _add_by_group(sums: np.ndarray, groups: np.ndarray, vectors: np.ndarray, weights: np.ndarray | None = None) -> None:
    """sums[g] += (weight x) vector for each vector of group g: sorted and summed per group (np.add.at is slow)."""
    if not len(groups):
        return
    order = np.argsort(groups, kind="stable")
    groups = groups[order]
    vectors = vectors[order] if weights is None else vectors[order] * weights[order, None]
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    sums[groups[starts]] += np.add.reduceat(vectors, starts, axis=0)


def embed_books(books: list[BookRecord], sentences: SentenceVectors, vocabulary: Vocabulary, embedder: Embedder,
                db: CatalogDB, settings: Settings, use_cache: bool = True) -> BookVectors:
    """One vector per book without embedding its long text again.

    A book with a summary: its head line (`index.head_sections`: a curator's tags, the title line) blended
    with the mean of its summary sentences, already embedded for the sentences table, the summary
    weighing `index.summary_weight`. The head line's parts are embedded apart and averaged, so that a
    tag or a subject heading many books share is embedded once. A book without a summary: its index
    text (`index.text_sections`: title line, the author's introduction, the table of contents).
    """
    index = settings.index
    position: dict[str, int] = {}
    # 1M+ (book, weight, text) entries at 100k books: kept as machine numbers, not Python objects
    owners, weights, rows = array("q"), array("f"), array("q")
    for book, (record, has) in enumerate(zip(books, sentences.has_sentences.tolist())):
        parts = (head_parts(record, vocabulary, index.head_sections) if has
                 else [(1.0, [compose_index_text(record, vocabulary, index.text_sections)])])
        for weight, texts in parts:
            for text in texts:
                owners.append(book)
                weights.append(weight / len(texts))  # a part counts by its weight, whatever its number of values
                rows.append(position.setdefault(text, len(position)))
    result = embed_with_cache(list(position), embedder, db, "book head lines", use_cache)
    del position
    owner, weight, row = (np.frombuffer(owners, np.int64), np.frombuffer(weights, np.float32),
                          np.frombuffer(rows, np.int64))
    vectors = np.zeros((len(books), embedder.dim), dtype=np.float32)
    share = index.summary_weight
    bounds = np.searchsorted(owner, np.arange(0, len(books) + COMPOSE_BOOKS, COMPOSE_BOOKS))
    for start, (first, last) in zip(range(0, len(books), COMPOSE_BOOKS), zip(bounds[:-1], bounds[1:])):
        block = vectors[start:start + COMPOSE_BOOKS]  # a view: a few books at a time, no second matrix of all
        _add_by_group(block, owner[first:last] - start, result.vectors[row[first:last]], weight[first:last])
        has = sentences.has_sentences[start:start + COMPOSE_BOOKS]
        block[has] = (1 - share) * normalize(block[has]) + share * sentences.means[start:start + COMPOSE_BOOKS][has]
        normalize(block, in_place=True)
    return BookVectors(vectors, result.computed, result.text_hashes)


def embed_reference(books: list[BookRecord], vocabulary: Vocabulary, embedder: Embedder, db: CatalogDB,
                    settings: Settings, use_cache: bool = True) -> Reference:
    """The reference catalog's books embedded as this catalog's are, their tags hidden (the books they vote for
    have none in their text either), for enrichment to borrow neighbours from."""
    blind = [replace(b, tags={}) for b in books]
    sentences = embed_sentences(split_sentences(blind), len(blind), embedder, db, lambda rows, vectors: None,
                                use_cache)
    vectors = embed_books(blind, sentences, vocabulary, embedder, db, settings, use_cache).vectors
    return Reference(vectors, tuple(b.tags for b in books), tuple(work_key(b) for b in books))


def reference_loader(vocabulary: Vocabulary, embedder: Embedder, db: CatalogDB, settings: Settings,
                     use_cache: bool = True) -> Callable[[], Reference | None]:
    """The reference catalog (enrichment.reference_catalog), read and embedded on the first call only.

    Its vectors depend on shipped files and the model alone: they are kept in the model cache
    (storage/model_cache.py), so that a new workspace does not embed its thousand sentences again.
    """
    path = settings.enrichment.reference_path()
    loaded: list[Reference | None] = []

    def load() -> Reference | None:
        if not loaded:
            loaded.append(_read_reference(path, vocabulary, embedder, db, settings, use_cache) if path else None)
        return loaded[0]
    return load


def _read_reference(path: Path, vocabulary: Vocabulary, embedder: Embedder, db: CatalogDB, settings: Settings,
                    use_cache: bool) -> Reference | None:
    try:
        books = [b for b in validate_file(path, ColumnMapping(), vocabulary).books if b.tags]
    except (OSError, CatalogFileError) as exc:
        logger.warning("enrichment: the reference catalog %s cannot be read (%s); guessing without it", path, exc)
        return None
    digest = hashlib.sha256(f"{embedder.model_id}|{INDEX_TEXT_VERSION}|{settings.index.model_dump_json()}|"
                            f"{vocabulary!r}|".encode() + path.read_bytes()).hexdigest()[:24]

    def embed() -> tuple[bytes, int]:
        vectors = embed_reference(books, vocabulary, embedder, db, settings, use_cache).vectors
        return np.ascontiguousarray(vectors, dtype=np.float32).tobytes(), vectors.shape[1]
    data, dim = cached_value(f"reference-{digest}", embed)
    vectors = np.frombuffer(data, dtype=np.float32).reshape(-1, dim)
    return Reference(vectors, tuple(b.tags for b in books), tuple(work_key(b) for b in books))


def enrich_catalog(books: list[BookRecord], book_vectors: BookVectors, vocabulary_vectors: VocabularyVectors,
                   vocabulary: Vocabulary, db: CatalogDB, settings: Settings,
                   reference: Callable[[], Reference | None] = lambda: None) -> EnrichmentResult:
    """Every book's facets (source, crosswalk, calibrated guesses) and its work, stored in the catalog."""
    value_vectors = {dim: vocabulary_vectors.vectors[[i for i, v in enumerate(vocabulary_vectors.values)
                                                      if v.dimension == dim]]
                     for dim in vocabulary.dimension_names}
    facets = derive_facets(books, book_vectors.vectors, value_vectors, vocabulary, default_crosswalk(vocabulary),
                           settings.enrichment, reference)
    works = group_works(books, load_aliases())
    db.save_facets(facets, works)
    updated = [replace(b, facets=facets[b.book_id], work_id=works[b.book_id],
                       tag_origin="source" if b.tags else "enriched" if facets[b.book_id] else None) for b in books]
    enriched = sum(1 for b in updated if any(f.origin != "source" for f in b.facets))
    return EnrichmentResult(updated, enriched)


def embed_books_e5(books: list[BookRecord], vocabulary: Vocabulary, db: CatalogDB, settings: Settings,
                   use_cache: bool = True) -> BookVectors:
    """The books' index texts embedded by multilingual-e5, for the optional third path."""
    from tasks.catalog.embedders.e5 import E5Embedder

    texts = [compose_index_text(b, vocabulary, settings.index.text_sections) for b in books]
    result = embed_with_cache(texts, E5Embedder(threads=settings.embedder.threads), db, "book texts (e5)",
                              use_cache)
    return BookVectors(result.vectors, result.computed, result.text_hashes)


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
