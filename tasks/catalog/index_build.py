"""Index-build steps: from catalog books to vectors, sentence rows and BM25 tokens.

Each function is one step of flows/build_indexes.py; they take and return typed data and touch
storage only through the CatalogDB they are given.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import numpy as np

from config.class_ranges import CLASS_RANGES_FILE
from config.settings import Settings
from config.vocabulary import Vocabulary, VocabularyValue, load_aliases
from storage import index_store
from storage.catalog_db import CatalogDB
from storage.index_store import IndexSnapshot
from storage.model_cache import cached_value
from storage.sql import tag_column
from tasks.catalog.crosswalk import default_crosswalk
from tasks.catalog.enrich import ENRICHMENT_VERSION, Reference, derive_facets
from tasks.catalog.names import NAMES_FILE
from tasks.intake.formats import CatalogFileError
from tasks.catalog.index_text import (
    INDEX_TEXT_VERSION,
    book_sentences,
    compose_index_text,
    head_parts,
)
from tasks.catalog.ingest import ColumnMapping, validate_file
from tasks.catalog.works import group_works, work_key
from tasks.compute import Fanout
from tasks.language.embedders.base import Embedder, normalize
from tasks.language.embedding import EmbeddingChunks, embed_with_cache, text_hash
from tasks.language.text_analysis import ANALYZER_VERSION
from tasks.model.books import BookRecord
from tasks.progress import logger


@dataclass(frozen=True)
class EnrichmentResult:
    books: list[BookRecord]  # the catalog with its facets and work ids applied
    enriched: int  # books given a value their source did not give them
    settled: np.ndarray  # CarryOver.settled of these books: the rows the previous version holds as they are now


@dataclass(frozen=True)
class SentenceList:
    """Every summary sentence of the catalog, grouped by book in catalog order."""

    owners: np.ndarray  # the index of each sentence's book in the catalog list
    texts: list[str]


@dataclass(frozen=True)
class SentenceVectors:
    """What the sentence step leaves for the next ones: each fresh book's mean summary-sentence vector."""

    means: np.ndarray  # one normalised row per fresh book (CarryOver.fresh); zeros for a book without sentences
    has_sentences: np.ndarray  # bool per fresh book
    count: int  # sentences of the whole catalog
    embedded: int
    text_hashes: list[str]  # of the fresh books' sentences


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


def inputs_hash(embedder: Embedder, settings: Settings, vocabulary: Vocabulary, crosswalk_file: Path) -> str:
    """Identifies what an index is built from but the books: embedder, analysis and enrichment settings, the
    vocabulary, the crosswalk, the class ranges and name marks, and the reference catalog, so that a changed rule or
    threshold rebuilds; and a version built from the same inputs may lend a build its unchanged books (`CarryOver`)."""
    digest = hashlib.sha256()
    digest.update(f"{embedder.model_id}|{ANALYZER_VERSION}|{INDEX_TEXT_VERSION}|{ENRICHMENT_VERSION}|"
                  f"{settings.bm25.model_dump_json()}|"
                  f"{settings.index.model_dump_json()}|{settings.enrichment.model_dump_json()}|".encode())
    digest.update(repr(vocabulary).encode())
    digest.update(crosswalk_file.read_bytes())
    # the literatures and periods, and the names' nation marks: a record's literature facet and its class subjects
    for rules in (CLASS_RANGES_FILE, NAMES_FILE):
        digest.update(rules.read_bytes())
    reference = settings.enrichment.reference_path()
    if reference is not None and reference.is_file():  # its tags vote where the catalog's books cannot
        digest.update(reference.read_bytes())
    return digest.hexdigest()


