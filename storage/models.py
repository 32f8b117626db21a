"""Records that storage reads and writes: what a book, a rejected row and an index version are."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class RejectedRow:
    """A source row that failed validation, kept with its reason."""

    source_file: str
    row_number: int
    field: str
    reason: str
    raw: dict


@dataclass(frozen=True)
class ImportWarning:
    """A value that could not be read as its field: the book was kept, the field left empty or cleaned."""

    source_file: str
    row_number: int
    field: str
    message: str
    value: str


@dataclass(frozen=True)
class ImportCounts:
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: int = 0
    warnings: int = 0
    overwritten: int = 0  # updated books that an earlier import had taken from another source file
    withdrawn: int = 0  # books the import took out of the catalog


@dataclass(frozen=True)
class IndexVersion:
    """One finished index build, as recorded in DuckDB."""

    version_id: str
    created_at: datetime
    path: str
    snapshot_hash: str
    book_count: int
    sentence_count: int
    embedder: str
    embedding_dim: int
    books_embedded: int
    sentences_embedded: int
    stage_seconds: dict[str, float]
    is_current: bool = False
