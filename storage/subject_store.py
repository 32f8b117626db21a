"""A version's subject index (tasks/catalog/subjects.py): subjects.parquet in the index version folder, so that it
is versioned and pruned with the version, and read by runs that never open DuckDB."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tasks.model.subjects import Subject

SUBJECTS_FILE = "subjects.parquet"
_SCHEMA_FIELDS = (("label", pa.string()), ("kind", pa.string()), ("language", pa.string()), ("books", pa.int64()),
                  ("field", pa.string()), ("values", pa.list_(pa.string())), ("aliases", pa.list_(pa.string())))


def write_subjects(version_path: Path, subjects: Sequence[Subject], vectors: np.ndarray) -> None:
    """The subjects and their vectors, row for row (a temporary name renamed: never half a file)."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)  # (subjects, dim): (0, dim) for a catalog without any
    dim = vectors.shape[1]
    schema = pa.schema([*_SCHEMA_FIELDS, ("vector", pa.list_(pa.float32(), dim))])
    columns = {name: [getattr(s, name) if not isinstance(getattr(s, name), tuple) else list(getattr(s, name))
                      for s in subjects] for name, _ in _SCHEMA_FIELDS}
    columns["vector"] = pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel(), pa.float32()), dim)
    temp = version_path / f".{SUBJECTS_FILE}.tmp"
    pq.write_table(pa.table(columns, schema=schema), temp)
    temp.replace(version_path / SUBJECTS_FILE)


def read_subjects(version_path: Path) -> tuple[tuple[Subject, ...], np.ndarray]:
    """The version's subjects and their vectors; none for a version built before there was a subject index."""
    path = version_path / SUBJECTS_FILE
    if not path.exists():
        return (), np.zeros((0, 0), dtype=np.float32)
    table = pq.read_table(path)
    rows = zip(*(table.column(name).to_pylist() for name, _ in _SCHEMA_FIELDS))
    subjects = tuple(Subject(label, kind, language, books, field, tuple(values), tuple(aliases or ()))
                     for label, kind, language, books, field, values, aliases in rows)
    column = table.column("vector").combine_chunks()
    vectors = (column.values.to_numpy(zero_copy_only=False).reshape(len(column), -1).astype(np.float32)
               if len(column) else np.zeros((0, 0), dtype=np.float32))
    return subjects, vectors
