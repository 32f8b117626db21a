"""A curator's review of a shelf, as a reshelving applies it (`run --apply-review`).

A kept book is pinned at the place it had on the curator's version; a dropped or replaced book never comes
back to the theme; the places left are filled by the next fitting books in ranked order. An answered review
question acts as its option says (`option_actions` gives each option the workbook offers its action, in the
order `option_texts` words them): drop a condition, allow what was excluded, take a wish as enough.
Every shelved book is marked with what changed since the curator's version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.shelf import Change, Question, ShelfEntry

# What an option does; each is applied by ThemeReview below.
ACCEPT = "accept"  # the shelf as it is answers the question: it is no longer under review
DROP = "drop"  # the named conditions go from the brief's reading
WISH = "wish"  # the value is wished for (SHOULD)
REPEAT = "repeat"  # books of recent similar shelves may come back
MORE_PER_AUTHOR = "more_per_author"  # one more book per author
INCLUDE = "include"  # books with no copy, or likely excluded, to be checked: accepted, and said in the notes
LOWER_FLOOR = "lower_floor"  # the shelf takes books less sure to fit: its relevance floor lowered by LOWERED_FLOOR

LOWERED_FLOOR = 0.5  # the share of the relevance floor a shelf keeps once the curator lowered it

# The questions about the brief's topic: few books fit it (few_fit), or the catalog files none under it and holds
# no word of it (unheld). Both offer the nearest topics the catalog holds, then a lower floor.
FEW_FIT, UNHELD = "few_fit", "unheld"
UNREAD = "unread"  # the brief's words read as no word: it is asked what the shelf is about, naming them
TOPIC_QUESTIONS = (FEW_FIT, UNHELD)


def _condition(c: FilterCondition | NumericCondition) -> dict:
    return c.to_dict()


def option_actions(question: Question) -> tuple[dict, ...]:
    """Each option's action, one per text of `option_texts(question)`, in the same order."""
    if question.clash:
        must, excluded = (replace(question.clash, operator=op) for op in ("MUST", "MUST_NOT"))
        return ({"kind": DROP, "conditions": [_condition(excluded)]}, {"kind": DROP, "conditions": [_condition(must)]},
                {"kind": DROP, "conditions": [_condition(must), _condition(excluded)]})
    relaxed = {"kind": DROP, "conditions": [_condition(c) for c in question.relax]}
    fixed = {"history": ({"kind": REPEAT}, {"kind": ACCEPT}, {"kind": ACCEPT}),
             "author_cap": ({"kind": MORE_PER_AUTHOR}, {"kind": ACCEPT}),
             "availability": ({"kind": INCLUDE}, {"kind": ACCEPT}),
             "likely_excluded": ({"kind": INCLUDE}, {"kind": ACCEPT}),
             "unchecked": ({"kind": ACCEPT}, relaxed)}
    if question.kind in fixed:
        return fixed[question.kind]
    if question.kind == "subject":
        # the reading picked is wished for: its heading, tag or class range, as the subject index finds its books
        return tuple({"kind": WISH, "field": c.field, "values": list(c.values)} for c in question.wishes)
    if question.kind in TOPIC_QUESTIONS:
        return (*({"kind": WISH, "field": f, "value": v} for f, v, _ in question.topics), {"kind": LOWER_FLOOR})
    relax = tuple({"kind": DROP, "conditions": [_condition(c)]} for c in question.relax)
    about = tuple({"kind": WISH, "field": v.dimension, "value": v.name} for v in question.closest)
    return relax + about


