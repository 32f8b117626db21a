"""A brief as the stages search for it, and the books each recall path and fusion hand on."""

from __future__ import annotations

from dataclasses import dataclass, field

from tasks.model.conditions import FilterCondition, NumericCondition


@dataclass(frozen=True)
class ThemeQuery:
    """A theme brief translated into filters, BM25 keywords and a vector query."""

    filter_conditions: tuple[FilterCondition, ...]
    search_keywords: tuple[str, ...]
    synthetic_query: str
    confidence: float
    translator: str  # "rules", "llm", or "rules (llm failed: ...)"
    language: str = "zh"
    numeric_conditions: tuple[NumericCondition, ...] = ()
    # numbers the brief only prefers ("最好是近十年的", "ideally under 300 pages"): they order, never filter
    preferred_numbers: tuple[NumericCondition, ...] = ()

    def conditions(self, operator: str) -> tuple[FilterCondition, ...]:
        return tuple(c for c in self.filter_conditions if c.operator == operator)

    def describe_conditions(self) -> str:
        """Short human text, e.g. 'SHOULD emotional_tone=平静淡然; MUST_NOT emotional_tone=温暖治愈'."""
        parts = [f"{c.operator} {c.field}={'/'.join(c.values)}" for c in self.filter_conditions]
        return "; ".join(parts + [n.describe() for n in self.numeric_conditions]
                         + [n.describe("SHOULD") for n in self.preferred_numbers])


@dataclass(frozen=True)
class PathHit:
    """A book found by one recall path."""

    book_id: str
    score: float
    source: str  # "vector", "bm25" or "bm25_random"
    variant: str = ""  # the query variant that found it (vector paths: original, translation, synonyms ...)


@dataclass(frozen=True)
class Candidate:
    """A book after fusion, with its provenance on every path; steps return new ones, never change one."""

    book_id: str
    sources: list[str] = field(default_factory=list)
    ranks: dict[str, int] = field(default_factory=dict)  # path -> 1-based rank
    scores: dict[str, float] = field(default_factory=dict)  # path -> that path's score
    rrf_score: float = 0.0
    fused_score: float = 0.0  # what the list is ordered by: rrf_score, or the score fusion's sum
    rerank_score: float | None = None
    evidence: str | None = None  # the summary sentence closest to the brief
    query_variant: str | None = None  # on the vector path, the query variant that found it best
    # it may break the brief (a guess of a value the brief excludes, a children's book on an adult shelf): it fills
    # the shelf only after every other book, whatever their language (tasks/ranking/language.py)
    doubtful: bool = False
