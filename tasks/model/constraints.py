"""The constraint tree: a brief's hard conditions as one typed expression, and its evaluation on one book.

HasAny names a field: a facet (a vocabulary dimension, `form`, `audience`), held with at least the
index's filter confidence; or `author`, `work`, `subject` (a word or phrase of one subject heading, or
of the title where a record has none), `heading` (a whole heading or heading part, tasks/model/subjects.py: "Travel"
is not "Time travel"), `classification` (a code prefix, "clc:I24"; a range of codes is a set of prefixes,
config/class_ranges.yaml) or `language`. A `topic` condition (the catalog's subjects a brief's topic matched) is any
of its headings or class codes: `condition_expr` makes it an AnyOf of the two.
tasks/recall/filters.py gives the same tree a column
form and a LanceDB compiler; a property test keeps the three in agreement.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, Union

from tasks.model.books import BookRecord, Facet
from tasks.model.conditions import FilterCondition, NumericCondition, merge_conditions, subject_words
from tasks.model.query import ThemeQuery

NUMERIC_FIELDS = ("pub_year", "rating", "pages", "copies_available")


CompareOp = Literal["<", "<=", ">", ">=", "=", "!="]


TERM_FIELDS = ("author", "work", "subject", "heading", "classification", "language", "topic")  # every other field is a facet
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


def heading_term(term: str) -> str:
    """A heading condition's value as the subject text is searched: the whole heading or part, between its bars."""
    words = subject_words(term)
    return f"| {words} |" if words else ""


def subject_terms(field: str, values: tuple[str, ...]) -> list[str]:
    """A `subject` or `heading` condition's values as the subject text is searched (empty ones left out)."""
    return [t for t in map(heading_term if field == "heading" else subject_term, values) if t]


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
    return AnyOf((*([HasAny("heading", terms)] if terms else []),
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


def reading_material(query: ThemeQuery, held: frozenset[tuple[str, str]] | None, not_reading: Sequence[str],
                     insisted: frozenset[str] = frozenset()) -> ThemeQuery:
    """The material a brief's shelf holds. A material required beside a required kind of book (a form or a genre)
    is a wish: the carrier is then one of the alternatives or a remark ("audiobooks and short novels", "an
    audiobook or a memoir", "baseball histories …, the DVDs go on the media shelf"); not one the brief requires in
    so many words (`insisted`: "Audiobooks only: mysteries for long drives", "只要有声书"). A brief about reading (a form
    required: novels, plays, 诗集) that names no material leaves out the materials that are no reading (`not_reading`:
    films, recordings, scores ...) where a record says one: a film whose heading says "Drama." is no play. Only the
    materials some book holds (`held`; None: all) are named, so a catalog whose records say none gains no condition;
    a book of unknown material stays."""
    required = {c.field for c in query.filter_conditions if c.operator == "MUST"}
    if "material" in required and required & {"form", "genre"}:
        return replace(query, filter_conditions=merge_conditions(
            replace(c, operator="SHOULD") if c.field == "material" and c.operator == "MUST"
            and not set(c.values) <= insisted else c for c in query.filter_conditions))
    if "form" not in required or any(c.field == "material" for c in query.filter_conditions):
        return query
    materials = tuple(m for m in not_reading if held is None or ("material", m) in held)
    if not materials:
        return query
    excluded = FilterCondition("material", materials, "MUST_NOT")
    return replace(query, filter_conditions=(*query.filter_conditions, excluded))


def contradictions(conditions: Sequence[FilterCondition]) -> list[tuple[str, str]]:
    """(field, value) pairs that are both MUST and MUST_NOT."""
    required = {(c.field, v) for c in conditions if c.operator == "MUST" for v in c.values}
    excluded = {(c.field, v) for c in conditions if c.operator == "MUST_NOT" for v in c.values}
    return sorted(required & excluded)


COMPARE_OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "=": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _holds(expr: HasAny, book: BookRecord) -> bool:
    values = set(expr.values)
    if expr.field == "author":
        return bool(values & set(book.authors))
    if expr.field == "work":
        return (book.work_id or book.book_id) in values
    if expr.field == "language":
        return book.language in values
    if expr.field in ("subject", "heading"):
        text = book.subject_text
        return any(term in text for term in subject_terms(expr.field, expr.values))
    if expr.field == "classification":
        return not _class_codes(expr.values).isdisjoint(book.class_prefixes)
    return bool(values & book.values_at(expr.field, expr.min_confidence))


def evaluate(expr: Expr, book: BookRecord) -> bool:
    """Deterministic evaluation of the tree on one book."""
    if isinstance(expr, HasAny):
        return _holds(expr, book)
    if isinstance(expr, Compare):
        value = getattr(book, expr.field)
        return value is not None and COMPARE_OPS[expr.op](value, expr.value)
    if isinstance(expr, All):
        return all(evaluate(c, book) for c in expr.children)
    if isinstance(expr, AnyOf):
        return any(evaluate(c, book) for c in expr.children)
    if isinstance(expr, Not):
        return not evaluate(expr.child, book)
    raise TypeError(f"not a filter expression: {expr!r}")
