"""The filter language: a small typed expression tree, one evaluator, two SQL compilers.

A ThemeQuery's hard constraints compile to one tree. The vector path runs it as a LanceDB
prefilter, the BM25 path and the final check before export run the Python evaluator, and the
catalog can be queried with the DuckDB form. All three agree, including on missing values: a
comparison with a missing number is false, so NOT of it is true, in Python and in SQL alike.
Every value reaches SQL as an escaped literal, never pasted raw.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Union

from storage.models import BookRecord, FilterCondition, NumericCondition
from storage.sql import sql_string, tag_column

NUMERIC_FIELDS = ("pub_year", "rating", "pages", "copies_available")
CompareOp = Literal["<", "<=", ">", ">=", "=", "!="]


@dataclass(frozen=True)
class HasAny:
    """The book carries at least one of these values of a tag dimension."""

    field: str
    values: tuple[str, ...]


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


def hard_constraints(conditions: Sequence[FilterCondition], numeric: Sequence[NumericCondition] = (),
                     available_only: bool = False) -> Expr:
    """MUST (any of its values), no MUST_NOT value, the numeric conditions, and availability."""
    parts: list[Expr] = [HasAny(c.field, c.values) for c in conditions if c.operator == "MUST"]
    parts += [Not(HasAny(c.field, c.values)) for c in conditions if c.operator == "MUST_NOT"]
    parts += [Compare(n.field, n.op, n.value) for n in numeric]
    if available_only:
        # An unknown number of copies is not known to be zero: such books stay.
        parts.append(Not(Compare("copies_available", "<=", 0)))
    return All(tuple(parts))


def contradictions(conditions: Sequence[FilterCondition]) -> list[tuple[str, str]]:
    """(field, value) pairs that are both MUST and MUST_NOT."""
    required = {(c.field, v) for c in conditions if c.operator == "MUST" for v in c.values}
    excluded = {(c.field, v) for c in conditions if c.operator == "MUST_NOT" for v in c.values}
    return sorted(required & excluded)


# ---- evaluation ----------------------------------------------------------------------------------

_OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "=": lambda a, b: a == b, "!=": lambda a, b: a != b}


def evaluate(expr: Expr, book: BookRecord) -> bool:
    """Deterministic evaluation of the tree on one book."""
    if isinstance(expr, HasAny):
        return bool(set(book.tags.get(expr.field, ())) & set(expr.values))
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


# ---- SQL -----------------------------------------------------------------------------------------

def _number(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() else repr(float(value))


def _sql(expr: Expr, tag_list, has_any: str) -> str:
    if isinstance(expr, HasAny):
        values = ", ".join(sql_string(v) for v in expr.values)
        return f"coalesce({has_any}({tag_list(expr.field)}, [{values}]), false)"
    if isinstance(expr, Compare):
        return f"({expr.field} IS NOT NULL AND {expr.field} {expr.op} {_number(expr.value)})"
    if isinstance(expr, (All, AnyOf)):
        if not expr.children:
            return "true" if isinstance(expr, All) else "false"
        joiner = " AND " if isinstance(expr, All) else " OR "
        return "(" + joiner.join(_sql(c, tag_list, has_any) for c in expr.children) + ")"
    if isinstance(expr, Not):
        return f"(NOT {_sql(expr.child, tag_list, has_any)})"
    raise TypeError(f"not a filter expression: {expr!r}")


def to_lance_sql(expr: Expr) -> str | None:
    """A LanceDB where-clause over the books table (None when nothing is filtered)."""
    if expr == EVERYTHING:
        return None
    return _sql(expr, tag_column, "array_has_any")


def to_duckdb_sql(expr: Expr) -> str:
    """A DuckDB where-clause over the catalog's books table (tags are stored as JSON)."""
    return _sql(expr, lambda field: f"CAST(json_extract(tags, {sql_string('$.' + field)}) AS VARCHAR[])",
                "list_has_any")