def snapshot_hash(books: list[BookRecord], inputs: str) -> str:
    """Identifies an index: the book contents and the inputs (`inputs_hash`) it is built from."""
    digest = hashlib.sha256(inputs.encode())
    for book in books:
        tags = json.dumps({d: list(v) for d, v in sorted(book.tags.items())}, ensure_ascii=False)
        digest.update(f"\n{book.book_id}|{book.content_hash}|{tags}".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class CarryOver:
    """Where each book's sentence vectors, book vector and facets come from: the previous version, for a book
    whose record is unchanged since that version and built from the same inputs; else this build.

    A carried book keeps the facets its version derived: its guesses come from the probes fitted then, not
    refitted on today's catalog (a full build fits them again for every book).
    """

    previous: IndexSnapshot | None
    rows: np.ndarray  # per book in catalog order: its row in the previous version, -1 where this build makes it

    @classmethod
    def none(cls, book_count: int) -> CarryOver:
        """Nothing carried: every book is made by this build."""
        return cls(None, np.full(book_count, -1, dtype=np.int64))

    @property
    def fresh(self) -> np.ndarray:
        """The catalog positions of the books this build makes, ascending."""
        return np.flatnonzero(self.rows < 0)

    @property
    def carried(self) -> np.ndarray:
        """The catalog positions of the books taken from the previous version, ascending."""
        return np.flatnonzero(self.rows >= 0)

    def settled(self, books: list[BookRecord]) -> np.ndarray:
        """`rows`, but -1 for a carried book whose work changed too (an edition of it came or went): after
        enrichment, the rows the previous version holds exactly as this one would."""
        if self.previous is None:
            return self.rows
        states, rows = self.previous.indexed_states, self.rows.copy()
        for i in self.carried.tolist():
            if states[books[i].book_id][2] != (books[i].work_id or books[i].book_id):
                rows[i] = -1
        return rows


def plan_carry_over(books: list[BookRecord], previous: IndexSnapshot | None) -> CarryOver:
    """Which books the previous version (None: there is none to use) holds with the same record."""
    if previous is None:
        return CarryOver.none(len(books))
    states = previous.indexed_states

    def row(book: BookRecord) -> int:
        found = states.get(book.book_id)
        return found[0] if found is not None and found[1] == book.content_hash else -1
    return CarryOver(previous, np.fromiter(map(row, books), dtype=np.int64, count=len(books)))


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


class SentenceSink(Protocol):
    """Where a version's sentence vectors go: computed ones as they come, carried ones copied from a version."""

    def write(self, rows: np.ndarray, vectors: np.ndarray) -> None: ...

    def copy(self, source: Path, runs: Sequence[tuple[int, int, int]]) -> None: ...


class Discard:
    """A sentence sink that keeps nothing: the caller wants only the books' means."""

    def write(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        return None

    def copy(self, source: Path, runs: Sequence[tuple[int, int, int]]) -> None:
        return None


def _carried_runs(books: list[BookRecord], sentences: SentenceList, carry: CarryOver) -> list[tuple[int, int, int]]:
    """(previous first row, first row, rows) of the carried books' sentences, consecutive books joined."""
    runs: list[list[int]] = []
    starts = np.searchsorted(sentences.owners, np.arange(len(books) + 1)).tolist()
    for book in carry.carried.tolist():
        first, end = carry.previous.sentence_rows(books[book].book_id)
        count = starts[book + 1] - starts[book]
        if end - first != count:  # the same record splits the same way: INDEX_TEXT_VERSION is in the inputs
            raise ValueError(f"index version {carry.previous.version_id} holds {end - first} sentences of "
                             f"{books[book].book_id}, this build {count}: run `shelfwise index build --full`")
        if count and runs and runs[-1][0] + runs[-1][2] == first and runs[-1][1] + runs[-1][2] == starts[book]:
            runs[-1][2] += count
        elif count:
            runs.append([first, starts[book], count])
    return [(a, b, c) for a, b, c in runs]


def embed_sentences(books: list[BookRecord], sentences: SentenceList, carry: CarryOver, embedder: Embedder,
                    db: CatalogDB, sink: SentenceSink, use_cache: bool = True,
                    fanout: Fanout | None = None) -> SentenceVectors:
    """Every summary sentence's vector into `sink`: the carried books' copied from their version, the others'
    embedded (or read from the cache) a chunk at a time, on `fanout`'s workers where given; each fresh book's
    mean kept.

    The sentences' vectors never sit in memory all at once (300k of them at 100k books).
    """
    fresh = carry.fresh
    if carry.previous is not None:
        sink.copy(carry.previous.path, _carried_runs(books, sentences, carry))
    position = np.full(len(books), -1, dtype=np.int64)
    position[fresh] = np.arange(len(fresh))
    rows = np.flatnonzero(position[sentences.owners] >= 0)  # the fresh books' sentences
    owners = position[sentences.owners[rows]]
    texts = sentences.texts if len(rows) == len(sentences.texts) else [sentences.texts[r] for r in rows.tolist()]
    sums = np.zeros((len(fresh), embedder.dim), dtype=np.float32)
    chunks = EmbeddingChunks(texts, embedder, db, "summary sentences", use_cache, fanout)
    for chunk_rows, vectors in chunks:
        sink.write(rows[chunk_rows], vectors)
        _add_by_group(sums, owners[chunk_rows], vectors)
    has_sentences = np.zeros(len(fresh), dtype=bool)
    has_sentences[owners] = True
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


def embed_books(books: list[BookRecord], sentences: SentenceVectors, carry: CarryOver, vocabulary: Vocabulary,
                embedder: Embedder, db: CatalogDB, settings: Settings, use_cache: bool = True,
                fanout: Fanout | None = None) -> BookVectors:
    """One vector per book without embedding its long text again: a carried book's from its version, a fresh
    book's composed.

    A book with a summary: its head line (`index.head_sections`: a curator's tags, the title line) blended
    with the mean of its summary sentences, already embedded for the sentences table, the summary
    weighing `index.summary_weight`. The head line's parts are embedded apart and averaged, so that a
    tag or a subject heading many books share is embedded once. A book without a summary: its index
    text (`index.text_sections`: title line, the author's introduction, the table of contents).
    """
    fresh = carry.fresh
    made = _compose_books([books[i] for i in fresh.tolist()] if carry.previous is not None else books, sentences,
                          vocabulary, embedder, db, settings, use_cache, fanout)
    if carry.previous is None:
        return made
    vectors = np.empty((len(books), embedder.dim), dtype=np.float32)
    vectors[fresh] = made.vectors
    carried = carry.carried
    for start in range(0, len(carried), COMPOSE_BOOKS * 8):  # a block at a time: no second matrix of them all
        block = carried[start:start + COMPOSE_BOOKS * 8]
        vectors[block] = carry.previous.vectors_at(carry.rows[block])
    return replace(made, vectors=vectors)


def _compose_books(books: list[BookRecord], sentences: SentenceVectors, vocabulary: Vocabulary, embedder: Embedder,
                   db: CatalogDB, settings: Settings, use_cache: bool, fanout: Fanout | None = None) -> BookVectors:
    """The composed vectors of these books, `sentences` holding their means in the same order."""
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
    result = embed_with_cache(list(position), embedder, db, "book head lines", use_cache, fanout)
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
    nothing = CarryOver.none(len(blind))
    sentences = embed_sentences(blind, split_sentences(blind), nothing, embedder, db, Discard(), use_cache)
    vectors = embed_books(blind, sentences, nothing, vocabulary, embedder, db, settings, use_cache).vectors
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


def enrich_catalog(books: list[BookRecord], book_vectors: BookVectors, carry: CarryOver,
                   vocabulary_vectors: VocabularyVectors, vocabulary: Vocabulary, db: CatalogDB, settings: Settings,
                   reference: Callable[[], Reference | None] = lambda: None) -> EnrichmentResult:
    """Every book's facets (source, crosswalk, calibrated guesses; a carried book's from its version) and its work,
    stored in the catalog where they changed."""
    value_vectors = {dim: vocabulary_vectors.vectors[[i for i, v in enumerate(vocabulary_vectors.values)
                                                      if v.dimension == dim]]
                     for dim in vocabulary.dimension_names}
    carried = carry.carried
    facets = derive_facets(books, book_vectors.vectors, value_vectors, vocabulary, default_crosswalk(vocabulary),
                           settings.enrichment, reference, None if carry.previous is None else carry.fresh)
    works = group_works(books, load_aliases())
    if carry.previous is not None:
        facets.update(zip((books[i].book_id for i in carried.tolist()),
                          carry.previous.facets_at(carry.rows[carried].tolist())))
    updated = [replace(b, facets=facets[b.book_id], work_id=works[b.book_id],
                       tag_origin="source" if b.tags else "enriched" if facets[b.book_id] else None) for b in books]
    settled = carry.settled(updated)
    changed = [b.book_id for b, row in zip(updated, settled.tolist()) if row < 0]
    db.save_facets({b: facets[b] for b in changed}, {b: works[b] for b in changed})
    enriched = sum(1 for b in updated if any(f.origin != "source" for f in b.facets))
    return EnrichmentResult(updated, enriched, settled)


@dataclass(frozen=True)
class StaleVectors:
    """The cached vectors a build leaves behind: those of `hashes`, or, `keep`, all but those."""

    hashes: list[str]
    keep: bool


def stale_vectors(carry: CarryOver, needed: Sequence[str], vocabulary: Vocabulary,
                  settings: Settings) -> StaleVectors:
    """The cached vectors of texts this version no longer needs, so that edits do not pile up night after night.

    With nothing carried, `needed` holds every text of the version: all the rest. With books carried, it
    holds the fresh books' texts only: the previous version's texts of the books that changed or left, but
    those `needed`. A heading part those books shared with a carried one goes too, and is embedded again by
    the next build that asks for it (one short text).
    """
    if carry.previous is None:
        return StaleVectors(list(needed), keep=True)
    kept = set(carry.rows[carry.carried].tolist())
    gone = [row for row, _, _ in carry.previous.indexed_states.values() if row not in kept]
    old = carry.previous.books_at(gone)
    texts = carry.previous.sentences_of([b.book_id for b in old], vectors=False)[1]
    for book in old:
        texts += [text for _, part in head_parts(book, vocabulary, settings.index.head_sections) for text in part]
        texts.append(compose_index_text(book, vocabulary, settings.index.text_sections))
    return StaleVectors(list({text_hash(t) for t in texts} - set(needed)), keep=False)


def embed_books_e5(books: list[BookRecord], vocabulary: Vocabulary, db: CatalogDB, settings: Settings,
                   use_cache: bool = True) -> BookVectors:
    """The books' index texts embedded by multilingual-e5, for the optional third path."""
    from tasks.language.embedders.e5 import E5Embedder

    texts = [compose_index_text(b, vocabulary, settings.index.text_sections) for b in books]
    result = embed_with_cache(texts, E5Embedder(threads=settings.embedder.threads), db, "book texts (e5)",
                              use_cache)
    return BookVectors(result.vectors, result.computed, result.text_hashes)


# Beyond this share of the catalog changed, a build writes its books table anew rather than patching the last one.
PATCH_SHARE = 0.2


def write_lance(version_path: Path, books: list[BookRecord], vectors: np.ndarray, e5_vectors: BookVectors | None,
                carry: CarryOver, settled: np.ndarray, vocabulary: Vocabulary, settings: Settings) -> None:
    """The version's LanceDB tables: the previous version's books table patched where few books changed, else
    written anew; the e5 path's table, where there is one, always anew. `settled`: CarryOver.settled."""
    confidence, facets = settings.enrichment.filter_confidence, vocabulary.facet_names
    patch = lance_patch(books, carry, settled)
    columns = (lance_book_columns(books, vocabulary, confidence) if patch is None or e5_vectors is not None
               else None)
    if patch is None:
        index_store.write_books_table(version_path, columns, vectors, facets, settings.index.brute_force_max_rows)
    else:
        written, replaced = patch
        index_store.carry_books_table(version_path, carry.previous.path, replaced, lance_book_columns(
            [books[i] for i in written.tolist()], vocabulary, confidence), vectors[written], facets)
    if e5_vectors is not None:
        index_store.write_books_table(version_path, columns, e5_vectors.vectors, facets,
                                      settings.index.brute_force_max_rows, index_store.BOOKS_E5_TABLE)


def lance_patch(books: list[BookRecord], carry: CarryOver, settled: np.ndarray) -> tuple[np.ndarray, list[str]] | None:
    """(positions of the books whose rows the previous version's books table lacks or holds otherwise, ids of the
    rows to delete from it); None where the table is better written anew."""
    if carry.previous is None:
        return None
    written = np.flatnonzero(settled < 0)
    if len(written) > PATCH_SHARE * len(books):
        return None
    kept = {books[i].book_id for i in np.flatnonzero(settled >= 0).tolist()}
    return written, [book_id for book_id in carry.previous.indexed_states if book_id not in kept]


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
    tag_columns = [columns.setdefault(tag_column(facet), []) for facet in vocabulary.facet_names]
    for book in books:
        held = book.held_values(filter_confidence)
        for facet, column in zip(vocabulary.facet_names, tag_columns):
            column.append(sorted(held.get(facet, ())))
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