@dataclass(frozen=True)
class ThemeReview:
    """A theme's answers in force, ready to apply."""

    pinned: Mapping[str, int] = field(default_factory=dict)  # book id -> its place on the curator's version
    dropped: frozenset[str] = frozenset()
    replaced: frozenset[str] = frozenset()
    action: Mapping = field(default_factory=dict)  # the answered question's action; {} when none
    answer: str = ""
    previous: tuple[str, ...] = ()  # the curator's version of the shelf

    @property
    def removed(self) -> frozenset[str]:
        return self.dropped | self.replaced

    @property
    def answered(self) -> bool:
        return bool(self.action)

    @property
    def empty(self) -> bool:
        return not (self.pinned or self.removed or self.action)

    def held_back(self, book_ids: frozenset[str]) -> frozenset[str]:
        """The books of recent similar shelves still held back: none once the curator said to repeat them."""
        return frozenset() if self.action.get("kind") == REPEAT else book_ids

    def per_author(self, most: int) -> int:
        return most + 1 if self.action.get("kind") == MORE_PER_AUTHOR else most

    @property
    def lowered(self) -> bool:
        """Whether the curator asked for books less sure to fit: books only near the brief in meaning included."""
        return self.action.get("kind") == LOWER_FLOOR

    def floor(self, floor: float) -> float:
        """The shelf's relevance floor: lowered once the curator asked for books less sure to fit."""
        return floor * LOWERED_FLOOR if self.lowered else floor

    def status(self, gated: str) -> str:
        """An answer that takes the shelf as it is closes the review; any other is judged by the gate again."""
        return "done" if gated == "needs_review" and self.action.get("kind") in (ACCEPT, INCLUDE) else gated

    def describe(self) -> str:
        """The run's note: what the curator's answers did."""
        parts = [f"{len(self.pinned)} kept in place", f"{len(self.dropped)} dropped",
                 f"{len(self.replaced)} replaced"]
        if self.answer:
            parts.append(f"answer: {self.answer}")
        return "review applied: " + ", ".join(parts)

    def amend(self, query: ThemeQuery) -> ThemeQuery:
        """The brief's reading with the answer applied: conditions dropped, or a value wished for."""
        kind = self.action.get("kind")
        if kind == DROP:
            gone = self.action["conditions"]
            filters = []
            for c in query.filter_conditions:
                removed = {v for d in gone if "operator" in d and d["field"] == c.field
                           and d["operator"] == c.operator for v in d["values"]}
                kept = tuple(v for v in c.values if v not in removed)
                if kept:
                    filters.append(replace(c, values=kept))
            numeric = tuple(n for n in query.numeric_conditions if n.to_dict() not in gone)
            return replace(query, filter_conditions=tuple(filters), numeric_conditions=numeric)
        if kind == WISH:
            values = tuple(self.action.get("values") or (self.action["value"],))  # a class range: several codes
            wish = FilterCondition(self.action["field"], values, "SHOULD")
            return replace(query, filter_conditions=(*query.filter_conditions, wish))
        return query

    def place(self, entries: Sequence[ShelfEntry], candidates: Mapping[str, Candidate],
              books: Mapping[str, BookRecord], size: int) -> list[ShelfEntry]:
        """The shelf: each kept book at its place, each replaced book's place taken by the best book new to the
        shelf, the other books (none kept or removed) filling the rest in ranked order: a dropped book's place
        closes up. A shelf with too few books left to reach a kept book's place ends with it."""
        pinned = {b: r for b, r in self.pinned.items() if b in books and b not in self.removed}
        free = [e for e in entries if e.book.book_id not in pinned and e.book.book_id not in self.removed]
        length = min(size, len(pinned) + len(free))
        slots: dict[int, ShelfEntry] = {}
        for book_id, rank in sorted(pinned.items(), key=lambda p: (p[1], p[0])):
            wanted = min(rank, length)
            # two kept books claim one place only on a hand-edited history: the nearest free place
            place = next((p for p in [*range(wanted, length + 1), *range(wanted - 1, 0, -1)] if p not in slots), None)
            if place is not None:
                slots[place] = ShelfEntry(place, books[book_id], candidates.get(book_id, Candidate(book_id)))
        newcomers = iter([e for e in free if e.book.book_id not in self.previous])
        for place in sorted(i for i, b in enumerate(self.previous, start=1) if b in self.replaced):
            if place not in slots and place <= length and (entry := next(newcomers, None)) is not None:
                slots[place] = entry
        taken = {id(e) for e in slots.values()}
        fill = iter([e for e in free if id(e) not in taken])
        shelf = [slots.get(place) or next(fill) for place in range(1, length + 1)]
        return [replace(e, rank=i) for i, e in enumerate(shelf, start=1)]

    def changes(self, entries: Sequence[ShelfEntry]) -> dict[str, Change]:
        """book id -> what changed since the curator's version, for every book on the new shelf."""
        if self.empty:
            return {}
        before = {b: i for i, b in enumerate(self.previous, start=1)}
        gone = [b for b in self.previous if b in self.removed]
        replaced_at = {i: b for i, b in enumerate(self.previous, start=1) if b in self.replaced}
        marks = {}
        for e in entries:
            book_id = e.book.book_id
            if book_id in self.pinned:
                marks[book_id] = Change("kept")
            elif book_id not in before and e.rank in replaced_at:
                marks[book_id] = Change("new", replaced_at[e.rank])
            elif book_id not in before:
                marks[book_id] = Change("new", ", ".join(gone)) if gone else Change("answered", self.answer)
            elif before[book_id] != e.rank:
                marks[book_id] = Change("moved", str(before[book_id]))
        return marks


NO_REVIEW = ThemeReview()
