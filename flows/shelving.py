"""Wiring of one theme's steps: translate, recall on each path, fuse, rerank, de-duplicate, shelve.

Shared by the shelf flow and by `shelfwise eval`, so that evaluation measures the product's path.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from config.settings import Settings
from storage.index_store import IndexSnapshot
from storage.models import BookRecord, HistoryShelf, Theme
from tasks.dedupe import find_exclusions
from tasks.embedders.base import Embedder
from tasks.fusion import rrf_fuse
from tasks.models import Candidate, PathHit, ThemeQuery
from tasks.recall import bm25_recall, theme_seed, vector_recall
from tasks.rerank import Reranker, rerank
from tasks.shelf import ThemeShelf, select_shelf
from tasks.translate.base import Translator

PATHS = ("vector", "bm25")


@dataclass(frozen=True)
class RecallOptions:
    """Which parts of the path run; the product runs all of them, `shelfwise eval` switches them."""

    paths: tuple[str, ...] = PATHS
    use_threshold: bool = True
    bm25_randomness: float | None = None  # None: as configured
    use_rerank: bool = True


@dataclass
class Ranking:
    candidates: list[Candidate]
    notes: list[str] = field(default_factory=list)
    stage_seconds: dict[str, float] = field(default_factory=dict)


@contextmanager
def _timed(seconds: dict[str, float], stage: str):
    start = time.perf_counter()
    yield
    seconds[stage] = seconds.get(stage, 0.0) + time.perf_counter() - start


def document_text(book: BookRecord) -> str:
    """What a reranker reads of a book."""
    return f"{book.title_line}\n{book.summary or ''}"[:1000]


def rank_books(theme: Theme, query: ThemeQuery, snapshot: IndexSnapshot, books: Mapping[str, BookRecord],
               embedder: Embedder, reranker: Reranker | None, settings: Settings,
               options: RecallOptions = RecallOptions()) -> Ranking:
    """Recall on each path, RRF fusion with provenance, then the optional rerank."""
    ranking = Ranking([])
    timings = ranking.stage_seconds
    paths: dict[str, list[PathHit]] = {}
    if "vector" in options.paths:
        with _timed(timings, "vector"):
            found = vector_recall(query, snapshot, embedder, settings.recall, options.use_threshold)
        paths["vector"] = found.hits
        ranking.notes.append(f"vector: {len(found.hits)} above {found.threshold:.2f}")
    if "bm25" in options.paths:
        with _timed(timings, "bm25"):
            paths["bm25"] = bm25_recall(query, snapshot, books, settings.recall,
                                        theme_seed(theme.batch_id, theme.theme_id), options.bm25_randomness)
        ranking.notes.append(f"bm25: {len(paths['bm25'])}")
    with _timed(timings, "fusion"):
        candidates = rrf_fuse(paths, settings.fusion.rrf_k, settings.fusion.weights)
    if options.use_rerank and reranker is not None:
        with _timed(timings, "rerank"):
            outcome = rerank(candidates, query.synthetic_query, lambda b: document_text(books[b]), reranker,
                             settings.rerank.top_n)
        candidates = outcome.candidates
        ranking.notes.append(f"rerank: {outcome.note}")
    ranking.candidates = candidates
    return ranking


def shelve_theme(theme: Theme, translator: Translator, snapshot: IndexSnapshot,
                 books: Mapping[str, BookRecord], history: list[HistoryShelf], embedder: Embedder,
                 reranker: Reranker | None, settings: Settings) -> ThemeShelf:
    """One theme from brief to shelf."""
    timings: dict[str, float] = {}
    with _timed(timings, "translate"):
        query = translator.translate(theme)
    ranking = rank_books(theme, query, snapshot, books, embedder, reranker, settings)
    timings.update(ranking.stage_seconds)
    with _timed(timings, "history"):
        conditions = [c.to_dict() for c in query.filter_conditions]
        exclusions = find_exclusions(theme.brief, conditions, history, embedder, settings.history)
    with _timed(timings, "shelf"):
        entries = select_shelf(ranking.candidates, books, exclusions.book_ids, query, settings.shelf.size,
                               settings.shelf.max_per_author)
    notes = list(ranking.notes)
    if exclusions.because_of:
        notes.append("history: skipped books of " + ", ".join(exclusions.because_of))
    return ThemeShelf(theme, query, entries, "done", notes, {k: round(v, 3) for k, v in timings.items()})
