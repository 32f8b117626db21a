"""The catalog's own subjects as a vocabulary: every heading, heading part, tag and class caption its books carry,
with the number of books carrying it, its language and its vector.

A brief's topic is matched against this index (tasks/understanding/subjects.py), so that a shelf asks for what
the catalog's records say ("Cooking", "推理小说", DDC 641.5) rather than for a word its summaries happen to hold.

- A heading is split into its parts: "World War, 1939-1945 -- Campaigns" is the heading, "World War,
  1939-1945" and "Campaigns"; "长篇小说—中国—当代" is 长篇小说, 中国 and 当代. A part that is only a date or a
  century is no topic and is left out.
- An inverted heading ("Cooking, French") also holds its head ("Cooking") and is matched in natural order
  ("French cooking"); a comma before a date ("World War, 1939-1945") is no inversion.
- A tag is a vocabulary value a record's source gives (tags.genre 科幻).
- A class is a range of config/class_ranges.yaml (a literature, a period of history) some book is filed under,
  one entry per language of its caption.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from config.class_ranges import ClassRanges, class_ranges
from storage.catalog_db import CatalogDB
from tasks.compute import Fanout
from tasks.model.books import BookRecord
from tasks.model.conditions import subject_words
from tasks.language.embedders.base import Embedder
from tasks.language.embedding import embed_with_cache
from tasks.model.subjects import Subject

# LCSH's " -- " (and its one-character forms), CNMARC's "—" / "－"; a slash between Chinese tags
_SUBDIVISION = re.compile(r"\s*(?:--+|—+|－+|–{2,}|/)\s*")
# A part that is a date or a period only: "1939-1945", "20th century", "二十世纪", "1980年代"
_DATE_ONLY = re.compile(r"^(?:\d{1,4}(?:\s*[-–]\s*\d{0,4})?|\d{1,2}(?:st|nd|rd|th)\s+century|[\d一二三四五六七八九十]+"
                        r"(?:世纪|年代|年)(?:[\d一二三四五六七八九十]+年代)?)$", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class SubjectIndex:
    """The subjects of a catalog, their vectors row for row, and the cache keys of the texts embedded."""

    subjects: tuple[Subject, ...]
    vectors: np.ndarray
    text_hashes: list[str]


def subject_language(text: str) -> str:
    return "zh" if _CJK.search(text) else "en"


def inverted(heading: str) -> tuple[str, str] | None:
    """("Cooking", "French cooking") of an inverted heading "Cooking, French"; None where the comma is not an
    inversion: a date after it ("World War, 1939-1945"), or more than one comma (a name, "Smith, John, 1900-")."""
    head, comma, rest = heading.partition(",")
    head, rest = head.strip(), rest.strip()
    if not comma or "," in rest or not head or not rest or any(ch.isdigit() for ch in rest) or not heading.isascii():
        return None
    return head, f"{rest} {head[0].lower()}{head[1:]}" if not head.isupper() else f"{rest} {head}"


def heading_parts(heading: str) -> list[str]:
    """The topics a heading holds besides itself: its subdivisions, the head of an inverted one ("Cooking" of
    "Cooking, French") and of a dated one ("World War" of "World War, 1939-1945"); never a date alone."""
    parts = [p for p in (p.strip(" .;,") for p in _SUBDIVISION.split(heading)) if p]
    found = parts if len(parts) > 1 else []
    for part in parts:
        turned = inverted(part)
        head, comma, rest = part.partition(",")
        if turned:
            found.append(turned[0])
        elif comma and _DATE_ONLY.match(rest.strip()):
            found.append(head.strip())
    return list(dict.fromkeys(p for p in found if p != heading and len(p) > 1 and not _DATE_ONLY.match(p)))


def _count(keys_per_book: Iterable[set[str]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for keys in keys_per_book:
        counts.update(keys)
    return counts


def collect_subjects(books: Sequence[BookRecord], ranges: ClassRanges | None = None) -> list[Subject]:
    """Every distinct heading, heading part, source tag and class range of these books, with its count of books.

    Headings and parts that normalise alike ("Cooking" and "cooking.") are one subject, written as most books
    write it; a part that is also a heading of its own is a heading.
    """
    ranges = ranges or class_ranges()
    spellings: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, str] = {}
    per_book: list[set[str]] = []
    for book in books:
        keys: set[str] = set()
        for heading in book.subjects:
            heading = heading.strip()
            key = subject_words(heading)
            if not key:
                continue
            spellings[key][heading] += 1
            kinds[key] = "heading"
            keys.add(key)
            for part in heading_parts(heading):
                part_key = subject_words(part)
                if part_key:
                    spellings[part_key][part] += 1
                    kinds.setdefault(part_key, "part")
                    keys.add(part_key)
        per_book.append(keys)
    counts = _count(per_book)
    subjects = []
    for key, count in counts.items():
        label = spellings[key].most_common(1)[0][0]
        turned = inverted(label)
        subjects.append(Subject(label, kinds[key], subject_language(label), count, "subject", (label,),
                                (turned[1],) if turned else ()))
    tags = _count({(dim, v) for dim, values in b.tags.items() for v in values} for b in books)
    subjects += [Subject(value, "tag", subject_language(value), count, dim, (value,))
                 for (dim, value), count in tags.items()]
    prefixes = [set(b.class_prefixes) for b in books]
    for entry in ranges.entries:
        codes = set(entry.codes)
        count = sum(1 for held in prefixes if not held.isdisjoint(codes))
        if count:
            subjects += [Subject(entry.label[lang], "class", lang, count, "classification", entry.codes)
                         for lang in ("zh", "en")]
    return sorted(subjects, key=lambda s: (-s.books, s.kind, s.label))


def embedding_text(subject: Subject) -> str:
    """What a subject's vector is made from: an inverted heading in natural order ("French cooking")."""
    return subject.aliases[0] if subject.aliases else subject.label


def build_subject_index(books: Sequence[BookRecord], embedder: Embedder, db: CatalogDB,
                        use_cache: bool = True, fanout: Fanout | None = None) -> SubjectIndex:
    """The catalog's subjects with their vectors, embedded in the build's batches through the vector cache (a
    heading part is often embedded already, as a book's head line), on `fanout`'s workers where given."""
    subjects = collect_subjects(books)
    result = embed_with_cache([embedding_text(s) for s in subjects], embedder, db, "subjects", use_cache, fanout)
    return SubjectIndex(tuple(subjects), result.vectors, result.text_hashes)
