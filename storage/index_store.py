"""Index files on disk: one folder per index version holding LanceDB tables and the BM25 index.

A build writes a new version folder next to the current one; DuckDB's index_versions table says
which folder is current, so readers keep the previous index until a build has finished and been
committed, and a build that dies half-way leaves only an orphan folder that the next build removes.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import IvfFlat

from storage.bm25_index import META_FILE, BM25Index
from storage.sql import sql_string, tag_column

BOOKS_TABLE = "books"
BOOKS_E5_TABLE = "books_e5"  # the optional third path: the same books embedded by multilingual-e5
SENTENCES_TABLE = "sentences"
SCALAR_COLUMNS = ("pub_year", "rating", "pages", "copies_available")
ROWS_PER_PARTITION = 4096
# Partitions searched. benchmarks/ivf_recall.py at 100k books (24 partitions): 16 kept 99.5% of the
# exact top 100 (worst query 81%), 32 kept all of it for 3 ms more a search; recall comes first.
NPROBES = 32


def new_version(indexes_dir: Path, snapshot_hash: str) -> tuple[str, Path]:
    """A fresh version id and its (empty) folder."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    version_id = f"{stamp}-{snapshot_hash[:8]}"
    path = indexes_dir / version_id
    path.mkdir(parents=True, exist_ok=False)
    return version_id, path


def prune_versions(indexes_dir: Path, keep: set[str]) -> list[str]:
    """Delete version folders not in `keep` (old versions and leftovers of failed builds)."""
    removed = []
    if not indexes_dir.exists():
        return removed
    for child in sorted(indexes_dir.iterdir()):
        if child.is_dir() and child.name not in keep:
            shutil.rmtree(child, ignore_errors=True)
            removed.append(child.name)
    return removed


# ---- LanceDB ----------------------------------------------------------------------------------

WRITE_BATCH_ROWS = 50_000  # rows handed to LanceDB at a time: one batch's Arrow copy in memory, not the table's


def _vector_array(vectors: np.ndarray) -> pa.FixedSizeListArray:
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    return pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), vectors.shape[1])


def _batches(columns: dict[str, list], vectors: np.ndarray, schema: pa.Schema) -> pa.RecordBatchReader:
    """The columns and vectors as a stream of record batches, built one batch at a time."""
    def generate():
        for start in range(0, len(vectors), WRITE_BATCH_ROWS):
            end = start + WRITE_BATCH_ROWS
            data = {name: values[start:end] for name, values in columns.items()}
            yield pa.RecordBatch.from_pydict({**data, "vector": _vector_array(vectors[start:end])}, schema=schema)
    return pa.RecordBatchReader.from_batches(schema, generate())


def books_schema(tag_dimensions: tuple[str, ...], dim: int) -> pa.Schema:
    """Typed columns, so that an all-empty column (no pages anywhere) still has its type."""
    return pa.schema(
        [("book_id", pa.string()), ("title", pa.string()), ("language", pa.string()),
         ("pub_year", pa.int32()), ("rating", pa.float64()), ("pages", pa.int32()),
         ("copies_available", pa.int32()), ("work_id", pa.string()), ("authors", pa.list_(pa.string())),
         ("subject_text", pa.string()), ("class_prefixes", pa.list_(pa.string()))]
        + [(tag_column(d), pa.list_(pa.string())) for d in tag_dimensions]
        + [("vector", pa.list_(pa.float32(), dim))]
    )


