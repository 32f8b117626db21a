"""Gating step: a weak, ambiguous or contradictory theme goes to a curator for review.

Such a theme still gets a provisional shelf, plus one short question with options from the
vocabulary, instead of a confidently filled shelf nobody asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from config.settings import GatingSettings
from config.vocabulary import Vocabulary, VocabularyValue
from tasks.catalog.embedders.base import Embedder
from tasks.models import Candidate, ThemeQuery
from tasks.recall.filters import contradictions


@dataclass(frozen=True)
class GateVerdict:
    status: str  # "done" | "needs_review"
    reasons: tuple[str, ...] = ()
    question: str | None = None
    options: tuple[str, ...] = ()


@dataclass(frozen=True)
class VocabularyVectors:
    """Every vocabulary value's profile vector, to name the values closest to a brief."""

    values: tuple[VocabularyValue, ...]
    matrix: np.ndarray

    @classmethod
    def build(cls, vocabulary: Vocabulary, embedder: Embedder) -> VocabularyVectors:
        values = vocabulary.all_values()
        return cls(values, embedder.embed_documents([v.profile_text for v in values]))

    def closest(self, brief_vector: np.ndarray, k: int = 3, exclude: Sequence[str] = ("genre",)) -> list[str]:
        order = np.argsort(-(self.matrix @ brief_vector), kind="stable")
        names = [self.values[i].name for i in order if self.values[i].dimension not in exclude]
        return names[:k]


def head_flatness(candidates: Sequence[Candidate]) -> float | None:
    """(top-1 - top-5) / top-1 of the fused scores; None with fewer than 5 candidates."""
    if len(candidates) < 5 or candidates[0].fused_score <= 0:
        return None
    return (candidates[0].fused_score - candidates[4].fused_score) / candidates[0].fused_score


def gate(query: ThemeQuery, candidates: Sequence[Candidate], shelved: int, closest_values: Sequence[str],
         settings: GatingSettings, head_matters: bool = True, history_skipped: int = 0) -> GateVerdict:
    """`done`, or `needs_review` with the reasons and one clarification question.

    `shelved` counts the books that passed everything: filters, threshold, history, availability.
    `head_matters` is false where an author or a book named in the brief defines the head;
    `history_skipped` counts candidates left out because recent shelves already hold them.
    """
    reasons = []
    question, options = None, ()
    clashes = contradictions(query.filter_conditions)
    if clashes:
        field, value = clashes[0]
        reasons.append(f"contradiction: {field}={value} is both MUST and MUST_NOT")
        question = f"「{value}」既被要求又被排除 / '{value}' is both required and excluded: which is meant?"
        options = (f"必须 {value} (must)", f"排除 {value} (exclude)", "不限 (either)")
    if shelved < settings.min_books:
        required = [f"{c.field}={'/'.join(c.values)}" for c in query.filter_conditions if c.operator != "SHOULD"]
        reasons.append(f"only {shelved} book{'' if shelved == 1 else 's'} pass (fewer than {settings.min_books})")
        if question is None and history_skipped:
            question = (f"近期书架已用掉 {history_skipped} 本合适的书，允许重复还是放宽主题？ / Recent shelves "
                        f"already hold {history_skipped} fitting books: repeat them or widen the theme?")
            options = ("允许重复 (repeat)", "放宽主题 (widen)", "保持现状 (keep)")
        if question is None and required:
            question = "符合全部条件的书太少，可以放宽哪一个？ / Too few books meet every condition: which may be relaxed?"
            options = tuple(required[:3])
    if query.confidence < settings.min_confidence:
        reasons.append(f"translation confidence {query.confidence:.2f} below {settings.min_confidence:.2f}")
    flatness = head_flatness(candidates) if head_matters else None
    if flatness is not None and flatness < settings.flat_head_gap:
        reasons.append(f"flat head: top-1 to top-5 gap {flatness:.3f} below {settings.flat_head_gap}")
    if reasons and question is None:
        question = "这个主题更接近哪种氛围？ / Which of these is closest to what the theme means?"
        options = tuple(closest_values[:3])
    return GateVerdict("needs_review" if reasons else "done", tuple(reasons), question, options)
