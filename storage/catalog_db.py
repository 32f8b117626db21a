"""The DuckDB catalog: books, rejected rows, caches and index versions.

All DuckDB reads and writes go through CatalogDB. DuckDB allows one read-write process or several
read-only ones, never both: writers hold the workspace lock (storage/workspace_lock.py) as well, and
read-only commands open the file read_only. An open that meets the other kind is retried for a few
seconds, then fails with CatalogBusy naming who holds the file.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from sys import intern
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from storage.models import ImportCounts, ImportWarning, IndexVersion, RejectedRow
from storage.workspace_lock import current_holder
from tasks.model.books import BookRecord, Facet, shared_facet

if TYPE_CHECKING:  # duckdb is imported by the commands that open the catalog, not by those that read an index
    import duckdb

BUSY_RETRY_SECONDS = 10.0  # readers (status, try) hold the file for seconds: a writer waits them out
# DuckDB's buffer pool may grow to 80% of the machine's memory by default; an index build reads every cached
# vector once (300k summary sentences at 100k books), and the pool kept them: peak RSS 4.1 GB with it, 2.8 GB
# with this cap (docs/measurements.md). Larger work spills to the database's temp directory.
MEMORY_LIMIT_MB = 512
MEMORY_LIMIT = f"{MEMORY_LIMIT_MB}MB"
# ... and keeps them up to that cap after the read: lowering the cap is how DuckDB is told to evict
# (its maintainers' advice, duckdb/duckdb#5455); a build gives the pool back after each scan of the cache.
RELEASED_LIMIT = "32MB"
READ_BATCH = 4096  # rows fetched at a time: every raw row of 100k books at once held 500 MB the process kept
WRITE_BATCH = 8192  # books whose derived facets or tokens are written per statement

SCHEMA = """
CREATE TABLE IF NOT EXISTS books (
    book_id VARCHAR PRIMARY KEY,
    isbn VARCHAR,
    title VARCHAR NOT NULL,
    subtitle VARCHAR,
    authors VARCHAR[],
    publisher VARCHAR,
    pub_year INTEGER,
    language VARCHAR,
    call_no VARCHAR,
    summary VARCHAR,
    author_intro VARCHAR,
    toc VARCHAR,
    tags VARCHAR,            -- JSON {dimension: [value, ...]}, as the source gave them
    tag_origin VARCHAR,      -- 'source' | 'enriched' | NULL (untagged)
    rating DOUBLE,
    rating_count INTEGER,
    pages INTEGER,
    copies_available INTEGER,
    content_hash VARCHAR NOT NULL,
    source_file VARCHAR,
    updated_at TIMESTAMP
);
-- Added after the first release: older workspaces gain them in place.
ALTER TABLE books ADD COLUMN IF NOT EXISTS subjects VARCHAR[];
ALTER TABLE books ADD COLUMN IF NOT EXISTS classification VARCHAR[];
ALTER TABLE books ADD COLUMN IF NOT EXISTS edition VARCHAR;
ALTER TABLE books ADD COLUMN IF NOT EXISTS series VARCHAR;
ALTER TABLE books ADD COLUMN IF NOT EXISTS original_title VARCHAR;
ALTER TABLE books ADD COLUMN IF NOT EXISTS facets VARCHAR;   -- JSON [{dimension, value, confidence, origin, because}]
ALTER TABLE books ADD COLUMN IF NOT EXISTS work_id VARCHAR;  -- set by the index build: editions share it
ALTER TABLE books ADD COLUMN IF NOT EXISTS credits VARCHAR[];
ALTER TABLE books ADD COLUMN IF NOT EXISTS original_language VARCHAR;
ALTER TABLE books ADD COLUMN IF NOT EXISTS material VARCHAR;  -- config/materials.yaml; NULL: the record does not say
ALTER TABLE books ADD COLUMN IF NOT EXISTS coded VARCHAR[];   -- "marc21_literary_form:p", read by the crosswalk
CREATE TABLE IF NOT EXISTS import_warnings (
    source_file VARCHAR,
    row_number INTEGER,
    field VARCHAR,
    message VARCHAR,
    value VARCHAR,
    warned_at TIMESTAMP,
    PRIMARY KEY (source_file, row_number, field)
);
CREATE TABLE IF NOT EXISTS rejected_rows (
    source_file VARCHAR,
    row_number INTEGER,
    field VARCHAR,
    reason VARCHAR,
    raw VARCHAR,
    rejected_at TIMESTAMP,
    PRIMARY KEY (source_file, row_number, reason)
);
-- Books withdrawn from the catalog (a deletion, a full export without them, `catalog remove`): off every later
-- shelf and out of the next index build; shelf history keeps their ids, and this table their last record.
CREATE TABLE IF NOT EXISTS withdrawn_books (
    book_id VARCHAR PRIMARY KEY,
    record VARCHAR,          -- JSON of the book's row when it was withdrawn
    withdrawn_by VARCHAR,    -- the file or command that withdrew it
    withdrawn_at TIMESTAMP
);
CREATE TABLE IF NOT EXISTS embedding_cache (
    model VARCHAR,
    text_hash VARCHAR,
    vector FLOAT[],
    PRIMARY KEY (model, text_hash)
);
CREATE TABLE IF NOT EXISTS bm25_tokens (
    book_id VARCHAR PRIMARY KEY,
    analysis_key VARCHAR,    -- content hash + analyzer settings the tokens were made with
    tokens VARCHAR[]
);
CREATE TABLE IF NOT EXISTS index_versions (
    version_id VARCHAR PRIMARY KEY,
    created_at TIMESTAMP,
    path VARCHAR,
    snapshot_hash VARCHAR,
    book_count INTEGER,
    sentence_count INTEGER,
    embedder VARCHAR,
    embedding_dim INTEGER,
    books_embedded INTEGER,
    sentences_embedded INTEGER,
    stage_seconds VARCHAR,
    is_current BOOLEAN
);
CREATE TABLE IF NOT EXISTS indexed_books (
    book_id VARCHAR PRIMARY KEY,
    content_hash VARCHAR
);
"""

BOOK_COLUMNS = (
    "book_id", "isbn", "title", "subtitle", "authors", "publisher", "pub_year", "language",
    "call_no", "summary", "author_intro", "toc", "tags", "tag_origin", "rating",
    "rating_count", "pages", "copies_available", "content_hash", "source_file", "updated_at",
    "subjects", "classification", "edition", "series", "original_title", "facets", "work_id",
    "credits", "original_language", "material", "coded",
)


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def book_to_row(book: BookRecord, source_file: str | None, updated_at: datetime | None, facets: bool = True) -> dict:
    """A book as a row of the books table (also the row of an index version's book snapshot, which stores the
    facets apart: `facets` false leaves them out)."""
    return {
        "book_id": book.book_id,
        "isbn": book.isbn,
        "title": book.title,
        "subtitle": book.subtitle,
        "authors": list(book.authors),
        "publisher": book.publisher,
        "pub_year": book.pub_year,
        "language": book.language,
        "call_no": book.call_no,
        "summary": book.summary,
        "author_intro": book.author_intro,
        "toc": book.toc,
        "tags": json.dumps({d: list(v) for d, v in book.tags.items()}, ensure_ascii=False),
        "tag_origin": book.tag_origin,
        "subjects": list(book.subjects),
        "classification": list(book.classification),
        "edition": book.edition,
        "series": book.series,
        "original_title": book.original_title,
        "credits": list(book.credits),
        "original_language": book.original_language,
        "material": book.material,
        "coded": list(book.coded),
        "facets": _facets_json(book.facets) if facets else None,
        "work_id": book.work_id or None,
        "rating": book.rating,
        "rating_count": book.rating_count,
        "pages": book.pages,
        "copies_available": book.copies_available,
        "content_hash": book.content_hash,
        "source_file": source_file,
        "updated_at": updated_at,
    }


def _facets_json(facets) -> str | None:
    return f"[{', '.join(_facet_json(f) for f in facets)}]" if facets else None


@lru_cache(maxsize=1 << 16)
def _facet_json(facet: Facet) -> str:
    """A facet as JSON, written once per distinct facet: 100k books share a few thousand (shared_facet)."""
    return json.dumps(facet.to_dict(), ensure_ascii=False)


def row_to_book(row: dict, facets: tuple[Facet, ...] | None = None) -> BookRecord:
    """The book of a books-table row, as book_to_row wrote it; `facets` where they were stored apart (an index
    version's snapshot)."""
    # Tag values and small codes repeat across 100k books: one shared string each, not one per book (150 MB).
    tags = json.loads(row["tags"]) if row["tags"] else {}
    return BookRecord(
        book_id=row["book_id"],
        title=row["title"],
        isbn=row["isbn"],
        subtitle=row["subtitle"],
        authors=tuple(row["authors"] or ()),
        publisher=row["publisher"],
        pub_year=row["pub_year"],
        language=intern(row["language"]) if row["language"] else row["language"],
        call_no=row["call_no"],
        summary=row["summary"],
        author_intro=row["author_intro"],
        toc=row["toc"],
        tags={intern(d): tuple(intern(x) for x in v) for d, v in tags.items()},
        rating=row["rating"],
        rating_count=row["rating_count"],
        pages=row["pages"],
        copies_available=row["copies_available"],
        tag_origin=intern(row["tag_origin"]) if row["tag_origin"] else None,
        subjects=tuple(row["subjects"] or ()),
        classification=tuple(row["classification"] or ()),
        edition=row["edition"],
        series=row["series"],
        original_title=row["original_title"],
        credits=tuple(row["credits"] or ()),
        original_language=row["original_language"],
        material=intern(row["material"]) if row["material"] else None,
        coded=tuple(intern(c) for c in row["coded"] or ()),
        facets=facets if facets is not None else tuple(
            shared_facet(f["dimension"], f["value"], f["confidence"], f["origin"], f.get("because", ""))
            for f in json.loads(row["facets"])) if row["facets"] else (),
        work_id=row["work_id"] or row["book_id"],
        content_hash=row["content_hash"],
        updated_at=row["updated_at"],
    )


class CatalogBusy(RuntimeError):
    """The catalog file stayed locked by another process for longer than the caller would wait."""


class CatalogMissing(RuntimeError):
    """A read-only command found no catalog in the workspace."""


class CatalogUnreadable(RuntimeError):
    """The catalog file is there but DuckDB cannot open it (damaged, truncated, or not a DuckDB file)."""


class CatalogDB:
    """One open DuckDB catalog."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, path: Path, read_only: bool = False):
        self.conn = conn
        self.path = path
        self.read_only = read_only
        if not read_only:
            self.conn.execute(SCHEMA)

    @property
    def workspace(self) -> Path:
        """The folder the catalog lives in; index version paths are stored relative to it."""
        return self.path.parent

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.conn.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def has_table(self, name: str) -> bool:
        """True when the catalog has the table (a read-only open creates none)."""
        return bool(self.conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
                                      [name]).fetchone()[0])

    # ---- books -----------------------------------------------------------------------------

    def existing_hashes(self) -> dict[str, str]:
        rows = self.conn.execute("SELECT book_id, content_hash FROM books").fetchall()
        return dict(rows)

    def import_books(self, books: Sequence[BookRecord], rejected: Sequence[RejectedRow], source_file: str,
                     warnings: Sequence[ImportWarning] = (), withdraw: Sequence[str] = ()) -> ImportCounts:
        """Upsert valid books, withdraw the books `withdraw` names, record rejected rows and warnings, in one
        transaction."""
        existing = dict(((b, (h, f)) for b, h, f in
                         self.conn.execute("SELECT book_id, content_hash, source_file FROM books").fetchall()))
        changed = [b for b in books if existing.get(b.book_id, ("", ""))[0] != b.content_hash]
        inserted = sum(1 for b in changed if b.book_id not in existing)
        overwritten = sum(1 for b in changed if b.book_id in existing and existing[b.book_id][1] != source_file)
        now = _now()
        with self.transaction():
            if changed:
                table = pa.Table.from_pylist([book_to_row(b, source_file, now) for b in changed])
                self.conn.register("incoming_books", table)
                # Facets and works are the build's: an import leaves them to the next build to recompute.
                cols = ", ".join(c for c in BOOK_COLUMNS if c not in ("facets", "work_id"))
                updates = ", ".join(f"{c} = excluded.{c}" for c in BOOK_COLUMNS
                                    if c not in ("book_id", "facets", "work_id"))
                self.conn.execute(
                    f"INSERT INTO books ({cols}) SELECT {cols} FROM incoming_books "
                    f"ON CONFLICT (book_id) DO UPDATE SET {updates}"
                )
                self.conn.unregister("incoming_books")
            if books:  # a book imported again is back in the catalog
                self.conn.execute("DELETE FROM withdrawn_books WHERE book_id IN (SELECT unnest(?))",
                                  [[b.book_id for b in books]])
            self.record_rejected(rejected, now)
            self._record_warnings(warnings, now)
            withdrawn = self._withdraw(withdraw, source_file, now)
        return ImportCounts(
            inserted=inserted,
            updated=len(changed) - inserted,
            unchanged=len(books) - len(changed),
            rejected=len(rejected),
            warnings=len(warnings),
            overwritten=overwritten,
            withdrawn=withdrawn,
        )

    def withdraw(self, book_ids: Sequence[str], by: str) -> int:
        """Withdraw the books (one transaction); how many were in the catalog."""
        with self.transaction():
            return self._withdraw(book_ids, by, _now())

    def _withdraw(self, book_ids: Sequence[str], by: str, now: datetime) -> int:
        if not book_ids:
            return 0
        ids = [list(dict.fromkeys(book_ids))]
        self.conn.execute(
            "INSERT OR REPLACE INTO withdrawn_books SELECT book_id, to_json(books)::VARCHAR, ?, ? FROM books "
            "WHERE book_id IN (SELECT unnest(?))", [by, now, *ids])
        return self.conn.execute("DELETE FROM books WHERE book_id IN (SELECT unnest(?))", ids).fetchone()[0]

    def book_ids(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT book_id FROM books").fetchall()}

    def withdrawn_ids(self) -> frozenset[str]:
        """Every book withdrawn and not imported since (none in a catalog older than withdrawal)."""
        if not self.has_table("withdrawn_books"):
            return frozenset()
        return frozenset(r[0] for r in self.conn.execute("SELECT book_id FROM withdrawn_books").fetchall())

    def _record_warnings(self, warnings: Sequence[ImportWarning], now: datetime) -> None:
        """Keep each warning once per (file, row, field); a re-import adds none."""
        if not warnings:
            return
        table = pa.Table.from_pylist([
            {"source_file": w.source_file, "row_number": w.row_number, "field": w.field, "message": w.message,
             "value": w.value, "warned_at": now} for w in warnings])
        self.conn.register("incoming_warnings", table)
        self.conn.execute("INSERT INTO import_warnings SELECT * FROM incoming_warnings ON CONFLICT DO NOTHING")
        self.conn.unregister("incoming_warnings")

    def import_warnings(self, source_file: str | None = None) -> list[ImportWarning]:
        sql = "SELECT source_file, row_number, field, message, value FROM import_warnings"
        params: list = []
        if source_file is not None:
            sql += " WHERE source_file = ?"
            params.append(source_file)
        rows = self.conn.execute(sql + " ORDER BY source_file, row_number, field", params).fetchall()
        return [ImportWarning(*r) for r in rows]

    def record_rejected(self, rejected: Sequence[RejectedRow], now: datetime | None = None) -> None:
        """Keep rows that failed validation, once per (file, row, reason)."""
        now = now or _now()
        if not rejected:
            return
        table = pa.Table.from_pylist([
            {
                "source_file": r.source_file,
                "row_number": r.row_number,
                "field": r.field,
                "reason": r.reason,
                "raw": json.dumps(r.raw, ensure_ascii=False, default=str),
                "rejected_at": now,
            }
            for r in rejected
        ])
        self.conn.register("incoming_rejected", table)
        self.conn.execute(
            "INSERT INTO rejected_rows SELECT * FROM incoming_rejected ON CONFLICT DO NOTHING"
        )
        self.conn.unregister("incoming_rejected")

    def load_books(self, derived: bool = True) -> list[BookRecord]:
        """Every book, ordered by book_id so that builds are deterministic; without the facets the last build
        derived unless `derived` (a build derives them again: parsing them is a third of the read).

        Read a batch of rows at a time and sorted here: DuckDB's sort and a list of every raw row would
        hold 500 MB more at 100k books, which the process keeps once it has it.
        """
        columns = BOOK_COLUMNS if derived else tuple("NULL AS facets" if c == "facets" else c for c in BOOK_COLUMNS)
        cursor = self.conn.execute(f"SELECT {', '.join(columns)} FROM books")
        names = [d[0] for d in cursor.description]
        books: list[BookRecord] = []
        while rows := cursor.fetchmany(READ_BATCH):
            books += [row_to_book(dict(zip(names, row))) for row in rows]
        books.sort(key=lambda b: b.book_id)
        return books

    def save_facets(self, facets: dict[str, tuple[Facet, ...]], work_ids: dict[str, str]) -> None:
        """Store what the build derived for each book: its facets and its work. Source tags are not touched.

        One transaction, written a batch of books at a time: the JSON of 100k books' facets at once is 250 MB.
        """
        book_ids = sorted(set(facets) | set(work_ids))
        if not book_ids:
            return
        # DuckDB holds an UPDATE's new values in memory until its transaction commits (they do not spill to disk
        # as inserted rows do): a full build of 1M books failed at this write, over MEMORY_LIMIT
        # (benchmarks/scale_1m.py). The cap grows by twice the bytes this transaction writes, and is given back.
        written = sum(sum(len(_facet_json(f)) for f in facets.get(b, ())) + len(work_ids.get(b) or "")
                      for b in book_ids)
        self.conn.execute(f"SET memory_limit = '{MEMORY_LIMIT_MB + 2 * written // 2**20}MB'")
        try:
            with self.transaction():
                for start in range(0, len(book_ids), WRITE_BATCH):
                    table = pa.Table.from_pylist([
                        {"book_id": book_id, "facets": _facets_json(facets.get(book_id, ())),
                         "work_id": work_ids.get(book_id)}
                        for book_id in book_ids[start:start + WRITE_BATCH]
                    ])
                    self.conn.register("derived", table)
                    self.conn.execute(
                        "UPDATE books SET facets = derived.facets, work_id = derived.work_id, "
                        "tag_origin = CASE WHEN books.tag_origin = 'source' THEN 'source' "
                        "WHEN derived.facets IS NULL THEN NULL ELSE 'enriched' END "
                        "FROM derived WHERE books.book_id = derived.book_id"
                    )
                    self.conn.unregister("derived")
            self.conn.execute("CHECKPOINT")  # the committed values stay in memory, over the cap, until written
        finally:
            self.release_buffers()  # and MEMORY_LIMIT again

    def rejected_rows(self, source_file: str | None = None) -> list[RejectedRow]:
        sql = "SELECT source_file, row_number, field, reason, raw FROM rejected_rows"
        params: list = []
        if source_file is not None:
            sql += " WHERE source_file = ?"
            params.append(source_file)
        rows = self.conn.execute(sql + " ORDER BY source_file, row_number", params).fetchall()
        return [RejectedRow(f, n, fld, reason, json.loads(raw)) for f, n, fld, reason, raw in rows]

    # ---- caches ------------------------------------------------------------------------------

    def stream_cached_vectors(self, model: str, text_hashes: Sequence[str],
                              batch_rows: int = 16_384) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(positions in text_hashes, vectors) of the ones `model` has cached, a batch at a time, in no set order.

        One scan of the cache whatever the number of hashes (a join per chunk of 16k rescanned the
        whole table: 8.7 s against 2.3 s for 300k sentences), and no more than a batch in memory.
        """
        if not len(text_hashes):
            return
        wanted = pa.table({"text_hash": pa.array(text_hashes, pa.string()),
                           "row": pa.array(np.arange(len(text_hashes), dtype=np.int64))})
        self.conn.register("wanted_hashes", wanted)
        try:
            reader = self.conn.sql(
                "SELECT w.row, c.vector FROM embedding_cache c JOIN wanted_hashes w USING (text_hash) "
                "WHERE c.model = $model", params={"model": model},
            ).to_arrow_reader(batch_rows)
            for batch in reader:
                if batch.num_rows:
                    vectors = batch.column("vector").flatten().to_numpy(zero_copy_only=False)
                    yield (batch.column("row").to_numpy(),
                           vectors.astype(np.float32, copy=False).reshape(batch.num_rows, -1))
        finally:
            self.conn.unregister("wanted_hashes")
            self.release_buffers()

    def release_buffers(self) -> None:
        """Let DuckDB's buffer pool give back the blocks it no longer needs (a scan leaves up to MEMORY_LIMIT)."""
        import duckdb

        try:
            self.conn.execute(f"SET memory_limit = '{RELEASED_LIMIT}'")
        except duckdb.Error:
            pass  # blocks still pinned by an open result: they are evicted at the next release
        finally:
            self.conn.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")

    def store_vectors(self, model: str, text_hashes: Sequence[str], vectors: np.ndarray) -> None:
        if not len(text_hashes):
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        table = pa.table({
            "model": pa.array([model] * len(text_hashes), pa.string()),
            "text_hash": pa.array(list(text_hashes), pa.string()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), vectors.shape[1]).cast(
                pa.list_(pa.float32())
            ),
        })
        self.conn.register("new_vectors", table)
        with self.transaction():
            self.conn.execute("INSERT INTO embedding_cache SELECT * FROM new_vectors ON CONFLICT DO NOTHING")
        self.conn.unregister("new_vectors")

    def prune_embedding_cache(self, model: str, hashes: Sequence[str], keep: bool = True) -> int:
        """Delete `model`'s cached vectors of texts not in `hashes` (texts that changed), or with `keep` false of
        the texts in `hashes`; returns how many."""
        table = pa.table({"text_hash": pa.array(sorted(set(hashes)), pa.string())})
        self.conn.register("pruned_hashes", table)
        try:
            with self.transaction():
                deleted = self.conn.execute(
                    "DELETE FROM embedding_cache WHERE model = $model "
                    f"AND text_hash {'NOT IN' if keep else 'IN'} (SELECT text_hash FROM pruned_hashes)",
                    {"model": model}).fetchone()
        finally:
            self.conn.unregister("pruned_hashes")
        return int(deleted[0]) if deleted else 0

    def cached_tokens(self) -> dict[str, tuple[str, list[str]]]:
        """book_id -> (analysis_key, tokens) for every book tokenized before.

        Each distinct token is one shared string: 100k books hold 6M tokens of a few thousand words.
        """
        cursor = self.conn.execute("SELECT book_id, analysis_key, tokens FROM bm25_tokens")
        stored: dict[str, tuple[str, list[str]]] = {}
        while rows := cursor.fetchmany(READ_BATCH):
            stored.update((book_id, (key, [intern(t) for t in tokens])) for book_id, key, tokens in rows)
        self.release_buffers()
        return stored

    def store_tokens(self, tokens_by_book: dict[str, tuple[str, list[str]]], live_ids: set[str]) -> None:
        """Save fresh tokens and forget books no longer in the catalog.

        A batch of books at a time, each replaced by a delete and an insert: one upsert of 100k books' token
        lists (a full rebuild) ran out of DuckDB's memory, and a batched upsert took 17 s against 1.
        """
        books = list(tokens_by_book.items())
        with self.transaction():
            for start in range(0, len(books), WRITE_BATCH):
                table = pa.Table.from_pylist([{"book_id": b, "analysis_key": key, "tokens": toks}
                                              for b, (key, toks) in books[start:start + WRITE_BATCH]])
                self.conn.register("new_tokens", table)
                self.conn.execute("DELETE FROM bm25_tokens WHERE book_id IN (SELECT book_id FROM new_tokens)")
                self.conn.execute("INSERT INTO bm25_tokens SELECT * FROM new_tokens")
                self.conn.unregister("new_tokens")
            live = pa.table({"book_id": pa.array(sorted(live_ids), pa.string())})
            self.conn.register("live_ids", live)
            self.conn.execute("DELETE FROM bm25_tokens WHERE book_id NOT IN (SELECT book_id FROM live_ids)")
            self.conn.unregister("live_ids")
        self.release_buffers()

    # ---- index versions ----------------------------------------------------------------------

    def commit_index_version(self, version: IndexVersion, content_hashes: dict[str, str]) -> None:
        """Make `version` the current index, atomically with the book states it indexed."""
        live = pa.table({
            "book_id": pa.array(list(content_hashes), pa.string()),
            "content_hash": pa.array(list(content_hashes.values()), pa.string()),
        })
        self.conn.register("indexed_now", live)
        with self.transaction():
            self.conn.execute("UPDATE index_versions SET is_current = false WHERE is_current")
            self.conn.execute(
                "INSERT INTO index_versions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, true)",
                [
                    version.version_id, version.created_at, self._stored_path(version.path), version.snapshot_hash,
                    version.book_count, version.sentence_count, version.embedder,
                    version.embedding_dim, version.books_embedded, version.sentences_embedded,
                    json.dumps(version.stage_seconds),
                ],
            )
            # Only the rows that differ: rewriting 100k unchanged rows took 3 s of an incremental build.
            self.conn.execute("DELETE FROM indexed_books i WHERE NOT EXISTS (SELECT 1 FROM indexed_now n "
                              "WHERE n.book_id = i.book_id AND n.content_hash IS NOT DISTINCT FROM i.content_hash)")
            self.conn.execute("INSERT INTO indexed_books SELECT * FROM indexed_now n WHERE NOT EXISTS "
                              "(SELECT 1 FROM indexed_books i WHERE i.book_id = n.book_id)")
        self.conn.unregister("indexed_now")

    def index_versions(self) -> list[IndexVersion]:
        cursor = self.conn.execute(
            "SELECT version_id, created_at, path, snapshot_hash, book_count, sentence_count, embedder, "
            "embedding_dim, books_embedded, sentences_embedded, stage_seconds, is_current "
            "FROM index_versions ORDER BY created_at DESC, version_id DESC"
        )
        return [
            IndexVersion(
                version_id=r[0], created_at=r[1], path=self._resolved_path(r[0], r[2]), snapshot_hash=r[3],
                book_count=r[4],
                sentence_count=r[5], embedder=r[6], embedding_dim=r[7], books_embedded=r[8],
                sentences_embedded=r[9], stage_seconds=json.loads(r[10]), is_current=r[11],
            )
            for r in cursor.fetchall()
        ]

    def _stored_path(self, path: str) -> str:
        """A version folder inside the workspace is stored relative to it, so a moved workspace still finds it."""
        folder = Path(path)
        try:
            return folder.resolve().relative_to(self.workspace.resolve()).as_posix()
        except ValueError:
            return str(folder)

    def _resolved_path(self, version_id: str, stored: str) -> str:
        """The folder of a version: relative paths against the workspace; an absolute one written before
        paths were stored relative, as the same version in this workspace when it is here."""
        folder = Path(stored)
        if not folder.is_absolute():
            return str(self.workspace / folder)
        moved = self.workspace / "indexes" / version_id
        return str(moved) if not folder.exists() and moved.exists() else stored

    def current_index_version(self) -> IndexVersion | None:
        return next((v for v in self.index_versions() if v.is_current), None)

    def books_changed_since_build(self) -> dict[str, int]:
        """How the catalog differs from what the current index holds."""
        added, changed = self.conn.execute(
            "SELECT count(*) FILTER (WHERE i.book_id IS NULL), "
            "count(*) FILTER (WHERE i.book_id IS NOT NULL AND i.content_hash <> b.content_hash) "
            "FROM books b LEFT JOIN indexed_books i USING (book_id)"
        ).fetchone()
        removed = self.conn.execute(
            "SELECT count(*) FROM indexed_books WHERE book_id NOT IN (SELECT book_id FROM books)"
        ).fetchone()[0]
        return {"added": added, "changed": changed, "removed": removed}

    def catalog_counts(self) -> dict[str, int]:
        books, tagged_source, tagged_enriched = self.conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE tag_origin = 'source'), "
            "count(*) FILTER (WHERE tag_origin = 'enriched') FROM books"
        ).fetchone()
        rejected = self.conn.execute("SELECT count(*) FROM rejected_rows").fetchone()[0]
        withdrawn = len(self.withdrawn_ids())
        warnings = self.conn.execute("SELECT count(*) FROM import_warnings").fetchone()[0]
        by_language = dict(self.conn.execute(
            "SELECT coalesce(language, '?'), count(*) FROM books GROUP BY 1 ORDER BY 2 DESC"
        ).fetchall())
        return {
            "books": books, "tagged_in_source": tagged_source, "tagged_by_enrichment": tagged_enriched,
            "withdrawn": withdrawn, "rejected_rows": rejected, "import_warnings": warnings, **{f"language_{k}": v for k, v in by_language.items()},
        }