def write_books_table(version_path: Path, columns: dict[str, list], vectors: np.ndarray,
                      tag_dimensions: tuple[str, ...], brute_force_max_rows: int, name: str = BOOKS_TABLE) -> None:
    """The LanceDB `books` table: filter columns, tag lists and the book vector, with indexes."""
    schema = books_schema(tag_dimensions, vectors.shape[1])
    db = lancedb.connect(str(version_path / "lance"))
    tbl = db.create_table(name, data=_batches(columns, vectors, schema), schema=schema, mode="overwrite")
    tbl.create_scalar_index("book_id", index_type="BTREE")
    for column in SCALAR_COLUMNS:
        tbl.create_scalar_index(column, index_type="BTREE")
    tbl.create_scalar_index("language", index_type="BITMAP")
    tbl.create_scalar_index("work_id", index_type="BTREE")
    for column in ("authors", "class_prefixes", *(tag_column(d) for d in tag_dimensions)):
        tbl.create_scalar_index(column, index_type="LABEL_LIST")
    if len(vectors) > brute_force_max_rows:
        # Few, large partitions: searching NPROBES of them stays close to exact (flat vectors, no PQ).
        partitions = max(2, len(vectors) // ROWS_PER_PARTITION)
        tbl.create_index("vector", config=IvfFlat(distance_type="cosine", num_partitions=partitions))


def write_sentences_table(version_path: Path, columns: dict[str, list], vectors: np.ndarray) -> None:
    """The LanceDB `sentences` table: one row per summary sentence."""
    schema = pa.schema([("book_id", pa.string()), ("position", pa.int32()), ("text", pa.string()),
                        ("vector", pa.list_(pa.float32(), vectors.shape[1]))])
    db = lancedb.connect(str(version_path / "lance"))
    tbl = db.create_table(SENTENCES_TABLE, data=_batches(columns, vectors, schema), schema=schema, mode="overwrite")
    if len(vectors):
        tbl.create_scalar_index("book_id", index_type="BTREE")


# ---- BM25 files -------------------------------------------------------------------------------

def save_bm25(version_path: Path, index: BM25Index) -> None:
    """The BM25 index into its folder of the version."""
    index.save(version_path / "bm25")


# ---- reading a version --------------------------------------------------------------------------

@dataclass
class IndexSnapshot:
    """One committed index version, open for queries."""

    version_id: str
    path: Path
    books: lancedb.table.Table
    sentences: lancedb.table.Table
    bm25: BM25Index
    books_e5: lancedb.table.Table | None = None
    filter_confidence: float = 1.0  # the facet columns hold values at least this sure (see save_filter_meta)

    def vector_search(self, vector: np.ndarray, k: int, where: str | None = None,
                      table: str = BOOKS_TABLE, nprobes: int = NPROBES) -> list[tuple[str, float]]:
        """Nearest books by cosine similarity, filter applied before the search."""
        return self.vector_search_many(np.asarray(vector)[None, :], k, where, table, nprobes)[0]

    def vector_search_many(self, vectors: np.ndarray, k: int, where: str | None = None,
                           table: str = BOOKS_TABLE, nprobes: int = NPROBES) -> list[list[tuple[str, float]]]:
        """Nearest books for each query vector, in one LanceDB query sharing the filter."""
        if len(vectors) == 0:
            return []
        source = self.books_e5 if table == BOOKS_E5_TABLE else self.books
        queries = [row.tolist() for row in np.asarray(vectors, dtype=np.float32)] if len(vectors) > 1 else \
            np.asarray(vectors[0], dtype=np.float32)
        query = source.search(queries, vector_column_name="vector").distance_type("cosine").nprobes(nprobes)
        if where:
            query = query.where(where, prefilter=True)
        found: list[list[tuple[str, float]]] = [[] for _ in vectors]
        for r in query.select(["book_id", "_distance"]).limit(k).to_arrow().to_pylist():
            # LanceDB adds query_index only when it was given several vectors
            found[r.get("query_index", 0)].append((r["book_id"], 1.0 - float(r["_distance"])))
        return found

    def all_book_vectors(self, where: str | None = None) -> tuple[list[str], np.ndarray]:
        """Every book's id and vector (those matching `where`): for exact search in benchmarks."""
        query = self.books.search()
        if where:
            query = query.where(where)
        rows = query.select(["book_id", "vector"]).limit(None).to_arrow()
        return rows.column("book_id").to_pylist(), _matrix(rows)

    def book_vectors(self, book_ids: Sequence[str], table: str = BOOKS_TABLE) -> dict[str, np.ndarray]:
        """The stored vectors of these books."""
        table = self._rows(self.books_e5 if table == BOOKS_E5_TABLE else self.books, book_ids, ["book_id", "vector"])
        return dict(zip(table.column("book_id").to_pylist(), _matrix(table)))

    def sentences_of(self, book_ids: Sequence[str]) -> tuple[list[str], list[str], np.ndarray]:
        """(book ids, sentence texts, vectors) of every summary sentence of these books."""
        table = self._rows(self.sentences, book_ids, ["book_id", "text", "vector"])
        return table.column("book_id").to_pylist(), table.column("text").to_pylist(), _matrix(table)

    @staticmethod
    def _rows(table, book_ids: Sequence[str], columns: list[str]) -> pa.Table:
        if not book_ids:
            return table.schema.empty_table().select(columns)
        where = f"book_id IN ({', '.join(sql_string(b) for b in book_ids)})"
        return table.search().where(where).select(columns).limit(None).to_arrow()


def _matrix(table: pa.Table) -> np.ndarray:
    column = table.column("vector").combine_chunks()
    if len(column) == 0:
        return np.zeros((0, 0), dtype=np.float32)
    return column.values.to_numpy(zero_copy_only=False).reshape(len(column), -1).astype(np.float32)


def open_index(version_id: str, path: Path) -> IndexSnapshot:
    db = lancedb.connect(str(path / "lance"))
    return IndexSnapshot(
        version_id=version_id,
        path=path,
        books=db.open_table(BOOKS_TABLE),
        sentences=db.open_table(SENTENCES_TABLE),
        bm25=BM25Index.load(path / "bm25"),
        books_e5=db.open_table(BOOKS_E5_TABLE) if BOOKS_E5_TABLE in db.table_names() else None,
        filter_confidence=_filter_meta(path).get("filter_confidence", 1.0),
    )


FILTER_META = "filters.json"


def save_filter_meta(version_path: Path, filter_confidence: float) -> None:
    """What a reader must know to filter this version as it was built: its facet columns' confidence."""
    (version_path / FILTER_META).write_text(json.dumps({"filter_confidence": filter_confidence}), encoding="utf-8")


def _filter_meta(version_path: Path) -> dict:
    meta = version_path / FILTER_META
    return json.loads(meta.read_text(encoding="utf-8")) if meta.exists() else {}


def version_exists(path: str | Path) -> bool:
    """True if a version folder is complete enough to open."""
    path = Path(path)
    return (path / "bm25" / META_FILE).exists() and (path / "lance").exists()
