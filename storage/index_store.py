"""Index files on disk: one self-contained folder per index version.

A version folder holds everything a reader needs, so that read-only commands never open DuckDB (and
so work while a build holds it), and read the version as it was built whatever today's config says:
    lance/              the `books` table: filter columns, tag lists and the book vector, for filtered ANN search
    bm25/               the BM25 index, with the analysis settings it was built with
    books.parquet       the books as indexed (enriched tags applied), read back in one call
    books.marshal       the same books as the Python objects' field values, the form a run loads fastest
    books.npy           the book vectors again, in books.parquet's order
    sentences.parquet   every summary sentence (book id, text), grouped by book in that order
    sentences.npy       their vectors, row for row
    vocabulary.parquet  every vocabulary value's profile text and vector, for gating
    subjects.parquet    the catalog's subjects with their counts and vectors (storage/subject_store.py)
    version.json        the IndexVersion: embedder, counts, snapshot hash, and the hash of the build's
                        inputs but the books; written last, so its presence says the folder is complete
Sentences are only ever fetched by book, and fusion fetches the vectors of a few hundred books per theme:
from memory-mapped .npy files that is a row-range read, where a LanceDB `book_id IN (...)` scan took
about 30 ms a theme at 100k books (benchmarks/shelves_100k.py).
`CURRENT` beside the folders names the committed version. A build writes a new folder; the DuckDB
transaction that records it is followed by the rename of CURRENT, so readers keep the previous version
until then, and a build that dies half-way leaves only an orphan folder that the next build removes.
On object storage (storage/index_root.py) the folder is built locally as well, uploaded before the DuckDB
transaction, and CURRENT is an object written after it, conditionally.
"""

from __future__ import annotations

import json
import marshal
import os
import shutil
import sys
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from datetime import datetime, timedelta, timezone
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from storage.bm25_index import BM25Index
from storage.catalog_db import book_to_row, row_to_book
from storage.index_root import IndexRoot
from storage.models import IndexVersion
from storage.sql import sql_string, tag_column
from tasks.model.books import BookRecord, Facet, shared_facet

if TYPE_CHECKING:
    from lancedb.table import Table

BOOKS_TABLE = "books"
BOOKS_E5_TABLE = "books_e5"  # the optional third path: the same books embedded by multilingual-e5
VERSION_FILE = "version.json"
# Bump when the files of a version folder change: a folder of another format is rebuilt, never misread.
FOLDER_FORMAT = 6  # 2: a book's facets are ids into facets.parquet, no longer JSON; 3: the subject index;
#                   4: books carry their credits; 5: subject texts hold heading parts between bars;
#                   6: books carry their material and coded values
BOOKS_FILE = "books.parquet"
BOOK_OBJECTS_FILE = "books.marshal"
FACETS_FILE = "facets.parquet"
BOOK_VECTORS_FILE = "books.npy"
SENTENCES_FILE = "sentences.parquet"
SENTENCE_VECTORS_FILE = "sentences.npy"
VOCABULARY_FILE = "vocabulary.parquet"
CURRENT_FILE = "CURRENT"
SCALAR_COLUMNS = ("pub_year", "rating", "pages", "copies_available")
ROWS_PER_PARTITION = 4096
# Partitions searched. benchmarks/ivf_recall.py at 100k books (24 partitions): 16 kept 99.5% of the
# exact top 100 (worst query 81%), 32 kept all of it for 3 ms more a search; recall comes first.
NPROBES = 32


