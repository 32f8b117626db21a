"""Typed data passed between the shelf-generation steps."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from storage.models import FilterCondition, NumericCondition


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
    # the brief's topics matched to the catalog's subjects (tasks/understanding/subjects.py): their counts are said
    # beside the conditions they made, a doubtful one is asked in review, and the subject path recalls their books
    subjects: tuple[TopicSubjects, ...] = ()

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


def merge_conditions(conditions: Iterable[FilterCondition]) -> tuple[FilterCondition, ...]:
    """One condition per (field, operator), values in first-seen order."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for cond in conditions:
        values = grouped.setdefault((cond.field, cond.operator), [])
        values.extend(v for v in cond.values if v not in values)
    return tuple(FilterCondition(f, tuple(vals), op) for (f, op), vals in grouped.items() if vals)


@dataclass(frozen=True)
class Subject:
    """One subject of the catalog's own vocabulary (tasks/catalog/subjects.py): a heading, a part of one, a source
    tag or a class range, with the condition that finds its books."""

    label: str  # as the records write it ("Cooking, French", "推理小说"), or a class range's caption ("日本文学")
    kind: str  # heading | part | tag | class
    language: str  # zh | en
    books: int  # books of the catalog carrying it
    field: str  # the condition field that finds them: subject, classification, or a vocabulary dimension (a tag)
    values: tuple[str, ...]  # the condition's values: the heading itself, a tag's value, a range's class codes
    aliases: tuple[str, ...] = ()  # other ways it is said: an inverted heading in natural order ("French cooking")


REQUIRED_ROLE, PREFERRED_ROLE, DOUBTFUL_ROLE, EXCLUDED_ROLE = "required", "preferred", "doubtful", "excluded"


@dataclass(frozen=True)
class TopicPhrase:
    """A topic the brief names: its words, where, and whether it wants or excludes it."""

    text: str
    start: int
    end: int
    polarity: str  # wanted | excluded
    head: bool = False  # the brief's head noun: the kind of book the shelf is
    bare: bool = False  # the whole brief ("烹饪", "Travel writing")
    # the genre the reading took its words for (推理 -> 悬疑推理): a kind of book, asked about only where the brief's
    # other topics say another meaning
    genre: str = ""


@dataclass(frozen=True)
class SubjectMatch:
    """One subject a topic matched, how and how strongly (1 for the same words; a vector match, its similarity)."""

    topic: str
    subject: Subject
    strength: float
    how: str  # exact | holds | mapped | vector


@dataclass(frozen=True)
class TopicSubjects:
    """A topic, the subjects it matched and what the brief asks of them (tasks/understanding/subjects.py)."""

    topic: TopicPhrase
    matches: tuple[SubjectMatch, ...]
    role: str  # required | preferred | doubtful | excluded
    readings: tuple[tuple[SubjectMatch, ...], ...] = ()  # doubtful: the matches of each reading, the likelier first

    def reading_subjects(self) -> tuple[tuple[str, int], ...]:
        """Each reading as its largest subject and that subject's count of books: what a curator is asked to pick."""
        largest = (max(reading, key=lambda m: m.subject.books).subject for reading in self.readings)
        return tuple((s.label, s.books) for s in largest)


@dataclass(frozen=True)
class SubjectEvidence:
    """Why a book is on the brief's topic by its record: a matched subject it carries (a heading, a heading part, a
    source tag or a class range) and how strongly the brief's topic matched that subject. The subject recall path
    (tasks/recall/subject_path.py) gives it per book; the relevance score reads it."""

    book_id: str
    topic: str  # the brief's words ("cookbooks", "二战")
    subject: str  # the subject as the record carries it ("Cooking, French", "日本文学")
    kind: str  # heading | part | tag | class
    how: str  # exact | holds | mapped | vector
    strength: float  # the match's strength: 1 the same words, 0.9 a mapped term, a vector match its similarity
    role: str  # required | preferred: whether the brief asks for it or only prefers it
