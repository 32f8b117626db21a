"""The filter language: a small typed expression tree, one evaluator, its column form and its LanceDB compiler.

A ThemeQuery's hard constraints compile to one tree. The BM25 path and the final check before export run
the Python evaluator on one book; the vector path takes a mask over every book at once from the columns
(FilterColumns) or, above the size searched exactly, runs the tree as a LanceDB prefilter. A property test
on a real LanceDB table keeps the three in agreement, including on missing values: a comparison with a missing
number is false, so NOT of it is true, in Python and in SQL alike. Every value reaches SQL as an
escaped literal, never pasted raw.

HasAny names a field: a facet (a vocabulary dimension, `form`, `audience`), held with at least the
index's filter confidence; or `author`, `work`, `subject` (a word or phrase of the subject headings, or
of the title where a record has none), `classification` (a code prefix, "clc:I24"; a range of codes is a set
of prefixes, config/class_ranges.yaml) or `language`. A `topic` condition (the catalog's subjects a brief's topic
matched) is any of its headings or class codes: `condition_expr` makes it an AnyOf of the two.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Literal, Union

import numpy as np

from storage.models import BookRecord, Facet, FilterCondition, NumericCondition, subject_words
from storage.sql import sql_string, tag_column
from tasks.models import ThemeQuery, merge_conditions

NUMERIC_FIELDS = ("pub_year", "rating", "pages", "copies_available")
CompareOp = Literal["<", "<=", ">", ">=", "=", "!="]


TERM_FIELDS = ("author", "work", "subject", "classification", "language", "topic")  # every other field is a facet
CLASS_SCHEMES = ("clc:", "ddc:", "lcc:")  # a topic's value that is a class code, not a heading


@dataclass(frozen=True)
class HasAny:
    """The book has at least one of these values of a field (see the module docstring)."""

    field: str
    values: tuple[str, ...]
    min_confidence: float = 1.0  # facets only: how sure a value must be (1: the source's own tags)


def subject_term(term: str) -> str:
    """A subject condition's value as the subject text is searched: Latin words whole, Chinese anywhere."""
    words = subject_words(term)
    return f" {words} " if words.isascii() else words


def class_code(value: str) -> str:
    """A classification prefix as books list theirs: "clc:i24" -> "clc:I24"."""
    scheme, _, number = value.partition(":")
    return f"{scheme.lower()}:{number.replace(' ', '').upper()}"


@lru_cache(maxsize=64)
def _class_codes(values: tuple[str, ...]) -> frozenset[str]:
    """The codes of a condition, normalised once: a literature's range is hundreds of prefixes, and a filter is
    evaluated book after book."""
    return frozenset(map(class_code, values))


@dataclass(frozen=True)
class Compare:
    """A numeric comparison on pub_year, rating, pages or copies_available."""

    field: str
    op: CompareOp
    value: float

    def __post_init__(self):
        if self.field not in NUMERIC_FIELDS:
            raise ValueError(f"{self.field!r} is not a numeric field {NUMERIC_FIELDS}")
        if not math.isfinite(self.value):
            raise ValueError(f"{self.field} compared with a non-finite value")


@dataclass(frozen=True)
class All:
    children: tuple[Expr, ...]


@dataclass(frozen=True)
class AnyOf:
    children: tuple[Expr, ...]


@dataclass(frozen=True)
class Not:
    child: Expr


Expr = Union[HasAny, Compare, All, AnyOf, Not]
EVERYTHING = All(())


def condition_expr(field: str, values: tuple[str, ...], min_confidence: float = 1.0) -> Expr:
    """A condition's values as the tree tests them: a topic as a heading or a class code it names, any other field
    as it is."""
    if field != "topic":
        return HasAny(field, values, min_confidence)
    codes = tuple(v for v in values if v.lower().startswith(CLASS_SCHEMES))
    terms = tuple(v for v in values if v not in codes)
    return AnyOf((*([HasAny("subject", terms)] if terms else []),
                  *([HasAny("classification", codes)] if codes else [])))


def numeric_expr(condition: NumericCondition) -> Expr:
    """A brief's numeric condition as the filter tree compares it; a range excluded, as below or above it: a
    book without the number meets neither, as it meets no other numeric condition."""
    if condition.op == "outside":
        return AnyOf((Compare(condition.field, "<", condition.value),
                      Compare(condition.field, ">=", condition.upper)))
    return Compare(condition.field, condition.op, condition.value)


def hard_constraints(conditions: Sequence[FilterCondition], numeric: Sequence[NumericCondition] = (),
                     available_only: bool = False, facet_confidence: float = 1.0) -> Expr:
    """MUST (any of its values), no MUST_NOT value, the numeric conditions, and availability.

    A facet counts for MUST and MUST_NOT only when held with `facet_confidence` (the index's filter confidence).
    """
    def has(c: FilterCondition) -> Expr:
        return condition_expr(c.field, c.values, facet_confidence if c.field not in TERM_FIELDS else 1.0)

    parts: list[Expr] = [has(c) for c in conditions if c.operator == "MUST"]
    parts += [Not(has(c)) for c in conditions if c.operator == "MUST_NOT"]
    parts += [numeric_expr(n) for n in numeric]
    if available_only:
        # An unknown number of copies is not known to be zero: such books stay.
        parts.append(Not(Compare("copies_available", "<=", 0)))
    return All(tuple(parts))


