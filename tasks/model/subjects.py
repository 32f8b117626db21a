"""The catalog's own subjects as a vocabulary, and what a brief's topics make of them: the subjects an index version
holds (tasks/catalog/subjects.py), a topic's matches and role (tasks/understanding/subjects.py), and the per-book
evidence the subject path gives (tasks/recall/paths/subject.py) for the relevance score to read."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from config.settings import CONFIG_DIR
from config.yaml_files import read_yaml
from tasks.model.conditions import FilterCondition, subject_words

# LCSH's " -- " (and its one-character forms), CNMARC's "—" / "－"; a slash between Chinese tags or BISAC's parts
_SUBDIVISION = re.compile(r"\s*(?:--+|—+|－+|–{2,}|/)\s*")
# A part that is a date or a period only: "1939-1945", "20th century", "二十世纪", "1980年代"
_DATE_ONLY = re.compile(r"^(?:\d{1,4}(?:\s*[-–]\s*\d{0,4})?|\d{1,2}(?:st|nd|rd|th)\s+century|[\d一二三四五六七八九十]+"
                        r"(?:世纪|年代|年)(?:[\d一二三四五六七八九十]+年代)?)$", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff]")
_CONJUNCTION = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)
# a person's name heading, inverted, with a qualifier saying who it is: "Holmes, Sherlock (Fictitious character)",
# "Poirot, Hercule (Fictitious character)"; a brief names them in their own order
_NAMED = re.compile(r"([^,()]+),\s*([^,()]+?)\s*\([^()]+\)")


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
    # a modifier's ("women" in "women in science"): the head topic's matches, which its books must carry too: its own
    # headings only narrow the head's, never bring a book alone
    within: tuple[SubjectMatch, ...] = ()

    def largest_readings(self) -> tuple[Subject, ...]:
        """Each reading as its largest subject: what a curator is asked to pick."""
        return tuple(max(reading, key=lambda m: m.subject.books).subject for reading in self.readings)

    def reading_subjects(self) -> tuple[tuple[str, int], ...]:
        """Each reading's largest subject and its count of books, as the question words them."""
        return tuple((s.label, s.books) for s in self.largest_readings())

    def reading_wishes(self) -> tuple[FilterCondition, ...]:
        """Each reading as the wish that finds its books: the answer a curator picks acts as that wish."""
        return tuple(FilterCondition(s.field, s.values, "SHOULD") for s in self.largest_readings())


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


@lru_cache(maxsize=1)
def subjects_table() -> dict[str, tuple[str, ...]]:
    """config/subjects.yaml, read once for every stage: key -> its words of both languages."""
    raw = read_yaml(CONFIG_DIR / "subjects.yaml") or {}
    return {key: tuple(str(w) for language in ("zh", "en") for w in (words or {}).get(language) or ())
            for key, words in raw.items()}


@lru_cache(maxsize=1)
def imaginative_forms() -> frozenset[str]:
    """config/subjects.yaml `forms`: the subdivisions that make a heading's book a story, play or poem about its
    other parts ("-- Fiction", "-- Juvenile fiction", BISAC's "Fiction / ..."), in `subject_words` form."""
    return frozenset(subject_words(w) for w in subjects_table().get("forms", ()))


def inverted(heading: str) -> tuple[str, str] | None:
    """("Cooking", "French cooking") of an inverted heading "Cooking, French"; None where the comma is not an
    inversion: a date after it ("World War, 1939-1945"), more than one comma (a name, "Smith, John, 1900-"), or a
    heading with subdivisions."""
    head, comma, rest = heading.partition(",")
    head, rest = head.strip(), rest.strip()
    if (not comma or "," in rest or not head or not rest or any(ch.isdigit() for ch in rest)
            or not heading.isascii() or _SUBDIVISION.search(heading)):
        return None
    return head, f"{rest} {head[0].lower()}{head[1:]}" if not head.isupper() else f"{rest} {head}"


def heading_form(heading: str) -> tuple[str, list[str]]:
    """The heading's imaginative form subdivision ("Fiction" of "Time travel -- Fiction"; BISAC writes it first,
    "Fiction / Historical") and its other parts; ("", parts) where it has none. A heading of one part has no form
    subdivision: "Psychological fiction" is a kind of book, no form of another topic."""
    parts = [p for p in (p.strip(" .;,") for p in _SUBDIVISION.split(heading)) if p]
    forms = imaginative_forms()
    if len(parts) > 1 and subject_words(parts[-1]) in forms:
        return parts[-1], parts[:-1]
    if len(parts) > 1 and "/" in heading and "--" not in heading and subject_words(parts[0]) in forms:
        return parts[0], parts[1:]
    return "", parts


def conjuncts(part: str) -> list[str]:
    """The topics a part joins with "and" or "&" ("Description and travel": Description, travel; "Health &
    Fitness"); none for a part that joins nothing, holds a comma (a name, an inverted heading) or a qualifier
    ("Concertos (Harpsichord and piano)" joins two instruments, not two topics)."""
    if any(mark in part for mark in ",()") or not part.isascii():
        return []
    pieces = [p.strip() for p in _CONJUNCTION.split(part)]
    return [p[0].upper() + p[1:] for p in pieces] if len(pieces) > 1 and all(pieces) else []


def with_form(part: str, form: str) -> str:
    """A heading part said with its heading's form: "Psychology -- Fiction" (a novel about psychology)."""
    return f"{part}{'—' if _CJK.search(part + form) else ' -- '}{form}" if form else part


def heading_parts(heading: str) -> list[str]:
    """The subjects a heading holds besides itself: its subdivisions, the head of an inverted one ("Cooking" of
    "Cooking, French") and of a dated one ("World War" of "World War, 1939-1945"), a qualified name in its own order
    ("Sherlock Holmes" of "Holmes, Sherlock (Fictitious character)"); never a date alone. In a
    heading with an imaginative form subdivision each other part keeps the form ("Men -- Psychology -- Fiction"
    holds "Men -- Fiction", "Psychology -- Fiction" and "Fiction", not "Psychology"): a novel whose characters'
    psychology a heading names is no psychology book. A part joining topics holds each ("Description and travel"
    holds "Travel"), where a part that qualifies its last word does not ("Time travel" is no "Travel")."""
    form, parts = heading_form(heading)
    found = list(parts) if len(parts) > 1 or form else []
    for part in parts:
        turned = inverted(part)
        head, comma, rest = part.partition(",")
        if turned:
            found.append(turned[0])
            if named := _NAMED.fullmatch(part):  # "Holmes, Sherlock (Fictitious character)": "Sherlock Holmes"
                found.append(f"{named[2]} {named[1]}")
        elif comma and _DATE_ONLY.match(rest.strip()):
            found.append(head.strip())
        found += conjuncts(turned[0] if turned else part)
    found = [with_form(p, form) for p in found if not _DATE_ONLY.match(p)] + ([form] if form else [])
    return list(dict.fromkeys(p for p in found if p != heading and len(p) > 1))


@lru_cache(maxsize=1 << 16)
def subject_keys(headings: tuple[str, ...]) -> tuple[str, ...]:
    """Every heading and heading part of these headings in `subject_words` form: what a `heading` condition finds
    whole (a topic "Travel" is not in "Time travel"). Cached: the evaluator reads a book's subject text per
    condition."""
    keys = (subject_words(t) for h in headings for t in (h, *heading_parts(h)))
    return tuple(dict.fromkeys(k for k in keys if k))
