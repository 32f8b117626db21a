"""The catalog's own subjects as a vocabulary: every heading, heading part, tag and class caption its books carry,
with the number of books carrying it, its language and its vector.

A brief's topic is matched against this index (tasks/understanding/subjects.py), so that a shelf asks for what
the catalog's records say ("Cooking", "推理小说", DDC 641.5) rather than for a word its summaries happen to hold.

- A heading is split into its parts: "World War, 1939-1945 -- Campaigns" is the heading, "World War,
  1939-1945" and "Campaigns"; "长篇小说—中国—当代" is 长篇小说, 中国 and 当代. A part that is only a date or a
  century is no topic and is left out.
- An inverted heading ("Cooking, French") also holds its head ("Cooking") and is matched in natural order
  ("French cooking"); a comma before a date ("World War, 1939-1945") is no inversion.
- A heading with an imaginative form subdivision ("Men -- Psychology -- Fiction") holds its parts with the form
  ("Psychology -- Fiction"), matched by the part's own words too; a brief decides whether it wants the novels.
- A heading or part is found whole by a `heading` condition (tasks/model/subjects.py `subject_keys`).
- A tag is a vocabulary value a record's source gives (tags.genre 科幻).
- A class is a range of config/class_ranges.yaml (a period of history) some book is filed under, one entry per
  language of its caption; a literature is the record's `literature` facet, never a topic.
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
from tasks.model.subjects import Subject, heading_form, heading_parts, inverted

_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class SubjectIndex:
    """The subjects of a catalog, their vectors row for row, and the cache keys of the texts embedded."""

    subjects: tuple[Subject, ...]
    vectors: np.ndarray
    text_hashes: list[str]


def subject_language(text: str) -> str:
    return "zh" if _CJK.search(text) else "en"


def other_names(heading: str) -> tuple[str, ...]:
    """How a brief may say the heading: an inverted one in natural order ("French cooking"), one with an imaginative
    form subdivision without it ("Time travel" of "Time travel -- Fiction", which a brief on time travel stories
    means)."""
    turned = inverted(heading)
    form, parts = heading_form(heading)
    if turned:
        return (turned[1],)
    if form and len(parts) == 1:
        turned = inverted(parts[0])
        return (turned[1] if turned else parts[0],)
    return ()


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
        subjects.append(Subject(label, kinds[key], subject_language(label), count, "heading", (label,),
                                other_names(label)))
    tags = _count({(dim, v) for dim, values in b.tags.items() for v in values} for b in books)
    subjects += [Subject(value, "tag", subject_language(value), count, dim, (value,))
                 for (dim, value), count in tags.items()]
    prefixes = [set(b.class_prefixes) for b in books]
    # a literature is no topic: a brief naming one asks for the record's literature (translate/rules.py), and a
    # nation's word as a topic is the place ("写中国农村的小说" is about rural China, not every Chinese novel)
    for entry in (e for e in ranges.entries if e.kind != "literatures"):
        codes = set(entry.codes)
        count = sum(1 for held in prefixes if not held.isdisjoint(codes))
        if count:
            subjects += [Subject(entry.label[lang], "class", lang, count, "classification", entry.codes)
                         for lang in ("zh", "en")]
    return sorted(subjects, key=lambda s: (-s.books, s.kind, s.label))


def embedding_text(subject: Subject) -> str:
    """What a subject's vector is made from: an inverted heading in natural order ("French cooking"), one with an
    imaginative form subdivision without it ("Friendship" of "Friendship -- Fiction": a brief on friendship meets it
    by meaning, and its kind of book decides whether the stories stand)."""
    return subject.aliases[0] if subject.aliases else subject.label


def build_subject_index(books: Sequence[BookRecord], embedder: Embedder, db: CatalogDB,
                        use_cache: bool = True, fanout: Fanout | None = None) -> SubjectIndex:
    """The catalog's subjects with their vectors, embedded in the build's batches through the vector cache (a
    heading part is often embedded already, as a book's head line), on `fanout`'s workers where given."""
    subjects = collect_subjects(books)
    result = embed_with_cache([embedding_text(s) for s in subjects], embedder, db, "subjects", use_cache, fanout)
    return SubjectIndex(tuple(subjects), result.vectors, result.text_hashes)