def surely_held(books: Iterable[BookRecord], min_confidence: float,
                facets: Iterable[Facet] | None = None) -> frozenset[tuple[str, str]]:
    """Every (facet, value) some book holds with at least `min_confidence`: what a filter can find. `facets`,
    the distinct ones where known (an index version stores them), spares walking every book's."""
    books = list(books)
    held = facets if facets is not None else (f for book in books for f in book.facets)
    return frozenset((f.dimension, f.value) for f in held if f.confidence >= min_confidence
                     ) | frozenset((dim, value) for book in books for dim, values in book.tags.items()
                                   for value in values)


def unfilterable(conditions: Sequence[FilterCondition], held: frozenset[tuple[str, str]]) -> list[FilterCondition]:
    """The facet MUSTs on a dimension no book holds any value of surely: over a catalog that cannot tell
    (abstracts without any genre, for "历史学"), such a filter would empty the shelf rather than narrow it. A
    value no book holds of a dimension the catalog does know (plays, where forms are known) stays a filter."""
    known = {field for field, _ in held}
    return [c for c in conditions if c.operator == "MUST" and c.field not in TERM_FIELDS and c.field not in known]


def as_wishes(query: ThemeQuery, held: frozenset[tuple[str, str]] | None, numbered: frozenset[str] | None
              ) -> tuple[ThemeQuery, list[FilterCondition | NumericCondition]]:
    """The query with what the catalog cannot check taken as wishes, and those conditions: a MUST on a
    dimension no book holds surely (`held`) becomes SHOULD; a number no book has (`numbered`: "since 1979"
    over records without a year) is dropped. None: the catalog was not asked, everything counts."""
    loose = unfilterable(query.filter_conditions, held) if held is not None else []
    unnumbered = [n for n in query.numeric_conditions if numbered is not None and n.field not in numbered]
    if not loose and not unnumbered:
        return query, []
    conditions = merge_conditions(replace(c, operator="SHOULD") if c in loose else c for c in query.filter_conditions)
    numeric = tuple(n for n in query.numeric_conditions if n not in unnumbered)
    return replace(query, filter_conditions=conditions, numeric_conditions=numeric), [*loose, *unnumbered]


def contradictions(conditions: Sequence[FilterCondition]) -> list[tuple[str, str]]:
    """(field, value) pairs that are both MUST and MUST_NOT."""
    required = {(c.field, v) for c in conditions if c.operator == "MUST" for v in c.values}
    excluded = {(c.field, v) for c in conditions if c.operator == "MUST_NOT" for v in c.values}
    return sorted(required & excluded)


# ---- evaluation ----------------------------------------------------------------------------------

_OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "=": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _holds(expr: HasAny, book: BookRecord) -> bool:
    values = set(expr.values)
    if expr.field == "author":
        return bool(values & set(book.authors))
    if expr.field == "work":
        return (book.work_id or book.book_id) in values
    if expr.field == "language":
        return book.language in values
    if expr.field == "subject":
        text = book.subject_text
        return any(term and term in text for term in map(subject_term, values))
    if expr.field == "classification":
        return not _class_codes(expr.values).isdisjoint(book.class_prefixes)
    return bool(values & book.values_at(expr.field, expr.min_confidence))


def evaluate(expr: Expr, book: BookRecord) -> bool:
    """Deterministic evaluation of the tree on one book."""
    if isinstance(expr, HasAny):
        return _holds(expr, book)
    if isinstance(expr, Compare):
        value = getattr(book, expr.field)
        return value is not None and _OPS[expr.op](value, expr.value)
    if isinstance(expr, All):
        return all(evaluate(c, book) for c in expr.children)
    if isinstance(expr, AnyOf):
        return any(evaluate(c, book) for c in expr.children)
    if isinstance(expr, Not):
        return not evaluate(expr.child, book)
    raise TypeError(f"not a filter expression: {expr!r}")


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
        if expr.field == "subject":
            joined, starts = self._subject_index
            for term in filter(None, map(subject_term, expr.values)):
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

    def _posting(self, field: str, value: str) -> tuple[np.ndarray, np.ndarray]:
        """The rows holding a value and how surely, as arrays: made on first use, as few values are ever asked."""
        key = (field, value)
        if key not in self._arrays:
            held = self.postings.get(key, [])
            rows = [np.array(r, np.int64) for r, _ in held] or [np.zeros(0, np.int64)]
            confidences = [np.full(len(r), c) for r, c in held] or [np.zeros(0)]
            self._arrays[key] = (np.concatenate(rows), np.concatenate(confidences))
        return self._arrays[key]


def mask(expr: Expr, columns: FilterColumns) -> np.ndarray:
    """The tree over every book at once: what `evaluate` says of each, as a boolean array in the columns' order."""
    if isinstance(expr, HasAny):
        return columns.has_any(expr)
    if isinstance(expr, Compare):
        values = columns.numbers[expr.field]
        with np.errstate(invalid="ignore"):  # NaN, a missing number, compares false even under "!="
            return ~np.isnan(values) & _OPS[expr.op](values, expr.value)
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
    if expr.field == "subject":
        terms = [t for t in map(subject_term, expr.values) if t]
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
