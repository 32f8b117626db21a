"""A brief's conditions on vocabulary dimensions and on numbers, as every stage reads them."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

_NOT_A_WORD = re.compile(r"[^\w\u3400-\u9fff]+|_")


def subject_words(text: str) -> str:
    """Lower-case words separated by single spaces: how subject headings and subject conditions compare.

    A Latin term matches whole words ("war" is not in "award"); a Chinese term matches anywhere.
    """
    return " ".join(_NOT_A_WORD.sub(" ", unicodedata.normalize("NFKC", text).lower()).split())


Operator = Literal["MUST", "SHOULD", "MUST_NOT"]


OPERATORS: tuple[str, ...] = ("MUST", "SHOULD", "MUST_NOT")


@dataclass(frozen=True)
class FilterCondition:
    """One condition on a vocabulary dimension: the book has (any of) these values, or must not."""

    field: str
    values: tuple[str, ...]
    operator: Operator

    def to_dict(self) -> dict:
        return {"field": self.field, "values": list(self.values), "operator": self.operator}

    @classmethod
    def from_dict(cls, raw: dict) -> FilterCondition:
        return cls(raw["field"], tuple(raw["values"]), raw["operator"])


@dataclass(frozen=True)
class NumericCondition:
    """A hard numeric constraint from the brief, e.g. pub_year >= 1980; or a range it excludes ("nothing from the
    1980s"): op "outside", the numbers from `value` up to, not including, `upper` left out."""

    field: str  # pub_year | rating | pages
    op: str  # < <= > >= = != outside
    value: float
    upper: float | None = None  # "outside" only
    # a rating's scale as the brief says it ("4 stars": 5, "8分": 10; None: not said), converted to the catalog's
    scale: float | None = field(default=None, compare=False)

    @property
    def last_left_out(self) -> float | None:
        """The last number an "outside" range leaves out, as a curator says it: 1989 of "the 1980s"."""
        return self.upper - 1 if self.upper is not None else None

    def describe(self, operator: str = "MUST") -> str:
        if self.op == "outside":
            return f"{operator} {self.field} outside {plain_number(self.value)}..{plain_number(self.last_left_out)}"
        return f"{operator} {self.field}{self.op}{plain_number(self.value)}"

    def to_dict(self) -> dict:
        return {"field": self.field, "op": self.op, "value": self.value,
                **({"upper": self.upper} if self.upper is not None else {})}


def plain_number(value: float) -> int | float:
    """A number as a person writes it: 1980, not 1980.0."""
    return int(value) if float(value).is_integer() else value


def merge_conditions(conditions: Iterable[FilterCondition]) -> tuple[FilterCondition, ...]:
    """One condition per (field, operator), values in first-seen order."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for cond in conditions:
        values = grouped.setdefault((cond.field, cond.operator), [])
        values.extend(v for v in cond.values if v not in values)
    return tuple(FilterCondition(f, tuple(vals), op) for (f, op), vals in grouped.items() if vals)
