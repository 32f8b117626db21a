"""BM25 step: books tokenized as the index analyses them (only changed books again), one index over all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from sys import intern

from config.settings import BM25Settings, Settings
from storage.bm25_index import BM25Index
from storage.catalog_db import CatalogDB
from tasks.catalog.index_text import bm25_document_tokens
from tasks.compute import Fanout, chunked
from tasks.language.text_analysis import ANALYZER_VERSION
from tasks.model.books import BookRecord
from tasks.progress import Progress


@dataclass(frozen=True)
class BM25Build:
    index: BM25Index
    tokenized: int  # books tokenized now (the rest came from stored tokens)


def build_bm25(books: list[BookRecord], db: CatalogDB, settings: Settings, use_cache: bool = True,
               fanout: Fanout | None = None) -> BM25Build:
    """Tokenize changed books (the rest come from stored tokens; on `fanout`'s workers where given) and build
    BM25 over all of them."""
    analysis = json.dumps({"weights": settings.bm25.field_weights, "stem": settings.bm25.english_stemming},
                          sort_keys=True)
    stored = db.cached_tokens() if use_cache else {}
    keys = {b.book_id: f"{b.content_hash}|{ANALYZER_VERSION}|{analysis}" for b in books}
    stale = [b for b in books if stored.get(b.book_id, ("", []))[0] != keys[b.book_id]]
    progress = Progress("tokenizing books", len(stale))
    fresh: dict[str, tuple[str, list[str]]] = {}
    for book, tokens in zip(stale, _tokenized(stale, settings.bm25, fanout, progress)):
        fresh[book.book_id] = (keys[book.book_id], [intern(t) for t in tokens])  # a few thousand words, 6M tokens
    token_lists = [fresh[b.book_id][1] if b.book_id in fresh else stored[b.book_id][1] for b in books]
    db.store_tokens(fresh, {b.book_id for b in books})
    index = BM25Index.build([b.book_id for b in books], token_lists, settings.bm25)
    return BM25Build(index, len(fresh))


def _tokenized(books: list[BookRecord], settings: BM25Settings, fanout: Fanout | None,
               progress: Progress) -> Iterator[list[str]]:
    """Each book's tokens in order: here, or a chunk of books a task run on the fanout's workers."""
    if fanout is None:
        for book in books:
            yield bm25_document_tokens(book, settings.field_weights, settings.english_stemming)
            progress.advance()
        return
    jobs = [TokenizeChunk(tuple(chunk), settings) for chunk in chunked(books, fanout.chunk)]
    for job, token_lists in zip(jobs, fanout.map("tokenize-chunk", tokenize_chunk, jobs)):
        progress.advance(len(job.books))
        yield from token_lists


@dataclass(frozen=True)
class TokenizeChunk:
    """Books one worker tokenizes, with the analysis settings."""

    books: tuple[BookRecord, ...]
    settings: BM25Settings


def tokenize_chunk(chunk: TokenizeChunk) -> list[list[str]]:
    """On a worker: each book's BM25 tokens, as the index analyses them."""
    return [bm25_document_tokens(b, chunk.settings.field_weights, chunk.settings.english_stemming)
            for b in chunk.books]
