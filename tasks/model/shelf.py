"""One theme's shelf: its entries, the gate's verdict and question, what the workbook and the history keep."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from config.vocabulary import VocabularyValue
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.intent import THEME_SHELF, Understanding
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.reasons import Reason, ShelfFact
from tasks.model.themes import HistoryShelf, Theme


@dataclass(frozen=True)
class Question:
    """What a curator is asked about a theme under review, before it is put in words."""

    kind: str  # contradiction | unrecognised | subject | unchecked | history | author_cap | availability | likely_excluded
    #            | conditions | catalog | few_fit | unheld | unread (tasks/model/review.py)
    count: int = 0  # history, author_cap, availability, likely_excluded: the books kept off the shelf;
    #                 few_fit, unheld: the catalog's books likely to fit the brief
    clash: FilterCondition | None = None  # contradiction: the value both required and excluded
    relax: tuple[FilterCondition | NumericCondition, ...] = ()  # conditions: the hard ones that could go;
    #                                                            unchecked: the ones taken as wishes
    closest: tuple[VocabularyValue, ...] = ()  # the vocabulary values closest to the brief's meaning
    topic: str = ""  # subject: the brief's words that read two ways
    readings: tuple[tuple[str, int], ...] = ()  # subject: each reading's subject and its count of books
    wishes: tuple[FilterCondition, ...] = ()  # subject: each reading as the wish that finds its books
    content: tuple[str, ...] = ()  # few_fit: the brief's topic as its content words say it
    topics: tuple[tuple[str, str, int], ...] = ()  # few_fit: the nearest topics the catalog holds (field, value,
    #                                                books)


@dataclass(frozen=True)
class GateVerdict:
    status: str  # "done" | "needs_review"
    reasons: tuple[str, ...] = ()
    question: Question | None = None
    limited_by: str | None = None  # a Question kind from history to catalog, for a short shelf


@dataclass(frozen=True)
class ShelfEntry:
    rank: int
    book: BookRecord  # the edition shelved: one with copies available where the work has one
    candidate: Candidate
    other_editions: tuple[str, ...] = ()  # book ids of the work's other editions in the catalog
    reasons: tuple[Reason, ...] = ()  # why it is here (tasks/ranking/reasons.py); the workbook words them


@dataclass(frozen=True)
class Change:
    """What happened to a shelved book since the curator's version: kept | moved | new | answered; `detail` says
    why (the place it had, the books it replaced, the answer that brought it)."""

    kind: str
    detail: str = ""


@dataclass
class ThemeShelf:
    """One theme's result: what the workbook, the history and the Prefect artifact show."""

    theme: Theme
    query: ThemeQuery
    entries: list[ShelfEntry]
    status: str  # done | needs_review | failed
    notes: list[str] = field(default_factory=list)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    verdict: GateVerdict = GateVerdict("done")
    understanding: Understanding = THEME_SHELF  # the intent and the catalog entities the brief named
    referenced: str | None = None  # "batch/theme" of the earlier shelf the brief referred to
    facts: tuple[ShelfFact, ...] = ()  # what the sheet's header says once: what was left out, languages
    ranked: tuple[str, ...] = ()  # every recalled book in ranked order, shelved or not: what evaluation scores
    changes: dict[str, Change] = field(default_factory=dict)  # book id -> what a review changed (ranking/review.py)

    @property
    def error(self) -> str | None:
        """Why the theme failed (first in a failed shelf's notes), or None."""
        return self.notes[0] if self.status == "failed" else None

    def as_history(self, batch_started: datetime | None) -> HistoryShelf:
        """This shelf as the shelf history keeps it, and as the later themes of its batch see it."""
        return HistoryShelf(self.theme.batch_id, self.theme.theme_id, self.theme.brief, self.query.filter_conditions,
                            tuple(e.book.book_id for e in self.entries), self.query.numeric_conditions,
                            self.theme.position, batch_started, recent=True)


def failed_shelf(theme: Theme, error: Exception) -> ThemeShelf:
    """The record of a theme whose shelving raised: no books, the error in its notes."""
    empty = ThemeQuery((), (), "", 0.0, "none")
    return ThemeShelf(theme, empty, [], "failed", [f"{type(error).__name__}: {error}"[:300]])
