"""Hard constraints of a ThemeQuery: MUST and MUST_NOT, as a LanceDB prefilter and in Python.

The two forms must agree: the prefilter narrows the vector search, the Python check applies the
same rules to BM25 hits and re-checks every shelved book before export.
"""

from __future__ import annotations

from collections.abc import Sequence

from storage.index_store import tag_column
from storage.models import BookRecord
from tasks.models import FilterCondition


def sql_string(value: str) -> str:
    """A SQL string literal; quotes are doubled so a value can never end the literal."""
    return "'" + value.replace("'", "''") + "'"


def _has_any(condition: FilterCondition) -> str:
    values = ", ".join(sql_string(v) for v in condition.values)
    return f"array_has_any({tag_column(condition.field)}, [{values}])"


def lance_where(conditions: Sequence[FilterCondition], fan_out: FilterCondition | None = None) -> str | None:
    """Every MUST (any of its values), no MUST_NOT value, and the SHOULD value of one fan-out query."""
    clauses = [_has_any(c) for c in conditions if c.operator == "MUST"]
    clauses += [f"NOT {_has_any(c)}" for c in conditions if c.operator == "MUST_NOT"]
    if fan_out is not None:
        clauses.append(_has_any(fan_out))
    return " AND ".join(f"({c})" for c in clauses) or None


def satisfies(book: BookRecord, conditions: Sequence[FilterCondition]) -> bool:
    """True if the book has a value of every MUST and none of any MUST_NOT."""
    for cond in conditions:
        has_any = bool(set(book.tags.get(cond.field, ())) & set(cond.values))
        if cond.operator == "MUST" and not has_any:
            return False
        if cond.operator == "MUST_NOT" and has_any:
            return False
    return True
