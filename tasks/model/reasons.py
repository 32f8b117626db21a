"""Why each book is on its shelf, and what the whole shelf left out, as typed facts without words.

tasks/ranking/reasons.py finds them; tasks/export/wording.py says them in the brief's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Union

from tasks.model.conditions import NumericCondition


@dataclass(frozen=True)
class LanguageChoice:
    """How a theme's shelf treats the language of its brief."""

    language: str  # the brief's: zh | en
    preference: str  # first | only | any


@dataclass(frozen=True)
class Meets:
    """The book has these values of a condition the brief asks for."""

    field: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class MeetsPreferred:
    """The book meets a number the brief only prefers ("最好是近十年的"): why it stands before those that do not."""

    condition: NumericCondition


@dataclass(frozen=True)
class Mentions:
    """The brief's words found in the book's title, subject headings or summary."""

    where: Literal["title", "subjects", "summary"]
    words: tuple[str, ...]


@dataclass(frozen=True)
class ByNamedAuthor:
    author: str


@dataclass(frozen=True)
class InNamedSeries:
    series: str
    part: int  # 1-based place in reading order


@dataclass(frozen=True)
class CloseToNamedBook:
    title: str


@dataclass(frozen=True)
class SharesWithNamedBook:
    """What links a related book to a book the brief names (or to one of the spotlit author's books)."""

    title: str
    kind: str  # author | subject | tag
    value: str
    field: str = ""  # a tag's dimension


@dataclass(frozen=True)
class NewArrival:
    year: int | None


@dataclass(frozen=True)
class CloseToBrief:
    """Found by its meaning alone: the evidence column shows the sentence."""


@dataclass(frozen=True)
class MayBeExcluded:
    """A calibrated guess, below the confidence a filter needs, says the book may have a value the brief
    excludes: not a reason to shelve it, a line for the curator to check."""

    field: str
    value: str
    chance: float


Reason = Union[Meets, MeetsPreferred, Mentions, ByNamedAuthor, InNamedSeries, CloseToNamedBook, SharesWithNamedBook,
               NewArrival, CloseToBrief, MayBeExcluded]


@dataclass(frozen=True)
class SkippedForHistory:
    """Fitting books left out because recent shelves with a similar brief hold them."""

    books: int
    shelves: tuple[str, ...]  # those shelves' theme names


@dataclass(frozen=True)
class NamedBooksLeftOut:
    """"Books like 《边城》" does not shelve 边城 itself."""

    titles: tuple[str, ...]


@dataclass(frozen=True)
class UnavailableLeftOut:
    """Books with no copy available are not shelved."""


@dataclass(frozen=True)
class WorkTitles:
    """The titles of the works the brief's conditions name: a condition holds a work id, a curator reads a title."""

    titles: tuple[tuple[str, str], ...]  # (work id, title)


ShelfFact = Union[SkippedForHistory, NamedBooksLeftOut, UnavailableLeftOut, LanguageChoice, WorkTitles]
