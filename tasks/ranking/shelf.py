"""Shelf step: the top K books, at most N per author, one place per work."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from tasks.model.books import BookRecord
from tasks.model.constraints import Expr, evaluate, hard_constraints
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.shelf import ShelfEntry


def shelved_edition(book: BookRecord, editions: Sequence[BookRecord],
                    allowed: Callable[[BookRecord], bool]) -> BookRecord:
    """The edition to shelve: this one, unless it has no copies and another allowed edition has some."""
    if book.copies_available != 0:
        return book
    available = [e for e in editions if e.copies_available and allowed(e)]
    return max(available, key=lambda e: (e.copies_available, e.pub_year or 0, e.book_id), default=book)


@dataclass(frozen=True)
class Selection:
    """The shelf chosen from the ranked candidates, and what kept other candidates off it."""

    entries: list[ShelfEntry]
    held_back: int = 0  # candidates of works excluded: on a recent similar shelf, or the book a brief names
    over_author_cap: int = 0  # candidates whose author already had max_per_author books on the shelf


def select_shelf(candidates: Sequence[Candidate], books: Mapping[str, BookRecord], excluded: frozenset[str],
                 query: ThemeQuery, size: int, max_per_author: int,
                 exempt_authors: frozenset[str] = frozenset(), editions: Mapping[str, tuple[str, ...]] = {},
                 allowed: Callable[[BookRecord], bool] = lambda book: True) -> Selection:
    """Walk the ranked candidates: one place per work, no excluded work, at most N books per author.

    Excluding a book excludes its work: last week's shelf in one edition is not this week's in another.
    """
    entries: list[ShelfEntry] = []
    per_author: dict[str, int] = {}
    excluded_works = {books[b].work_id or b for b in excluded if b in books} | set(excluded)
    shelved_works: set[str] = set()
    held_back = over_cap = 0
    for cand in candidates:
        book = books.get(cand.book_id)
        if book is None:
            continue
        work = book.work_id or book.book_id
        if work in excluded_works:
            held_back += 1
            continue
        if work in shelved_works:
            continue
        authors = book.authors or ("",)
        if any(a and a not in exempt_authors and per_author.get(a, 0) >= max_per_author for a in authors):
            over_cap += 1
            continue
        if len(entries) == size:
            continue  # full: only counting what else was held back
        for a in authors:
            per_author[a] = per_author.get(a, 0) + 1
        shelved_works.add(work)
        siblings = [books[b] for b in editions.get(work, ()) if b != book.book_id and b in books]
        shown = shelved_edition(book, siblings, allowed)
        others = tuple(e.book_id for e in [book, *siblings] if e.book_id != shown.book_id)
        entries.append(ShelfEntry(len(entries) + 1, shown, cand, others))
    return Selection(entries, held_back, over_cap)


def editions_by_work(books: Mapping[str, BookRecord]) -> dict[str, tuple[str, ...]]:
    """work id -> the book ids of its editions, for works with more than one."""
    works: dict[str, list[str]] = {}
    for book in books.values():
        works.setdefault(book.work_id or book.book_id, []).append(book.book_id)
    return {work: tuple(sorted(ids)) for work, ids in works.items() if len(ids) > 1}


@dataclass(frozen=True)
class CheckedShelf:
    entries: list[ShelfEntry]  # the books that meet every hard constraint, ranked anew
    dropped: list[ShelfEntry]  # books that do not: a bug in a recall path, never shelved


def count_unavailable(books: Iterable[BookRecord], query: ThemeQuery, facet_confidence: float) -> int:
    """Books that meet the query's hard conditions but have no copies on the shelf (0 where it has none)."""
    if not any(c.operator != "SHOULD" for c in query.filter_conditions) and not query.numeric_conditions:
        return 0  # with nothing required, "fitting" would mean every book
    fits = hard_constraints(query.filter_conditions, query.numeric_conditions, False, facet_confidence)
    return sum(1 for b in books if b.copies_available == 0 and evaluate(fits, b))


def check_shelf(entries: Sequence[ShelfEntry], constraints: Expr) -> CheckedShelf:
    """Every shelved book checked once more against the hard constraints before it is delivered."""
    kept = [e for e in entries if evaluate(constraints, e.book)]
    dropped = [e for e in entries if e not in kept]
    return CheckedShelf([replace(e, rank=i) for i, e in enumerate(kept, start=1)], dropped)
