"""What a brief asks for (its intent), what it names, and how each intent is shelved.

The intents: a theme shelf (the default), an author spotlight ("鲁迅作品专题"), a series in reading
order ("三体系列"), books similar to a named book ("像《边城》那样的书"), new arrivals ("本月新书：科幻"),
and unknown (nothing recognisable: gating asks the curator). POLICIES says, per intent, everything
the later steps do differently, so that no step compares intent names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from tasks.model.books import BookRecord


class Intent(StrEnum):
    THEME_SHELF = "theme_shelf"
    AUTHOR_SPOTLIGHT = "author_spotlight"
    SERIES = "series"
    SIMILAR_TO_BOOK = "similar_to_book"
    NEW_ARRIVALS = "new_arrivals"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Understanding:
    """The brief's intent and the catalog entities it names."""

    intent: Intent
    authors: tuple[str, ...] = ()  # canonical names
    titles: tuple[str, ...] = ()
    book_ids: tuple[str, ...] = ()  # the authors' books, the series in reading order, or the book(s) named
    resolved_query: str = ""  # the brief with aliases and misspellings replaced by catalog names
    confidence: float = 0.0  # 1 for exact names, 0.9 through an alias, 0.75 through a typo; 0 for none
    corrections: tuple[tuple[str, str], ...] = ()  # (as written, catalog name) for aliases and typos
    series_mates: tuple[str, ...] = ()  # the other volumes of a named book's series: no read-alike of it

    @property
    def series(self) -> str:
        return self.titles[0] if self.intent is Intent.SERIES else ""

    def describe(self) -> str:
        named = ", ".join(self.authors or self.titles)
        fixes = "".join(f", {written} -> {name}" for written, name in self.corrections)
        return f"intent {self.intent}" + (f": {named}" if named else "") + (f" ({fixes[2:]})" if fixes else "")


THEME_SHELF = Understanding(Intent.THEME_SHELF)


@dataclass(frozen=True)
class IntentPolicy:
    """How one intent is shelved."""

    paths: tuple[str, ...] = ()  # recall paths the intent adds (tasks/recall/paths/intent.py)
    confidence_floor: float = 0.0  # the translation's confidence is raised to at least this ...
    floor_follows_entities: bool = False  # ... times how surely the named entities were found
    shelves_named_books: bool = True  # "more like this book" never shelves the book itself
    uncapped: str = "none"  # authors not held to shelf.max_per_author: none | named | series
    sentence_rerank: bool = False  # the order of a spotlight, a series, a "like this" or new arrivals comes
    #                                from the author, book or date: a summary sentence cannot improve it
    ordered_by: str | None = None  # the path whose order the shelf keeps: a series' volumes, the newest books
    announced: bool = True  # the intent is written in the theme's notes
    stands_in: bool = True  # where the catalog holds nothing it names, other books may stand in (a series: none)


# A catalog author or title named in the brief is the surest signal there is (less so misspelt); "新书上架"
# says little for the vocabulary, but exactly what to shelve: the newest books.
ENTITY_CONFIDENCE = 0.8


NEW_ARRIVALS_CONFIDENCE = 0.6


POLICIES: Mapping[Intent, IntentPolicy] = {
    Intent.THEME_SHELF: IntentPolicy(sentence_rerank=True, announced=False),
    Intent.AUTHOR_SPOTLIGHT: IntentPolicy(("entity", "related"), ENTITY_CONFIDENCE, True, uncapped="named"),
    Intent.SERIES: IntentPolicy(("entity", "similar", "related"), ENTITY_CONFIDENCE, True, uncapped="series",
                                ordered_by="entity", stands_in=False),
    Intent.SIMILAR_TO_BOOK: IntentPolicy(("similar", "related"), ENTITY_CONFIDENCE, True, shelves_named_books=False),
    Intent.NEW_ARRIVALS: IntentPolicy(("recent",), NEW_ARRIVALS_CONFIDENCE, ordered_by="recent"),
    Intent.UNKNOWN: IntentPolicy(),
}


def excluded_books(understanding: Understanding) -> frozenset[str]:
    """Books the intent keeps off its own shelf."""
    if POLICIES[understanding.intent].shelves_named_books:
        return frozenset()
    return frozenset(understanding.book_ids) | frozenset(understanding.series_mates)


def uncapped_authors(understanding: Understanding, books: Mapping[str, BookRecord]) -> frozenset[str]:
    """Authors not held to the per-author cap: a spotlit author, or the authors of a series."""
    uncapped = POLICIES[understanding.intent].uncapped
    exempt = set(understanding.authors) if uncapped != "none" else set()
    if uncapped == "series":
        exempt |= {a for b in understanding.book_ids if b in books for a in books[b].authors}
    return frozenset(exempt)
