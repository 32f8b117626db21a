"""Nearest books by cosine similarity under a filter tree: one base class, two engines, a factory.

Up to `index.brute_force_max_rows` books the search is exact and in memory: one matrix product of the
query vectors with the memory-mapped book vectors, then a top k under a boolean mask from the filter
columns. At 100k books that is one pass over 200 MB for every query of a theme, where LanceDB took a
search per query and per filter (IVF over all partitions: as exact, and about 20 ms each). Above it,
the LanceDB table's IVF index with the tree as a SQL prefilter keeps memory flat.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from storage.index_store import IndexSnapshot
from tasks.recall.filters import Expr, FilterColumns, mask, to_lance_sql

Hits = list[tuple[str, float]]  # (book id, cosine similarity), best first
SEARCH_THREADS = 4


@dataclass(frozen=True)
class Nearest:
    """What one search found: for each query, and for the first query under each further filter."""

    by_query: list[Hits]
    by_filter: list[Hits] = field(default_factory=list)


class VectorSearch(ABC):
    """The nearest books of one dense table."""

    @abstractmethod
    def nearest(self, queries: np.ndarray, k: int, where: Expr, first_under: Sequence[Expr] = ()) -> Nearest:
        """The k nearest books meeting `where` for each query vector, and for the first query the k nearest
        under each of `first_under` too."""


class ExactSearch(VectorSearch):
    """Every book scored once per query (a matrix product) and a masked top k per filter."""

    def __init__(self, columns: FilterColumns, matrix: np.ndarray):
        if len(matrix) != len(columns):
            raise ValueError(f"{len(matrix)} vectors for {len(columns)} books")
        self._columns = columns
        self._matrix = matrix
        norms = np.linalg.norm(matrix, axis=1)
        self._inverse_norms = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)

    def _similarities(self, queries: np.ndarray) -> np.ndarray:
        queries = np.asarray(queries, dtype=np.float32).reshape(-1, self._matrix.shape[1])
        queries = queries / np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-12)
        return (self._matrix @ queries.T).T * self._inverse_norms

    def _top(self, similarities: np.ndarray, allowed: np.ndarray, k: int) -> Hits:
        rows = np.flatnonzero(allowed)
        if len(rows) > k:
            rows = rows[np.argpartition(-similarities[rows], k - 1)[:k]]
        rows = rows[np.lexsort((rows, -similarities[rows]))]  # best first; on a tie, the book order
        ids = self._columns.book_ids
        return [(ids[r], float(similarities[r])) for r in rows.tolist()]

    def nearest(self, queries: np.ndarray, k: int, where: Expr, first_under: Sequence[Expr] = ()) -> Nearest:
        if len(queries) == 0:
            return Nearest([])
        allowed = mask(where, self._columns)
        similarities = self._similarities(queries)
        return Nearest([self._top(row, allowed, k) for row in similarities],
                       [self._top(similarities[0], mask(w, self._columns), k) for w in first_under])


class LanceSearch(VectorSearch):
    """The LanceDB table's own search, the tree as a SQL prefilter; several searches at once on threads
    (LanceDB releases the GIL), their results in the filters' order."""

    def __init__(self, snapshot: IndexSnapshot, table: str):
        self._snapshot = snapshot
        self._table = table

    def nearest(self, queries: np.ndarray, k: int, where: Expr, first_under: Sequence[Expr] = ()) -> Nearest:
        if len(queries) == 0:
            return Nearest([])
        with ThreadPoolExecutor(max_workers=SEARCH_THREADS, thread_name_prefix="vector-search") as pool:
            by_query = pool.submit(self._snapshot.vector_search_many, queries, k, to_lance_sql(where), self._table)
            by_filter = [pool.submit(self._snapshot.vector_search, queries[0], k, to_lance_sql(w), self._table)
                         for w in first_under]
            return Nearest(by_query.result(), [f.result() for f in by_filter])


def create_vector_search(snapshot: IndexSnapshot, table: str, columns: FilterColumns,
                         exact_max_rows: int) -> VectorSearch:
    """Exact in memory up to `exact_max_rows` books, LanceDB's index above."""
    if len(columns) <= exact_max_rows:
        return ExactSearch(columns, snapshot.vector_matrix(table))
    return LanceSearch(snapshot, table)