@contextmanager
def open_catalog(path: Path, read_only: bool = False,
                 retry_seconds: float = BUSY_RETRY_SECONDS) -> Iterator[CatalogDB]:
    """Open the catalog database at `path` (a writer creates it); retried while another process holds it."""
    if read_only and not path.exists():
        raise CatalogMissing(f"no catalog at {path} yet: import one with `shelfwise catalog import FILE`")
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    conn = _connect(path, read_only, retry_seconds)
    try:
        yield CatalogDB(conn, path, read_only)
    finally:
        conn.close()


_LOCK_HELD = re.compile(r"Conflicting lock is held in (?P<program>.*?) \(PID (?P<pid>\d+)\)")


def _connect(path: Path, read_only: bool, retry_seconds: float) -> duckdb.DuckDBPyConnection:
    import duckdb

    deadline = time.monotonic() + retry_seconds
    delay = 0.05
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only, config={"memory_limit": MEMORY_LIMIT})
        except duckdb.IOException as err:
            held = _LOCK_HELD.search(str(err))
            if held is None:
                message = str(err).splitlines()[0].removeprefix("IO Error: ")
                raise CatalogUnreadable(f"catalog {path} cannot be opened ({message}); restore it from a backup, "
                                        "or move it aside and import the catalog again") from None
            if time.monotonic() >= deadline:
                raise CatalogBusy(f"catalog {path} is busy: {_who(path, int(held['pid']))} has it open; "
                                  f"try again when it finishes") from None
        time.sleep(delay)
        delay = min(delay * 2, 1.0)


def _who(path: Path, pid: int) -> str:
    """The process holding the DuckDB file, named as the workspace lock's holder describes itself."""
    holder = current_holder(path.parent)
    if holder is not None and holder.pid == pid:
        return holder.describe()
    return f"process {pid}"
