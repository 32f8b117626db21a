"""The catalog's own subjects as a vocabulary, and what a brief's topics make of them: the subjects an index version
holds (tasks/catalog/subjects.py), a topic's matches and role (tasks/understanding/subjects.py), and the per-book
evidence the subject path gives (tasks/recall/paths/subject.py) for the relevance score to read."""

from __future__ import annotations

from dataclasses import dataclass


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
    (tasks/recall/paths/subject.py) gives it per book; the relevance score reads it."""

    book_id: str
    topic: str  # the brief's words ("cookbooks", "二战")
    subject: str  # the subject as the record carries it ("Cooking, French", "日本文学")
    kind: str  # heading | part | tag | class
    how: str  # exact | holds | mapped | vector
    strength: float  # the match's strength: 1 the same words, 0.9 a mapped term, a vector match its similarity
    role: str  # required | preferred: whether the brief asks for it or only prefers it
    books: int = 0  # books of the catalog carrying the subject: the fewer, the more telling
