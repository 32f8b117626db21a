"""Nearest books by cosine similarity under a filter tree: one base class, two engines, a factory.

Up to `index.brute_force_max_rows` books the search is in memory: the query vectors against the
memory-mapped book vectors, then a top k under a boolean mask from the filter columns (MemorySearch).
LanceDB took a search per query and per filter (IVF over all partitions: exact, and about 20 ms each at
100k books). Above that size, the LanceDB table's IVF index with the tree as a SQL prefilter keeps
memory flat.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from storage.index_store import IndexSnapshot
from tasks.model.constraints import Expr
from tasks.recall.filters import FilterColumns, mask, to_lance_sql

Hits = list[tuple[str, float]]  # (book id, cosine similarity), best first
SEARCH_THREADS = 4
SHORTLIST_MIN_ROWS = 50_000  # below, one full pass costs less than the projection's upkeep
SHORTLIST = 1_500  # books per query scored on the full vectors
MOMENT_ROWS = 20_000  # books the projection is fitted on (benchmarks/shortlist_recall.py: recall unchanged)
PROJECTED_DIMENSIONS = 128
FIT_BLOCK = 8_192


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


class MemorySearch(VectorSearch):
    """Every allowed book scored against the memory-mapped vectors, the best k kept per filter.

    From SHORTLIST_MIN_ROWS books on, a query is first scored on a 128-dimension projection of the vectors
    (their principal directions, a quarter of the bytes), and only its best SHORTLIST allowed books are
    scored on the full vectors: one pass over 200 MB at 100k books took 33 ms a theme, bound by memory
    speed. benchmarks/shortlist_recall.py measures the shortlist against the full scan.
    """

    def __init__(self, columns: FilterColumns, matrix: np.ndarray):
        if len(matrix) != len(columns):
            raise ValueError(f"{len(matrix)} vectors for {len(columns)} books")
        self._columns = columns
        self._matrix = matrix
        norms = np.linalg.norm(matrix, axis=1)
        self._inverse_norms = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        self._projection = (Projection.fit(matrix, self._inverse_norms) if len(matrix) >= SHORTLIST_MIN_ROWS
                            else None)

    def nearest(self, queries: np.ndarray, k: int, where: Expr, first_under: Sequence[Expr] = ()) -> Nearest:
        if len(queries) == 0:
            return Nearest([])
        queries = np.asarray(queries, dtype=np.float32).reshape(-1, self._matrix.shape[1])
        queries = queries / np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-12)
        allowed = mask(where, self._columns)
        under = [mask(w, self._columns) for w in first_under]
        if self._projection is None:
            similarities = (self._matrix @ queries.T).T * self._inverse_norms  # one pass for every query
            return Nearest([self._scored(np.flatnonzero(allowed), row, k) for row in similarities],
                           [self._scored(np.flatnonzero(m), similarities[0], k) for m in under])
        coarse = self._projection.scores(queries)
        return Nearest([self._shortlisted(query, row, allowed, k) for query, row in zip(queries, coarse)],
                       [self._shortlisted(queries[0], coarse[0], m, k) for m in under])

    def _shortlisted(self, query: np.ndarray, coarse: np.ndarray, allowed: np.ndarray, k: int) -> Hits:
        rows = np.flatnonzero(allowed)
        if len(rows) > SHORTLIST:
            rows = np.sort(rows[np.argpartition(-coarse[rows], SHORTLIST - 1)[:SHORTLIST]])  # sorted: a forward read
        return self._best(rows, (self._matrix[rows] @ query) * self._inverse_norms[rows], k)

    def _scored(self, rows: np.ndarray, similarities: np.ndarray, k: int) -> Hits:
        """The best k of `rows`, every book's similarity given."""
        return self._best(rows, similarities[rows], k)

    def _best(self, rows: np.ndarray, similarities: np.ndarray, k: int) -> Hits:
        """The k of `rows` most similar (`similarities` row for row), best first; on a tie, the book order."""
        if len(rows) > k:
            top = np.argpartition(-similarities, k - 1)[:k]
            rows, similarities = rows[top], similarities[top]
        order = np.lexsort((rows, -similarities))
        ids = self._columns.book_ids
        return [(ids[r], float(v)) for r, v in zip(rows[order].tolist(), similarities[order].tolist())]


@dataclass(frozen=True)
class Projection:
    """The book vectors (unit length) on their first principal directions: a dot product there ranks books
    almost as the full one does, at a fraction of the memory read."""

    basis: np.ndarray  # dimensions x PROJECTED_DIMENSIONS
    projected: np.ndarray  # books x PROJECTED_DIMENSIONS

    @classmethod
    def fit(cls, matrix: np.ndarray, inverse_norms: np.ndarray) -> Projection:
        """The top eigenvectors of the unit vectors' second moments, summed block by block (no 200 MB copy), over
        evenly spaced rows: MOMENT_ROWS of them fix the principal directions as well as all 100k do."""
        step = max(1, len(matrix) // MOMENT_ROWS)
        moments = np.zeros((matrix.shape[1], matrix.shape[1]), dtype=np.float64)
        for _, block in _unit_blocks(matrix[::step], inverse_norms[::step]):
            moments += block.T @ block
        _, vectors = np.linalg.eigh(moments)  # ascending eigenvalues
        basis = np.ascontiguousarray(vectors[:, ::-1][:, :PROJECTED_DIMENSIONS], dtype=np.float32)
        projected = np.empty((len(matrix), basis.shape[1]), dtype=np.float32)
        for start, block in _unit_blocks(matrix, inverse_norms):
            projected[start:start + len(block)] = block @ basis
        return cls(basis, projected)

    def scores(self, queries: np.ndarray) -> np.ndarray:
        """Every book's approximate similarity to each (unit) query: queries x books."""
        return (self.projected @ (queries @ self.basis).T).T


def _unit_blocks(matrix: np.ndarray, inverse_norms: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, rows scaled to unit length), FIT_BLOCK rows at a time."""
    for start in range(0, len(matrix), FIT_BLOCK):
        yield start, matrix[start:start + FIT_BLOCK] * inverse_norms[start:start + FIT_BLOCK, None]


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
                         memory_max_rows: int) -> VectorSearch:
    """In memory up to `memory_max_rows` books, LanceDB's index above."""
    if len(columns) <= memory_max_rows:
        return MemorySearch(columns, snapshot.vector_matrix(table))
    return LanceSearch(snapshot, table)