def new_version(root: IndexRoot, snapshot_hash: str) -> tuple[str, Path]:
    """A fresh version id and its (empty) local folder."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    version_id = f"{stamp}-{snapshot_hash[:8]}"
    path = root.local / version_id
    path.mkdir(parents=True, exist_ok=False)
    return version_id, path


def prune_versions(root: IndexRoot, keep: set[str]) -> list[str]:
    """Delete versions not in `keep` (old versions and leftovers of failed builds and uploads): in the object
    store, and their local folders."""
    removed = [version_id for version_id in root.versions() if version_id not in keep] if root.remote else []
    for version_id in removed:
        root.delete_version(version_id)
    if root.local.exists():
        for child in sorted(root.local.iterdir()):
            if child.is_dir() and child.name not in keep:
                shutil.rmtree(child, ignore_errors=True)
                removed.append(child.name)
    return sorted(set(removed))


def remove_half_written(indexes_dir: Path) -> list[str]:
    """Delete what an interrupted or failed build left: version folders without their version file (written
    last, so a folder without it was never complete) and CURRENT's temp files; returns their names. Only for
    the workspace's writer: another build may be writing its folder otherwise."""
    if not indexes_dir.is_dir():
        return []
    removed = []
    for child in sorted(indexes_dir.iterdir()):
        if child.is_dir() and not (child / VERSION_FILE).exists():
            shutil.rmtree(child, ignore_errors=True)
            removed.append(child.name)
        elif child.is_file() and child.name.startswith(f".{CURRENT_FILE}."):
            child.unlink(missing_ok=True)
            removed.append(child.name)
    return removed


def publish(root: IndexRoot, version_id: str) -> None:
    """Put a finished version where readers find it before anything names it: uploaded to an object store (a
    local root has it in place already)."""
    if root.remote:
        root.upload(version_id)


def set_current(root: IndexRoot, version_id: str) -> None:
    """Point readers at `version_id`: on disk a temp file renamed over CURRENT (readers see the old or the new
    one); in an object store the CURRENT object, written conditionally, after the version's upload where a
    build died before finishing it."""
    if root.remote:
        if not root.has_version(version_id):
            root.upload(version_id)
        root.write_current(version_id)
        return
    temp = root.local / f".{CURRENT_FILE}.{os.getpid()}"
    temp.write_text(version_id, encoding="utf-8")
    os.replace(temp, root.local / CURRENT_FILE)


def version_exists(path: str | Path) -> bool:
    """True if a version folder is complete (its version file is written last) and in this code's format."""
    file = Path(path) / VERSION_FILE
    return file.exists() and json.loads(file.read_text(encoding="utf-8")).get("format") == FOLDER_FORMAT


def missing_files(path: str | Path) -> list[str]:
    """The files and folders a complete version holds that are not in `path` (all of them: the folder is gone)."""
    folder = Path(path)
    needed = [VERSION_FILE, BOOKS_FILE, BOOK_OBJECTS_FILE, FACETS_FILE, BOOK_VECTORS_FILE, SENTENCES_FILE,
              SENTENCE_VECTORS_FILE, VOCABULARY_FILE, FILTER_META, "bm25", "lance"]
    return [name for name in needed if not (folder / name).exists()]


# ---- writing a version ------------------------------------------------------------------------

WRITE_BATCH_ROWS = 50_000  # rows handed to LanceDB at a time: one batch's Arrow copy in memory, not the table's


def _vector_array(vectors: np.ndarray) -> pa.FixedSizeListArray:
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    return pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), vectors.shape[1])


