"""The filter language: a small typed expression tree, one evaluator, its column form and its LanceDB compiler.

A ThemeQuery's hard constraints compile to one tree. The BM25 path and the final check before export run
the Python evaluator on one book; the vector path takes a mask over every book at once from the columns
(FilterColumns) or, above the size searched exactly, runs the tree as a LanceDB prefilter. A property test
on a real LanceDB table keeps the three in agreement, including on missing values: a comparison with a missing
number is false, so NOT of it is true, in Python and in SQL alike. Every value reaches SQL as an
escaped literal, never pasted raw.

HasAny names a field: a facet (a vocabulary dimension, `form`, `audience`), held with at least the
index's filter confidence; or `author`, `work`, `subject` (a word or phrase of one subject heading, or
of the title where a record has none), `heading` (a whole heading or heading part), `classification` (a code prefix, "clc:I24"; a range of codes is a set
of prefixes, config/class_ranges.yaml) or `language`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from storage.sql import sql_string, tag_column
from tasks.model.books import BookRecord, Facet
from tasks.model.constraints import (
    COMPARE_OPS,
    EVERYTHING,
    NUMERIC_FIELDS,
    TERM_FIELDS,
    All,
    AnyOf,
    Compare,
    Expr,
    HasAny,
    Not,
    class_code,
    subject_terms,
)

_NO_ROWS = np.zeros(0, np.int64)

# ---- evaluation ----------------------------------------------------------------------------------


# ---- columns ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FilterColumns:
    """Every book's filter fields held column-wise, in the index's book order: a tree becomes one boolean
    mask over all books in a few array operations, where the evaluator would take a Python call per book."""

    book_ids: tuple[str, ...]
    numbers: Mapping[str, np.ndarray]  # numeric field -> float64 values, NaN where the book has none
    postings: Mapping[tuple[str, str], list[tuple[Sequence[int], float]]]  # (field, value) -> [(rows, confidence)]
    subject_texts: tuple[str, ...]
    _arrays: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, books: Sequence[BookRecord],
              facet_rows: Mapping[Facet, Sequence[int]] | None = None) -> FilterColumns:
        """The columns of these books, in this order. `facet_rows` (each facet's rows, as an index version
        stores them) spares walking 1.2M facets at 100k books."""
        sure: dict[tuple[str, str], list[int]] = defaultdict(list)  # (field, value) -> rows holding it surely
        guessed: dict[int, tuple[Facet, list[int]]] = {}  # facets are shared objects (storage): grouped by identity
        for row, book in enumerate(books):
            sure[("work", book.work_id or book.book_id)].append(row)
            if book.language:
                sure[("language", book.language)].append(row)
            for key in [*(("author", a) for a in book.authors), *(("classification", p) for p in book.class_prefixes),
                        *((d, v) for d, values in book.tags.items() for v in values)]:
                sure[key].append(row)
            if facet_rows is None:
                for facet in book.facets:
                    guessed.setdefault(id(facet), (facet, []))[1].append(row)
        postings: dict[tuple[str, str], list[tuple[Sequence[int], float]]] = {
            key: [(rows, 1.0)] for key, rows in sure.items()}
        held = facet_rows.items() if facet_rows is not None else guessed.values()
        for facet, rows in held:
            postings.setdefault((facet.dimension, facet.value), []).append((rows, facet.confidence))
        numbers = {name: np.array([np.nan if getattr(b, name) is None else getattr(b, name) for b in books],
                                  dtype=np.float64) for name in NUMERIC_FIELDS}
        return cls(tuple(b.book_id for b in books), numbers, postings, tuple(b.subject_text for b in books))

    def __len__(self) -> int:
        return len(self.book_ids)

    def has_any(self, expr: HasAny) -> np.ndarray:
        """Which books hold one of the values (a facet with at least the condition's confidence)."""
        found = np.zeros(len(self), dtype=bool)
        if expr.field == "heading":
            for term in subject_terms(expr.field, expr.values):
                found[self._heading_rows.get(term, _NO_ROWS)] = True
            return found
        if expr.field == "subject":
            joined, starts = self._subject_index
            for term in subject_terms(expr.field, expr.values):
                at = [m.start() for m in re.finditer(re.escape(term), joined)]
                found[np.searchsorted(starts, at, side="right") - 1] = True
            return found
        values = map(class_code, expr.values) if expr.field == "classification" else expr.values
        floor = expr.min_confidence if expr.field not in TERM_FIELDS else 0.0
        for value in values:
            rows, confidences = self._posting(expr.field, value)
            found[rows[confidences >= floor]] = True
        return found

    @cached_property
    def _subject_index(self) -> tuple[str, np.ndarray]:
        """Every book's subject text in one string, NUL between them, and where each starts: a term is found in
        every book by one scan in C (testing 100k texts one by one took 120 ms a condition). A term holds no NUL,
        so no match runs from one book's text into the next."""
        lengths = np.fromiter((len(text) + 1 for text in self.subject_texts), np.int64, len(self))
        return "\0".join(self.subject_texts), np.cumsum(lengths) - lengths

    @cached_property
    def _heading_rows(self) -> dict[str, np.ndarray]:
        """The rows of every whole heading or part, by its searched term ("| world war |"): a heading condition is one
        look-up, where a scan of every book's subject text took time in proportion to the catalog (a theme's subject
        evidence asks several). The keys are what stands between the subject text's bars, so a term is in a book's
        text exactly where it is one of its keys."""
        rows: dict[str, list[int]] = defaultdict(list)
        for row, text in enumerate(self.subject_texts):
            for key in dict.fromkeys(text[2:-2].split(" | ")):
                rows[f"| {key} |"].append(row)
        return {key: np.array(held, np.int64) for key, held in rows.items()}

    def _posting(self, field: str, value: str) -> tuple[np.ndarray, np.ndarray]:
        """The rows holding a value and how surely, as arrays: made on first use, as few values are ever asked."""
        key = (field, value)
        if key not in self._arrays:
            held = self.postings.get(key, [])
            rows = [np.array(r, np.int64) for r, _ in held] or [np.zeros(0, np.int64)]
            confidences = [np.full(len(r), c) for r, c in held] or [np.zeros(0)]
            self._arrays[key] = (np.concatenate(rows), np.concatenate(confidences))
        return self._arrays[key]

    def rows(self, expr: Expr) -> np.ndarray:
        """The rows of the books `expr` holds for, in order."""
        return np.flatnonzero(mask(expr, self))


def mask(expr: Expr, columns: FilterColumns) -> np.ndarray:
    """The tree over every book at once: what `evaluate` says of each, as a boolean array in the columns' order."""
    if isinstance(expr, HasAny):
        return columns.has_any(expr)
    if isinstance(expr, Compare):
        values = columns.numbers[expr.field]
        with np.errstate(invalid="ignore"):  # NaN, a missing number, compares false even under "!="
            return ~np.isnan(values) & COMPARE_OPS[expr.op](values, expr.value)
    if isinstance(expr, All):
        out = np.ones(len(columns), dtype=bool)
        for child in expr.children:
            out &= mask(child, columns)
        return out
    if isinstance(expr, AnyOf):
        out = np.zeros(len(columns), dtype=bool)
        for child in expr.children:
            out |= mask(child, columns)
        return out
    if isinstance(expr, Not):
        return ~mask(expr.child, columns)
    raise TypeError(f"not a filter expression: {expr!r}")


# ---- SQL -----------------------------------------------------------------------------------------

def _number(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() else repr(float(value))


def _literals(values) -> str:
    return ", ".join(sql_string(v) for v in values)


def _has_any(expr: HasAny) -> str:
    """One HasAny over the LanceDB books table (its facet columns hold values at the filter confidence)."""
    if expr.field == "author":
        return f"coalesce(array_has_any(authors, [{_literals(expr.values)}]), false)"
    if expr.field == "work":
        return f"coalesce(work_id IN ({_literals(expr.values)}), false)"
    if expr.field == "language":
        return f"coalesce(language IN ({_literals(expr.values)}), false)"
    if expr.field in ("subject", "heading"):
        terms = subject_terms(expr.field, expr.values)
        return "(" + " OR ".join(f"subject_text LIKE {sql_string('%' + t + '%')}" for t in terms) + ")" \
            if terms else "false"
    if expr.field == "classification":
        return f"coalesce(array_has_any(class_prefixes, [{_literals(map(class_code, expr.values))}]), false)"
    return f"coalesce(array_has_any({tag_column(expr.field)}, [{_literals(expr.values)}]), false)"


def _sql(expr: Expr) -> str:
    if isinstance(expr, HasAny):
        return _has_any(expr)
    if isinstance(expr, Compare):
        return f"({expr.field} IS NOT NULL AND {expr.field} {expr.op} {_number(expr.value)})"
    if isinstance(expr, (All, AnyOf)):
        if not expr.children:
            return "true" if isinstance(expr, All) else "false"
        joiner = " AND " if isinstance(expr, All) else " OR "
        return "(" + joiner.join(_sql(c) for c in expr.children) + ")"
    if isinstance(expr, Not):
        return f"(NOT {_sql(expr.child)})"
    raise TypeError(f"not a filter expression: {expr!r}")


def to_lance_sql(expr: Expr) -> str | None:
    """A LanceDB where-clause over the books table (None when nothing is filtered)."""
    if expr == EVERYTHING:
        return None
    return _sql(expr)
