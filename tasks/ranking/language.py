"""Language step: books in the brief's language first, only, or mixed freely with the others.

The choice is made per theme, else per batch, else by `shelf.language_preference`; README "Reading the
workbook" gives the measurement behind the default. With `first`, books the brief asks for by name or by
date (the author or series it names, new arrivals) keep their place whatever their language: "Lu Xun's
stories" in English still wants Lu Xun first, "new this month" the newest books; `only` means only.
A language the brief itself asks for ("Chinese fiction", written in English) stands in for the brief's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tasks.model.books import BookRecord
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.reasons import LanguageChoice

PLACED_BY_INTENT = ("entity", "recent")  # paths whose books are asked for by name or date, not by meaning


def choose_preference(theme_choice: str, batch_choice: str | None, default: str) -> str:
    """The theme's own choice, else its batch's, else the setting."""
    return theme_choice or batch_choice or default


def choose_language(query: ThemeQuery, preference: str) -> LanguageChoice:
    """The preference applied to the language the brief asks for, else to the brief's own; none where the brief
    excludes its own language or asks for several."""
    asked = {v for c in query.filter_conditions if c.field == "language" and c.operator != "MUST_NOT" for v in c.values}
    excluded = {v for c in query.conditions("MUST_NOT") if c.field == "language" for v in c.values}
    language = next(iter(asked)) if len(asked) == 1 else query.language
    return LanguageChoice(language, "any" if len(asked) > 1 or language in excluded else preference)


def prefer_language(candidates: Sequence[Candidate], books: Mapping[str, BookRecord],
                    choice: LanguageChoice) -> list[Candidate]:
    """The ranked candidates with the brief's language first (each side in its own order, doubtful books after both),
    alone, or as they are."""
    if choice.preference == "any":
        return list(candidates)
    same = [c for c in candidates if c.book_id in books and books[c.book_id].language == choice.language]
    if choice.preference == "only":
        return same
    ahead = {c.book_id for c in same} | {c.book_id for c in candidates if set(c.sources) & set(PLACED_BY_INTENT)}
    # A doubtful book (tasks/ranking/fusion.py) comes after the other language's: a book that may break the brief
    # serves it worse than one in the other language that fits it (on the tag-blind benchmark, 窗外 24th on
    # "旅途中读的书，不要太忧伤的", ahead of every English book, held the sadness it excludes)
    return sorted(candidates, key=lambda c: (c.doubtful, c.book_id not in ahead))