def _batches(columns: dict[str, Sequence], vectors: np.ndarray, schema: pa.Schema) -> pa.RecordBatchReader:
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
    from storage.lance import lancedb

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
        from lancedb.index import IvfFlat

        # Few, large partitions: searching NPROBES of them stays close to exact (flat vectors, no PQ).
        partitions = max(2, len(vectors) // ROWS_PER_PARTITION)
        tbl.create_index("vector", config=IvfFlat(distance_type="cosine", num_partitions=partitions))


UNINDEXED_SHARE = 0.05  # rows a carried table may hold outside its indexes (scanned, not looked up) before it is
#                         optimised: about a week of nightly edits of 1% of a catalog


def carry_books_table(version_path: Path, previous_path: Path, replaced: Sequence[str], columns: dict[str, list],
                      vectors: np.ndarray, tag_dimensions: tuple[str, ...]) -> None:
    """The previous version's `books` table with the rows of `replaced` deleted and these rows added.

    Its files are linked, not copied: Lance never rewrites a file, it writes new ones and a new manifest, so
    the previous version's table stays as it was. New rows are searched by a scan until the indexes are
    brought up to date, once UNINDEXED_SHARE of the table is outside them.
    """
    from storage.lance import lancedb

    folder = f"{BOOKS_TABLE}.lance"  # LanceDB's folder of a table
    shutil.copytree(previous_path / "lance" / folder, version_path / "lance" / folder, copy_function=os.link)
    tbl = lancedb.connect(str(version_path / "lance")).open_table(BOOKS_TABLE)
    for start in range(0, len(replaced), WRITE_BATCH_ROWS // 10):
        chunk = replaced[start:start + WRITE_BATCH_ROWS // 10]
        tbl.delete(f"book_id IN ({', '.join(sql_string(b) for b in chunk)})")
    if len(vectors):
        tbl.add(_batches(columns, vectors, books_schema(tag_dimensions, vectors.shape[1])))
    stats = tbl.index_stats("book_id_idx")
    if stats is not None and stats.num_unindexed_rows > UNINDEXED_SHARE * tbl.count_rows():
        with warnings.catch_warnings():  # that a reader of an older table version would fail: no one reads this
            warnings.simplefilter("ignore", UserWarning)  # copy before the version is committed
            tbl.optimize(cleanup_older_than=timedelta(0))


class SentenceFiles:
    """A version's summary sentences: their texts at once, their vectors as they come, in any order."""

    def __init__(self, version_path: Path, book_ids: Sequence[str], texts: Sequence[str], dim: int):
        pq.write_table(pa.table({"book_id": pa.array(book_ids, pa.string()), "text": pa.array(texts, pa.string())}),
                       version_path / SENTENCES_FILE)
        self._file = open(version_path / SENTENCE_VECTORS_FILE, "wb")  # noqa: SIM115 - closed by finish()
        np.lib.format.write_array_header_1_0(self._file, {"descr": "<f4", "fortran_order": False,
                                                          "shape": (len(texts), dim)})
        self._start = self._file.tell()
        self._row_bytes = dim * 4
        self._file.truncate(self._start + len(texts) * self._row_bytes)
        self._file.flush()

    def write(self, rows: np.ndarray, vectors: np.ndarray) -> None:
        """Vectors of these sentence rows; a run of consecutive rows is one write.

        Plain file writes, not a writable memory map: pages written through a map count in the process's
        memory until the kernel drops them, and would add the whole matrix to a build's peak RSS.
        """
        order = np.argsort(rows, kind="stable")
        rows, vectors = rows[order], np.ascontiguousarray(vectors[order], dtype="<f4")
        fd = self._file.fileno()
        for first, count in _runs(rows):
            os.pwrite(fd, vectors[first:first + count].tobytes(), self._start + int(rows[first]) * self._row_bytes)

    def copy(self, source: Path, runs: Sequence[tuple[int, int, int]]) -> None:
        """Rows of another version's sentence vectors (`source` its folder), as (its first row, our first row,
        rows) runs: copied file to file by the kernel, never through this process's memory."""
        with open(source / SENTENCE_VECTORS_FILE, "rb") as src:
            source_start = _npy_data_start(src)
            fd_in, fd_out = src.fileno(), self._file.fileno()
            for first, target, rows in runs:
                offset_in = source_start + first * self._row_bytes
                offset_out = self._start + target * self._row_bytes
                left = rows * self._row_bytes
                while left:
                    done = os.copy_file_range(fd_in, fd_out, left, offset_in, offset_out)
                    if not done:
                        raise OSError(f"{source / SENTENCE_VECTORS_FILE} ended before row {first + rows}")
                    offset_in, offset_out, left = offset_in + done, offset_out + done, left - done

    def finish(self) -> None:
        self._file.close()


def _npy_data_start(file) -> int:
    """Where the rows of an open .npy file start (after its header)."""
    if np.lib.format.read_magic(file) == (1, 0):
        np.lib.format.read_array_header_1_0(file)
    else:
        np.lib.format.read_array_header_2_0(file)
    return file.tell()


def _runs(rows: np.ndarray) -> list[tuple[int, int]]:
    """(position in `rows`, length) of each run of consecutive row numbers."""
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    starts = np.concatenate(([0], breaks)).tolist()
    return list(zip(starts, np.diff(np.concatenate((starts, [len(rows)]))).tolist()))


def write_book_vectors(version_path: Path, vectors: np.ndarray) -> None:
    """The book vectors in books.parquet's order, for fusion to read by row."""
    np.save(version_path / BOOK_VECTORS_FILE, np.ascontiguousarray(vectors, dtype=np.float32))


def write_books_snapshot(version_path: Path, books: Sequence[BookRecord], previous: IndexSnapshot | None = None,
                         rows: np.ndarray | None = None) -> None:
    """The books as indexed, in the catalog's own row format (storage/catalog_db.py) but for their facets: ids
    into a table of the distinct ones. 100k books hold 1.2M facets and under 2,000 distinct ones; parsing
    them as JSON was a third of opening a version.

    With `previous`, a book whose entry of `rows` is not -1 is that row of the previous version's snapshot,
    copied as it is (the build found its record, facets and work unchanged); the facet ids go on from there.
    """
    ids: dict[Facet, int] = {f: i for i, f in enumerate(previous._facets)} if previous is not None else {}
    fresh = np.flatnonzero(rows < 0) if previous is not None else np.arange(len(books))
    made = []
    for book in (books[i] for i in fresh.tolist()):
        row = book_to_row(book, None, book.updated_at, facets=False)
        row["facets"] = [ids.setdefault(f, len(ids)) for f in book.facets]
        made.append(row)
    if previous is None:
        table = pa.Table.from_pylist(made)
        if "facets" in table.column_names:  # a catalog without a facet would type the column as lists of nulls
            table = table.set_column(table.column_names.index("facets"), "facets",
                                     pc.cast(table["facets"], pa.list_(pa.int32())))
    else:
        kept = np.flatnonzero(rows >= 0)
        copied = pq.read_table(previous.path / BOOKS_FILE).take(pa.array(rows[kept]))
        order = np.empty(len(books), dtype=np.int64)  # catalog order: the copied rows first, then the made ones
        order[kept], order[fresh] = np.arange(len(kept)), len(kept) + np.arange(len(fresh))
        table = pa.concat_tables([copied, pa.Table.from_pylist(made, schema=copied.schema)]).take(pa.array(order))
    pq.write_table(table, version_path / BOOKS_FILE)
    write_book_objects(version_path, books, ids)
    facets = list(ids)
    pq.write_table(pa.table({"dimension": [f.dimension for f in facets], "value": [f.value for f in facets],
                             "confidence": pa.array([f.confidence for f in facets], pa.float64()),
                             "origin": [f.origin for f in facets], "because": [f.because for f in facets]}),
                   version_path / FACETS_FILE)


_BOOK_FIELDS = tuple(f.name for f in fields(BookRecord))
_FACETS_AT, _UPDATED_AT = _BOOK_FIELDS.index("facets"), _BOOK_FIELDS.index("updated_at")


def _book_objects_key() -> list:
    """What a books.marshal file must have been written under to be read: marshal's format is this Python's,
    and the values are BookRecord's fields in their order."""
    return [list(sys.version_info[:2]), marshal.version, list(_BOOK_FIELDS)]


def write_book_objects(version_path: Path, books: Sequence[BookRecord], facet_ids: dict[Facet, int]) -> None:
    """Every book's field values in one marshal dump: a run made 100k books from it in 1.4-1.5 s, from the
    Parquet rows (dicts, tags as JSON, times as datetimes) in 2.2-4.1 s in the same minutes. Facets are ids,
    times ISO 8601."""
    def values(book: BookRecord) -> tuple:
        out = [getattr(book, name) for name in _BOOK_FIELDS]
        out[_FACETS_AT] = tuple(facet_ids[f] for f in book.facets)
        out[_UPDATED_AT] = book.updated_at.isoformat() if book.updated_at else None
        return tuple(out)

    (version_path / BOOK_OBJECTS_FILE).write_bytes(marshal.dumps([_book_objects_key(), [values(b) for b in books]]))


def _book_from_values(stored: Sequence, facets: Sequence[Facet]) -> BookRecord:
    """A book as write_book_objects stored it, its facet ids resolved against the version's facet table."""
    values = list(stored)
    values[_FACETS_AT] = tuple(facets[i] for i in values[_FACETS_AT])
    if values[_UPDATED_AT] is not None:
        values[_UPDATED_AT] = datetime.fromisoformat(values[_UPDATED_AT])
    return BookRecord(*values)


def write_vocabulary_vectors(version_path: Path, values: Sequence[tuple[str, str]], vectors: np.ndarray) -> None:
    """(dimension, profile text) of every vocabulary value, with its profile vector."""
    table = pa.table({"dimension": pa.array([d for d, _ in values], pa.string()),
                      "profile_text": pa.array([t for _, t in values], pa.string()),
                      "vector": _vector_array(vectors)})
    pq.write_table(table, version_path / VOCABULARY_FILE)


def save_bm25(version_path: Path, index: BM25Index) -> None:
    """The BM25 index into its folder of the version."""
    index.save(version_path / "bm25")


def write_version_file(version_path: Path, version: IndexVersion, inputs_hash: str) -> None:
    """The version's own record, last: its presence says the folder is complete. `inputs_hash` names what
    the version was built from but the books (tasks/catalog/index_build.py `inputs_hash`)."""
    record = {**asdict(version), "created_at": version.created_at.isoformat(), "format": FOLDER_FORMAT,
              "inputs": inputs_hash}
    for local in ("path", "is_current"):  # where it lies and whether it is current are not the folder's to say
        record.pop(local)
    temp = version_path / f".{VERSION_FILE}"
    temp.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(temp, version_path / VERSION_FILE)


# ---- reading a version --------------------------------------------------------------------------

class NoIndexError(RuntimeError):
    """No usable index version: none was built, or the current one predates self-contained versions."""


@dataclass
class IndexSnapshot:
    """One committed index version, open for queries. Its LanceDB tables open when first asked for: a
    catalog searched in memory (tasks/recall/vector_search.py) never imports LanceDB."""

    version_id: str
    path: Path  # the local folder (on object storage, the local copy of the files but the LanceDB tables)
    bm25: BM25Index | None = None
    version: IndexVersion | None = None
    filter_confidence: float = 1.0  # the facet columns hold values at least this sure (see save_filter_meta)
    store: IndexRoot | None = None  # an object-store root the LanceDB tables are read from; None: they are local

    @cached_property
    def books(self) -> Table:
        """The LanceDB `books` table."""
        return self._lance.open_table(BOOKS_TABLE)

    @cached_property
    def books_e5(self) -> Table | None:
        """The LanceDB table of the e5 path, where the version has one."""
        return self._lance.open_table(BOOKS_E5_TABLE) if self.has_e5 else None

    @property
    def has_e5(self) -> bool:
        """Whether the version has the e5 path's table (a local LanceDB table is a folder named after it)."""
        if self.store is not None:
            return self.store.has_table(self.version_id, BOOKS_E5_TABLE)
        return (self.path / "lance" / f"{BOOKS_E5_TABLE}.lance").is_dir()

    @cached_property
    def _lance(self):
        from storage.lance import lancedb

        if self.store is not None:
            return lancedb.connect(self.store.lance_uri(self.version_id), storage_options=self.store.storage_options())
        return lancedb.connect(str(self.path / "lance"))

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

    def vector_matrix(self, table: str = BOOKS_TABLE) -> np.ndarray:
        """Every book's vector of a dense table, row for row in books.parquet's order (the books table's
        memory-mapped: its pages are read as a search touches them)."""
        if table != BOOKS_E5_TABLE:
            return self._book_matrix
        stored = self.books_e5.search().select(["book_id", "vector"]).limit(None).to_arrow()
        vectors = _matrix(stored)
        matrix = np.zeros((len(self._book_rows), vectors.shape[1]), dtype=np.float32)
        matrix[[self._book_rows[b] for b in stored.column("book_id").to_pylist()]] = vectors
        return matrix

    def book_vectors(self, book_ids: Sequence[str], table: str = BOOKS_TABLE) -> dict[str, np.ndarray]:
        """The stored vectors of these books (books the version does not hold are left out)."""
        if table == BOOKS_E5_TABLE:
            rows = self._lance_rows(self.books_e5, book_ids, ["book_id", "vector"])
            return dict(zip(rows.column("book_id").to_pylist(), _matrix(rows)))
        found = [b for b in dict.fromkeys(book_ids) if b in self._book_rows]
        return dict(zip(found, self._book_matrix[[self._book_rows[b] for b in found]]))

    def sentences_of(self, book_ids: Sequence[str], vectors: bool = True) -> tuple[list[str], list[str], np.ndarray]:
        """(book ids, sentence texts, vectors) of every summary sentence of these books; without `vectors`, an
        empty array for them (through the memory map, a build reading the sentences of scattered books had
        counted 600 MB of the file's pages in its memory)."""
        owners, rows = [], []
        for book_id in dict.fromkeys(book_ids):
            start, end = self.sentence_rows(book_id)
            owners += [book_id] * (end - start)
            rows += range(start, end)
        texts = self._sentences.column("text").take(pa.array(rows, pa.int64())).to_pylist()
        matrix = np.asarray(self._sentence_matrix[rows], dtype=np.float32) if vectors else np.zeros((0, 0), np.float32)
        return owners, texts, matrix

    def load_books(self) -> list[BookRecord]:
        """The books the version was built from, as they were then (enriched tags included): from books.marshal,
        or from books.parquet where that file is missing (an older version) or of another Python."""
        try:
            key, rows = marshal.loads((self.path / BOOK_OBJECTS_FILE).read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            key, rows = None, []
        if key == _book_objects_key():
            facets = self._facets
            return [_book_from_values(values, facets) for values in rows]
        table = pq.read_table(self.path / BOOKS_FILE)
        offsets, ids = self._facet_ids
        facets = [self._facets[i] for i in ids.tolist()]  # shared objects: one per distinct facet
        bounds = offsets.tolist()
        return [row_to_book(row, tuple(facets[bounds[i]:bounds[i + 1]]))
                for i, row in enumerate(table.drop_columns(["facets"]).to_pylist())]

    def facet_rows(self) -> dict[Facet, np.ndarray]:
        """Every distinct facet and the rows (in book order) of the books holding it."""
        offsets, ids = self._facet_ids
        rows = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        order = np.argsort(ids, kind="stable")
        present, starts = np.unique(ids[order], return_index=True)
        return {self._facets[i]: part for i, part in zip(present.tolist(), np.split(rows[order], starts[1:]))}

    @cached_property
    def indexed_states(self) -> dict[str, tuple[int, str, str]]:
        """book id -> (its row, its content hash, its work id) for every book the version holds."""
        table = pq.read_table(self.path / BOOKS_FILE, columns=["book_id", "content_hash", "work_id"])
        ids, hashes, works = (table.column(c).to_pylist() for c in ("book_id", "content_hash", "work_id"))
        return {book_id: (row, content_hash, work or book_id)
                for row, (book_id, content_hash, work) in enumerate(zip(ids, hashes, works))}

    def facets_at(self, rows: Sequence[int]) -> list[tuple[Facet, ...]]:
        """The facets of the books at these rows."""
        offsets, ids = self._facet_ids
        bounds, flat, facets = offsets.tolist(), ids.tolist(), self._facets
        return [tuple(facets[i] for i in flat[bounds[row]:bounds[row + 1]]) for row in rows]

    def books_at(self, rows: Sequence[int]) -> list[BookRecord]:
        """The records of the books at these rows, as indexed, without their facets."""
        table = pq.ParquetFile(self.path / BOOKS_FILE)
        columns = [c for c in table.schema_arrow.names if c != "facets"]
        return [row_to_book(row, ()) for row in table.read(columns).take(pa.array(rows, pa.int64())).to_pylist()]

    def vectors_at(self, rows: np.ndarray) -> np.ndarray:
        """The book vectors at these rows, read run by run: through the memory map, every page read would
        count in the process's memory (a build carrying 100k books)."""
        dim = self._book_matrix.shape[1]
        out = np.empty((len(rows), dim), dtype=np.float32)
        with open(self.path / BOOK_VECTORS_FILE, "rb") as fh:
            start, fd = _npy_data_start(fh), fh.fileno()
            for first, count in _runs(rows):
                data = os.pread(fd, count * dim * 4, start + int(rows[first]) * dim * 4)
                out[first:first + count] = np.frombuffer(data, dtype="<f4").reshape(count, dim)
        return out

    def sentence_rows(self, book_id: str) -> tuple[int, int]:
        """The rows [start, end) of a book's summary sentences ((0, 0) for a book without them)."""
        return self._sentence_ranges.get(book_id, (0, 0))

    @cached_property
    def _facets(self) -> list[Facet]:
        table = pq.read_table(self.path / FACETS_FILE)
        return [shared_facet(*values) for values in zip(*(table.column(c).to_pylist() for c in
                                                          ("dimension", "value", "confidence", "origin", "because")))]

    @cached_property
    def _facet_ids(self) -> tuple[np.ndarray, np.ndarray]:
        """Each book's facet ids, flat, and where each book's start (one more offset than books)."""
        column = pq.read_table(self.path / BOOKS_FILE, columns=["facets"]).column("facets").combine_chunks()
        offsets = column.offsets.to_numpy().astype(np.int64)
        return offsets - offsets[0], column.values.to_numpy().astype(np.int64)

    def vocabulary_vectors(self) -> dict[tuple[str, str], np.ndarray]:
        """(dimension, profile text) -> vector of every vocabulary value, as embedded when the version was built."""
        table = pq.read_table(self.path / VOCABULARY_FILE)
        keys = zip(table.column("dimension").to_pylist(), table.column("profile_text").to_pylist())
        return dict(zip(keys, _matrix(table)))

    @cached_property
    def _book_rows(self) -> dict[str, int]:
        ids = pq.read_table(self.path / BOOKS_FILE, columns=["book_id"]).column("book_id").to_pylist()
        return {book_id: row for row, book_id in enumerate(ids)}

    @cached_property
    def _book_matrix(self) -> np.ndarray:
        return np.load(self.path / BOOK_VECTORS_FILE, mmap_mode="r")  # pages are read as rows are asked for

    @cached_property
    def _sentences(self) -> pa.Table:
        return pq.read_table(self.path / SENTENCES_FILE).combine_chunks()  # one chunk: a take is 50x faster

    @cached_property
    def _sentence_matrix(self) -> np.ndarray:
        return np.load(self.path / SENTENCE_VECTORS_FILE, mmap_mode="r")

    @cached_property
    def _sentence_ranges(self) -> dict[str, tuple[int, int]]:
        """book id -> its rows [start, end): the sentences are grouped by book."""
        runs = pc.run_end_encode(self._sentences.column("book_id").combine_chunks())
        ends = runs.run_ends.to_pylist()
        return {book_id: (start, end) for book_id, start, end in zip(runs.values.to_pylist(), [0, *ends], ends)}

    @staticmethod
    def _lance_rows(table, book_ids: Sequence[str], columns: list[str]) -> pa.Table:
        if not book_ids:
            return table.schema.empty_table().select(columns)
        where = f"book_id IN ({', '.join(sql_string(b) for b in book_ids)})"
        return table.search().where(where).select(columns).limit(None).to_arrow()


def _matrix(table: pa.Table) -> np.ndarray:
    column = table.column("vector").combine_chunks()
    if len(column) == 0:
        return np.zeros((0, 0), dtype=np.float32)
    return column.values.to_numpy(zero_copy_only=False).reshape(len(column), -1).astype(np.float32)


def read_version_file(path: Path) -> IndexVersion:
    record = json.loads((path / VERSION_FILE).read_text(encoding="utf-8"))
    record.pop("format")
    record.pop("inputs", None)
    return IndexVersion(**{**record, "created_at": datetime.fromisoformat(record["created_at"]), "path": str(path),
                           "is_current": False})


def open_index(version_id: str, path: Path, store: IndexRoot | None = None) -> IndexSnapshot:
    """The version in the local folder `path` (its LanceDB tables in `store` where that is an object store)."""
    return IndexSnapshot(
        version_id=version_id,
        path=path,
        bm25=BM25Index.load(path / "bm25"),
        version=read_version_file(path),
        filter_confidence=_filter_meta(path).get("filter_confidence", 1.0),
        store=store,
    )


FILTER_META = "filters.json"


def save_filter_meta(version_path: Path, filter_confidence: float) -> None:
    """What a reader must know to filter this version as it was built: its facet columns' confidence."""
    (version_path / FILTER_META).write_text(json.dumps({"filter_confidence": filter_confidence}), encoding="utf-8")


def _filter_meta(version_path: Path) -> dict:
    meta = version_path / FILTER_META
    return json.loads(meta.read_text(encoding="utf-8")) if meta.exists() else {}


def open_previous(version: IndexVersion, inputs_hash: str, root: IndexRoot | None = None) -> IndexSnapshot | None:
    """A committed version a build may take unchanged books from: complete, and built from the same inputs
    but the books (None otherwise, or for a folder that predates recording them). Its BM25 is not loaded.
    From an object-store `root`, what the local folder lacks is fetched first: the build links the previous
    LanceDB table's files, which a reader's copy leaves in the bucket, and a new machine has no copy at all."""
    path = Path(version.path)
    if root is not None and root.remote and not (version_exists(path) and (path / "lance").is_dir()):
        if not root.has_version(version.version_id):
            return None
        path = root.download(version.version_id, lance=True)
    if not version_exists(path) or not _whole_vector_files(path, version):
        return None
    inputs = json.loads((path / VERSION_FILE).read_text(encoding="utf-8")).get("inputs")
    return IndexSnapshot(version.version_id, path, version=version) if inputs == inputs_hash else None


def _whole_vector_files(path: Path, version: IndexVersion) -> bool:
    """Whether the version's vector files hold every row its record counts: a file cut short (a full disk, a
    fault) is not lent to the next build, which derives every book again instead of failing on it night
    after night."""
    for name, rows in ((SENTENCE_VECTORS_FILE, version.sentence_count), (BOOK_VECTORS_FILE, version.book_count)):
        try:
            with open(path / name, "rb") as fh:
                start = _npy_data_start(fh)
                if os.fstat(fh.fileno()).st_size != start + rows * version.embedding_dim * 4:
                    return False
        except (OSError, ValueError):
            return False
    return True


def open_current(root: IndexRoot) -> IndexSnapshot:
    """The committed version readers use (named by CURRENT); no DuckDB involved. From an object store, the
    version's files but its LanceDB tables are fetched into the local folder first, where it lacks them."""
    if root.remote:
        version_id = root.read_current()[0]
        if version_id is None:
            raise NoIndexError(f"no index has been built in {root.uri} yet: run `shelfwise index build`")
        path = root.local / version_id
        if not version_exists(path):
            root.download(version_id, lance=False)
            root.drop_pruned_copies(version_id)  # once per new version, not once per run
    else:
        pointer = root.local / CURRENT_FILE
        if not pointer.exists():
            raise NoIndexError("no index has been built yet: run `shelfwise index build`")
        version_id = pointer.read_text(encoding="utf-8").strip()
        path = root.local / version_id
    if not version_exists(path):
        raise NoIndexError(f"index {version_id} is incomplete or from an older Shelfwise: run `shelfwise index build`")
    return open_index(version_id, path, root if root.remote else None)
