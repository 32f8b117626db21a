"""Recall paths chosen by intent: what each kind of brief adds to the vector and BM25 paths.

author_spotlight -> the author's own books ("entity"), then books sharing tags or co-authors ("related");
series -> the series' books in reading order ("entity"), then the same graph neighbours;
similar_to_book -> the named book's vector neighbours ("similar") and graph neighbours ("related"),
never the book itself; new_arrivals -> the newest books within the theme's conditions ("recent").
A theme shelf has none of these: the vector and BM25 paths carry it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import numpy as np

from storage.index_store import BOOKS_TABLE, IndexSnapshot
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition
from tasks.model.constraints import All, AnyOf, Expr, HasAny, evaluate
from tasks.model.intent import POLICIES, Intent, Understanding
from tasks.model.query import PathHit, ThemeQuery
from tasks.model.stages import Understood
from tasks.recall.book_graph import BookGraph
from tasks.recall.context import RecallContext
from tasks.recall.paths.base import PathRecall, RecallPath, register
from tasks.recall.vector_search import VectorSearch

_EPOCH = datetime(1970, 1, 1)


def entity_books(understanding: Understanding, books: Mapping[str, BookRecord], constraints: Expr) -> list[PathHit]:
    """The spotlit authors' books (newest first) or the series' (in reading order), within the constraints.

    A named book that fails them (no copies, say) is stood in for by another edition of its work that meets
    them: a series keeps its first volume when only the reprint is on the shelf.
    """
    named = [books[b] for b in understanding.book_ids if b in books]
    works = {b.work_id for b in named if b.work_id}
    editions: dict[str, list[BookRecord]] = {}
    for book in books.values():
        if book.work_id in works and evaluate(constraints, book):
            editions.setdefault(book.work_id, []).append(book)
    own, seen = [], set()
    for book in named:
        fits = book if evaluate(constraints, book) else min(editions.get(book.work_id or "", ()),
                                                            key=lambda e: e.book_id, default=None)
        if fits is not None and (fits.work_id or fits.book_id) not in seen:
            seen.add(fits.work_id or fits.book_id)
            own.append(fits)
    if understanding.intent is not Intent.SERIES:  # a series keeps its reading order
        own.sort(key=lambda b: (-(b.pub_year or 0), b.book_id))
    return [PathHit(b.book_id, 1.0, "entity") for b in own]


def vector_neighbours(book_ids: tuple[str, ...], snapshot: IndexSnapshot, search: VectorSearch,
                      constraints: Expr, top_k: int) -> list[PathHit]:
    """Books whose vectors are closest to any of the named books', the named books left out."""
    named = snapshot.book_vectors(list(book_ids))
    best: dict[str, float] = {}
    if named:
        for hits in search.nearest(np.vstack(list(named.values())), top_k, constraints).by_query:
            for book_id, similarity in hits:
                if book_id not in book_ids:
                    best[book_id] = max(similarity, best.get(book_id, -1.0))
    return [PathHit(b, s, "similar") for b, s in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))]


def graph_neighbours(book_ids: tuple[str, ...], graph: BookGraph, books: Mapping[str, BookRecord],
                     constraints: Expr, top_k: int) -> list[PathHit]:
    """Books sharing authors or tags with the named books, within the constraints."""
    def allowed(book_id: str) -> bool:
        return book_id in books and evaluate(constraints, books[book_id])

    return [PathHit(b, s, "related") for b, s in graph.related(book_ids, allowed, top_k)]


def newest_books(books: Mapping[str, BookRecord], constraints: Expr, should: tuple[FilterCondition, ...],
                 top_k: int, facet_confidence: float) -> list[PathHit]:
    """The most recently published books within the theme's conditions (newest catalog entries first on a tie).

    "本月新书：科幻" wants new science fiction, not any new book: where the theme has SHOULD conditions a
    book must meet one of them, held with `facet_confidence` (the filters' own: a catalog without tags has
    its science fiction derived, never the source's). Scored 1 for the newest down to near 0 for the k-th,
    so fusion sees recency, not a publication year.
    """
    wanted = (All((constraints, AnyOf(tuple(HasAny(c.field, c.values, facet_confidence) for c in should))))
              if should else constraints)
    matching = [b for b in books.values() if b.pub_year and evaluate(wanted, b)]
    matching.sort(key=lambda b: (-(b.pub_year or 0), -(b.updated_at or _EPOCH).timestamp(), b.book_id))
    top = matching[:top_k]
    return [PathHit(b.book_id, 1.0 - i / len(top), "recent") for i, b in enumerate(top)]


def intent_paths(understanding: Understanding, query: ThemeQuery, constraints: Expr, snapshot: IndexSnapshot,
                 search: VectorSearch, books: Mapping[str, BookRecord], graph: BookGraph,
                 top_k: int) -> dict[str, list[PathHit]]:
    """The paths the intent's policy adds to the vector and BM25 paths, by name."""
    path_of = {
        "entity": lambda: entity_books(understanding, books, constraints),
        "similar": lambda: vector_neighbours(understanding.book_ids, snapshot, search, constraints, top_k),
        "related": lambda: graph_neighbours(understanding.book_ids, graph, books, constraints, top_k),
        "recent": lambda: newest_books(books, constraints, query.conditions("SHOULD"), top_k,
                                       snapshot.filter_confidence),
    }
    return {name: path_of[name]() for name in POLICIES[understanding.intent].paths}


class IntentPath(RecallPath):
    """The paths the brief's intent adds (none for a theme shelf), run as one job."""

    name, order = "intent", 0

    def runs(self, understood: Understood, ctx: RecallContext) -> bool:
        return bool(POLICIES[understood.understanding.intent].paths)

    def find(self, understood: Understood, ctx: RecallContext) -> PathRecall:
        found = intent_paths(understood.understanding, understood.query, understood.constraints, ctx.snapshot,
                             ctx.searches[BOOKS_TABLE], ctx.books, ctx.graph(), ctx.settings.recall.vector_top_k)
        return PathRecall(found, ", ".join(f"{name}: {len(hits)}" for name, hits in found.items()))


register(IntentPath())
