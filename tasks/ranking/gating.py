"""Gating step: a weak, contradictory or short theme goes to a curator for review instead of a blindly
filled shelf. It still gets its provisional shelf, plus one short question whose options help: the
conditions that could be relaxed, or the vocabulary values closest to the brief's meaning.

A shelf is short when fewer than gating.min_books books pass everything; the question then names what
limited it most: recent shelves that already hold the fitting books, the per-author cap, books with no
copies on the shelf, or the brief's own conditions (a year range, a required genre ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from config.settings import GatingSettings
from config.vocabulary import Vocabulary, VocabularyValue
from tasks.catalog.embedders.base import Embedder
from tasks.models import ThemeQuery
from tasks.recall.filters import contradictions


@dataclass(frozen=True)
class GateVerdict:
    status: str  # "done" | "needs_review"
    reasons: tuple[str, ...] = ()
    question: str | None = None
    options: tuple[str, ...] = ()
    limited_by: str | None = None  # history | author_cap | availability | conditions | catalog, for a short shelf


@dataclass(frozen=True)
class ShelfLimits:
    """What kept fitting books off a shelf."""

    held_back: int = 0  # on a recent similar shelf (or the book a "like this" brief names)
    over_author_cap: int = 0
    unavailable: int = 0  # fitting books with no copies on the shelf


@dataclass(frozen=True)
class VocabularyVectors:
    """Every vocabulary value's profile vector, to name the values closest to a brief."""

    values: tuple[VocabularyValue, ...]
    matrix: np.ndarray

    @classmethod
    def build(cls, vocabulary: Vocabulary, embedder: Embedder) -> VocabularyVectors:
        values = vocabulary.all_values()
        return cls(values, embedder.embed_documents([v.profile_text for v in values]))

    def closest(self, brief_vector: np.ndarray, k: int = 3, floor: float = 0.0,
                exclude: Sequence[str] = ("genre",)) -> list[str]:
        """The k values most similar to the brief, none below `floor` (an unrelated brief gets none)."""
        similarities = self.matrix @ brief_vector
        order = np.argsort(-similarities, kind="stable")
        names = [self.values[i].name for i in order
                 if self.values[i].dimension not in exclude and similarities[i] >= floor]
        return names[:k]


def _plain(query: ThemeQuery) -> list[str]:
    """The hard conditions in a short form for an option: "genre=科幻", "pub_year>=1980"."""
    hard = [f"{'not ' if c.operator == 'MUST_NOT' else ''}{c.field}={'/'.join(c.values)}"
            for c in query.filter_conditions if c.operator != "SHOULD"]
    return hard + [n.describe().removeprefix("MUST ") for n in query.numeric_conditions]


def _short_shelf_question(shelved: int, limits: ShelfLimits, query: ThemeQuery,
                          settings: GatingSettings) -> tuple[str, str, tuple[str, ...]]:
    """(what limited the shelf, the question, its options), the largest limit first."""
    hard = _plain(query)
    candidates = [("history", limits.held_back), ("author_cap", limits.over_author_cap),
                  ("availability", limits.unavailable)]
    limit, count = max(candidates, key=lambda c: c[1])
    if count and (not hard or count >= settings.min_books - shelved):
        if limit == "history":
            return limit, (f"近期书架已用掉 {count} 本合适的书，允许重复还是放宽主题？ / Recent shelves already hold "
                           f"{count} fitting books: repeat them or widen the theme?"), (
                "允许重复 (repeat)", "放宽主题 (widen)", "保持现状 (keep)")
        if limit == "author_cap":
            return limit, (f"还有 {count} 本合适的书出自已上架两本的作者，放宽每位作者的上限吗？ / {count} more fitting "
                           "books are by authors already on the shelf: allow more per author?"), (
                "每位作者最多三本 (3 per author)", "保持两本 (keep 2)")
        return limit, (f"有 {count} 本合适的书目前没有可借副本，要放进书架吗？ / {count} fitting books have no copies "
                       "on the shelf: include them?"), ("包括无副本的书 (include)", "保持现状 (keep)")
    if hard:
        return "conditions", ("符合全部条件的书太少，可以放宽哪一个？ / Too few books meet every condition: which may "
                              "be relaxed?"), tuple(hard[:3])
    return "catalog", ("馆藏里这个主题的书太少，换个说法或放宽主题？ / The catalog holds few books on this theme: "
                       "rephrase or widen it?"), ()


def gate(query: ThemeQuery, shelved: int, limits: ShelfLimits, closest_values: Sequence[str],
         settings: GatingSettings, recognised: bool = True) -> GateVerdict:
    """`done`, or `needs_review` with the reasons and one question.

    `shelved` counts the books that passed everything; `recognised` is false for a brief nothing of which
    the vocabulary, the catalog's names or its words explain (intent unknown).
    """
    reasons: list[str] = []
    question, options, limited_by = None, (), None
    clashes = contradictions(query.filter_conditions)
    if clashes:
        field, value = clashes[0]
        reasons.append(f"contradiction: {field}={value} is both MUST and MUST_NOT")
        question = f"「{value}」既被要求又被排除 / '{value}' is both required and excluded: which is meant?"
        options = (f"必须 {value} (must)", f"排除 {value} (exclude)", "不限 (either)")
    if not recognised:
        reasons.append("nothing in the brief is recognised: no value, name, number or word the catalog holds")
        question = question or "这个书架想围绕什么？ / What should this shelf be about?"
        options = options or tuple(closest_values[:3])
    if shelved < settings.min_books:
        reasons.append(f"only {shelved} book{'' if shelved == 1 else 's'} pass (fewer than {settings.min_books})")
        limited_by, short_question, short_options = _short_shelf_question(shelved, limits, query, settings)
        if question is None:
            question, options = short_question, short_options or tuple(closest_values[:3])
    return GateVerdict("needs_review" if reasons else "done", tuple(reasons), question, options, limited_by)
