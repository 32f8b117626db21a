"""Curators' verdicts read back from answered workbooks: the labels table, in the catalog's DuckDB file.

A label is one answer: a verdict and note on a shelved book, or the answer to a theme's review question
(book_id ''). Labels are only ever added. Importing a file whose hash is already known changes nothing; a
later import's label for the same batch, theme and book supersedes the earlier one, which stays (`seq`
orders them: two imports in one second still have an order). The shelves as the curator saw them are kept
too (`review_shelves`), so a reshelving can say what changed since the curator's version.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import duckdb

from tasks.model.review import ThemeReview

SCHEMA = """
CREATE TABLE IF NOT EXISTS workspace_identity (workspace_id VARCHAR PRIMARY KEY);
CREATE TABLE IF NOT EXISTS review_imports (
    seq INTEGER PRIMARY KEY,  -- import order: a later import supersedes an earlier one
    file_sha256 VARCHAR UNIQUE,
    batch_id VARCHAR,
    file_name VARCHAR,
    imported_at TIMESTAMP,
    labels INTEGER            -- labels this import added (0: every answer was already known)
);
CREATE TABLE IF NOT EXISTS review_labels (
    seq INTEGER,              -- review_imports.seq
    batch_id VARCHAR,
    theme_id VARCHAR,
    book_id VARCHAR,          -- '' for the answer to the theme's review question
    rank INTEGER,             -- the book's place on the curator's version of the shelf
    verdict VARCHAR,          -- keep | drop | replace | NULL (a note alone)
    note VARCHAR,
    answer VARCHAR,           -- the option chosen for the theme's question, as worded in the workbook
    action VARCHAR,           -- that option as JSON: what reshelving does with it
    paths VARCHAR,            -- JSON list: the recall paths that found the book
    reason_kinds VARCHAR,     -- JSON list: the kinds of reason the workbook gave for it
    path_scores VARCHAR,      -- JSON object: path -> [rank, score], what fusion saw
    file_sha256 VARCHAR,
    imported_at TIMESTAMP,
    PRIMARY KEY (seq, batch_id, theme_id, book_id)
);
CREATE TABLE IF NOT EXISTS review_shelves (  -- each imported workbook's shelves, as the curator saw them
    seq INTEGER,
    batch_id VARCHAR,
    theme_id VARCHAR,
    rank INTEGER,
    book_id VARCHAR,
    PRIMARY KEY (seq, batch_id, theme_id, rank)
);
"""


@dataclass(frozen=True)
class Label:
    """One answer of a curator, as stored."""

    batch_id: str
    theme_id: str
    book_id: str  # '' for a theme's question
    rank: int | None = None
    verdict: str | None = None
    note: str = ""
    answer: str = ""
    action: str = ""  # JSON, for an answer
    paths: tuple[str, ...] = ()
    reason_kinds: tuple[str, ...] = ()
    path_scores: str = "{}"  # JSON path -> [rank, score]

    def same_answer(self, other: Label) -> bool:
        return (self.verdict, self.note, self.answer, self.action) == (other.verdict, other.note, other.answer,
                                                                       other.action)


@dataclass(frozen=True)
class ShelfRow:
    """A book on a shelf as the workbook showed it."""

    theme_id: str
    rank: int
    book_id: str


@dataclass(frozen=True)
class ImportedLabels:
    batch_id: str
    added: int
    known: int  # answers already stored as they are
    already_imported: bool  # this very file was imported before: nothing was written


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def _label(row: Sequence) -> Label:
    b, t, book, rank, verdict, note, answer, action, paths, kinds, scores = row
    return Label(b, t, book, rank, verdict, note or "", answer or "", action or "", tuple(json.loads(paths or "[]")),
                 tuple(json.loads(kinds or "[]")), scores or "{}")


LABEL_COLUMNS = ("batch_id, theme_id, book_id, rank, verdict, note, answer, action, paths, reason_kinds, "
                 "path_scores")


class LabelsDB:
    """The labels on an open DuckDB connection; a read-only one only reads."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, read_only: bool = False):
        self.conn = conn
        self.read_only = read_only
        if not read_only:
            self.conn.execute(SCHEMA)

    def workspace_id(self) -> str:
        """This workspace's id, made on first use: a workbook carries it, so another workspace's is refused."""
        found = self._table_rows("workspace_identity", "SELECT workspace_id FROM workspace_identity")
        if found or self.read_only:
            return found[0][0] if found else ""
        new = uuid.uuid4().hex
        self.conn.execute("INSERT INTO workspace_identity VALUES (?)", [new])
        return new

    def _table_rows(self, table: str, sql: str, params: Sequence = ()) -> list[tuple]:
        # a read-only connection on a workspace that never imported answers has no such table
        exists = self.conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
                                   [table]).fetchall()[0][0]
        return self.conn.execute(sql, list(params)).fetchall() if exists else []

    def batch_known(self, batch_id: str) -> bool:
        """Whether the batch ever ran here (a workspace that never shelved has no batches table yet)."""
        return bool(self._table_rows("batches", "SELECT 1 FROM batches WHERE batch_id = ?", [batch_id]))

    def latest(self, batch_id: str | None = None) -> list[Label]:
        """The answer in force for each (batch, theme, book): the one of the latest import."""
        where = "WHERE batch_id = ?" if batch_id else ""
        rows = self._table_rows(
            "review_labels",
            f"SELECT {LABEL_COLUMNS} FROM review_labels {where} "
            "QUALIFY row_number() OVER (PARTITION BY batch_id, theme_id, book_id ORDER BY seq DESC) = 1 "
            "ORDER BY batch_id, theme_id, book_id", [batch_id] if batch_id else [])
        return [_label(r) for r in rows]

    def count(self) -> int:
        rows = self._table_rows("review_labels", "SELECT count(*) FROM review_labels")
        return rows[0][0] if rows else 0

    def curator_shelves(self, batch_id: str) -> dict[str, list[str]]:
        """theme id -> the book ids of its shelf in the latest imported workbook of the batch, in order."""
        rows = self._table_rows(
            "review_shelves",
            "SELECT theme_id, list(book_id ORDER BY rank) FROM review_shelves WHERE batch_id = ? AND seq = "
            "(SELECT max(seq) FROM review_shelves WHERE batch_id = ?) GROUP BY theme_id", [batch_id, batch_id])
        return {theme: list(ids) for theme, ids in rows}

    def reviews(self, batch_id: str) -> dict[str, ThemeReview]:
        """theme id -> the curators' answers in force for the batch's theme, ready to apply."""
        return theme_reviews(self.latest(batch_id), self.curator_shelves(batch_id))

    def add(self, file_sha256: str, file_name: str, batch_id: str, labels: Sequence[Label],
            shelves: Sequence[ShelfRow]) -> ImportedLabels:
        """Store one workbook's answers (inside the caller's transaction): only those that differ from the
        answer in force; nothing at all for a file already imported."""
        if self.conn.execute("SELECT count(*) FROM review_imports WHERE file_sha256 = ?",
                             [file_sha256]).fetchall()[0][0]:
            return ImportedLabels(batch_id, 0, len(labels), True)
        in_force = {(lb.theme_id, lb.book_id): lb for lb in self.latest(batch_id)}
        new = [lb for lb in labels if not (lb.theme_id, lb.book_id) in in_force
               or not lb.same_answer(in_force[(lb.theme_id, lb.book_id)])]
        seq = self.conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM review_imports").fetchall()[0][0]
        now = _now()
        self.conn.execute("INSERT INTO review_imports VALUES (?, ?, ?, ?, ?, ?)",
                          [seq, file_sha256, batch_id, file_name, now, len(new)])
        if new:
            self.conn.executemany(
                f"INSERT INTO review_labels (seq, {LABEL_COLUMNS}, file_sha256, imported_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [[seq, lb.batch_id, lb.theme_id, lb.book_id, lb.rank, lb.verdict, lb.note, lb.answer, lb.action,
                  json.dumps(list(lb.paths)), json.dumps(list(lb.reason_kinds)), lb.path_scores, file_sha256, now]
                 for lb in new])
        if shelves:
            self.conn.executemany("INSERT INTO review_shelves VALUES (?, ?, ?, ?, ?)",
                                  [[seq, batch_id, s.theme_id, s.rank, s.book_id] for s in shelves])
        return ImportedLabels(batch_id, len(new), len(labels) - len(new), False)


def theme_reviews(labels: Sequence[Label], shelves: dict[str, list[str]]) -> dict[str, ThemeReview]:
    """theme id -> its review, from a batch's labels in force and the curator's version of each shelf."""
    by_theme: dict[str, list[Label]] = {}
    for label in labels:
        by_theme.setdefault(label.theme_id, []).append(label)
    reviews = {}
    for theme_id, own in by_theme.items():
        books = [lb for lb in own if lb.book_id]
        question = next((lb for lb in own if not lb.book_id and lb.action), None)
        reviews[theme_id] = ThemeReview(
            pinned={lb.book_id: lb.rank or 1 for lb in books if lb.verdict == "keep"},
            dropped=frozenset(lb.book_id for lb in books if lb.verdict == "drop"),
            replaced=frozenset(lb.book_id for lb in books if lb.verdict == "replace"),
            action=json.loads(question.action) if question else {},
            answer=question.answer if question else "",
            previous=tuple(shelves.get(theme_id, ())))
    return reviews
