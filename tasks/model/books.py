"""What a book of the catalog is, with its facets and their origins."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from tasks.model.conditions import subject_words
from tasks.model.subjects import subject_keys

# Fields that come from a catalog source; content_hash is computed over exactly these.
SOURCE_FIELDS = (
    "book_id", "isbn", "title", "subtitle", "authors", "publisher", "pub_year", "language",
    "call_no", "summary", "author_intro", "toc", "tags", "rating", "rating_count", "pages",
    "copies_available", "subjects", "classification", "edition", "series", "original_title",
    "credits", "original_language", "material", "coded",
)
# Source fields added after catalogs were first imported: they join the content hash only where a record has
# them, so that a catalog without them is not all "updated" on its next import.
_LATER_FIELDS = ("credits", "original_language", "material", "coded")


FACET_ORIGINS = ("source", "crosswalk", "neighbours", "reference", "zero-shot")


MAX_CLASS_PREFIX = 16  # the longest class prefix a filter can name ("clc:I247.55" needs 7)


@dataclass(frozen=True, slots=True)
class Facet:
    """A book's value on a vocabulary dimension (or its `form` or `audience`): how sure, and from what."""

    dimension: str
    value: str
    confidence: float  # how often a book given this value by this origin truly has it
    origin: str  # one of FACET_ORIGINS
    because: str = ""  # what it was derived from: "clc I247.5", "subject 科幻小说", "4 of 5 neighbours"

    def to_dict(self) -> dict:
        return {"dimension": self.dimension, "value": self.value, "confidence": round(self.confidence, 4),
                "origin": self.origin, "because": self.because}


@lru_cache(maxsize=1 << 16)
def shared_facet(dimension: str, value: str, confidence: float, origin: str, because: str = "") -> Facet:
    """One shared object per distinct facet: 100k books hold 1.2M facets but under 2,000 distinct ones (guesses
    take few calibrated confidences), so a catalog's books load, and are enriched, in a fraction of the memory."""
    return Facet(dimension, value, confidence, origin, because)


@dataclass(frozen=True, slots=True)
class BookRecord:
    """One catalog book. `tags` maps a vocabulary dimension to the values its source gave it."""

    book_id: str
    title: str
    isbn: str | None = None
    subtitle: str | None = None
    authors: tuple[str, ...] = ()
    publisher: str | None = None
    pub_year: int | None = None
    language: str | None = None
    call_no: str | None = None
    summary: str | None = None
    author_intro: str | None = None
    toc: str | None = None
    tags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    rating: float | None = None
    rating_count: int | None = None
    pages: int | None = None
    copies_available: int | None = None
    subjects: tuple[str, ...] = ()  # subject headings and reader tags, any language ("Butlers -- Fiction", "推理")
    classification: tuple[str, ...] = ()  # "scheme:code": "clc:I246.7", "ddc:823.914", "lcc:PR6059.S5"
    edition: str | None = None  # the edition statement: "第2版", "25th anniversary edition"
    series: str | None = None  # the series statement: "企鹅经典 ; 12"
    original_title: str | None = None  # a translation's original (uniform) title
    # the persons of the record as it wrote them, where that says more than `authors` (who the book is by, names
    # only): "[日]东野圭吾 著", "王蕴洁 译", "Sendak, Maurice, illustrator" (tasks/catalog/names.py reads them)
    credits: tuple[str, ...] = ()
    original_language: str | None = None  # a translation's original language (MARC 041 $h, CNMARC 101 $c): "jpn"
    # what the record says it is (config/materials.yaml: "text", "film", "audiobook"); None: the record does not say
    material: str | None = None
    # what the record codes of its form and audience, "scheme:code": "marc21_literary_form:p", "unimarc_audience:b"
    # (config/crosswalk.yaml `coded` reads them)
    coded: tuple[str, ...] = ()
    # Set by storage / enrichment, not by sources:
    tag_origin: str | None = None  # "source" | "enriched" | None
    facets: tuple[Facet, ...] = ()  # every derived value with its confidence and origin (source tags included)
    work_id: str = ""  # the work this edition belongs to (editions, printings, translations share it)
    content_hash: str = ""
    updated_at: datetime | None = None

    def source_dict(self) -> dict:
        """The source fields as plain JSON-able values."""
        # read field by field: asdict copied every field deeply, the facets too, for fields replaced or dropped here
        # (a third of validating a catalog's rows)
        out = {name: getattr(self, name) for name in SOURCE_FIELDS}
        out["authors"] = list(self.authors)
        out["subjects"] = list(self.subjects)
        out["classification"] = list(self.classification)
        out["credits"] = list(self.credits)
        out["coded"] = list(self.coded)
        for name in _LATER_FIELDS:
            if not out[name]:
                del out[name]
        out["tags"] = {dim: list(vals) for dim, vals in sorted(self.tags.items())}
        return out

    def compute_content_hash(self) -> str:
        payload = json.dumps(self.source_dict(), ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def confidence(self, dimension: str, value: str) -> float:
        """How sure the catalog is that the book has this value (1 for its source's own tags)."""
        if value in self.tags.get(dimension, ()):
            return 1.0
        return max((f.confidence for f in self.facets if f.dimension == dimension and f.value == value), default=0.0)

    def values_at(self, dimension: str, min_confidence: float) -> frozenset[str]:
        """The book's values of a dimension held with at least this confidence."""
        derived = {f.value for f in self.facets if f.dimension == dimension and f.confidence >= min_confidence}
        return frozenset(self.tags.get(dimension, ())) | derived

    def held_values(self, min_confidence: float) -> dict[str, set[str]]:
        """`values_at` of every dimension at once: dimension -> the values held with at least this confidence."""
        held = {dimension: set(values) for dimension, values in self.tags.items()}
        for f in self.facets:
            if f.confidence >= min_confidence:
                held.setdefault(f.dimension, set()).add(f.value)
        return held

    @property
    def subject_text(self) -> str:
        """The subject headings as filters read them: `subject_words` of every heading and heading part
        (tasks/model/subjects.py), each between bars, so that a word is found in any ("war" in "| world war |")
        and a heading whole ("| travel |" is not in "| time travel |"), never a phrase across two. A record
        without any is read by its title: over a catalog of titles and authors (a Goodreads export) "except
        Poirot" had kept "The Murder on the Links (Hercule Poirot, #2)", which no subject heading could exclude."""
        keys = subject_keys(self.subjects) if self.subjects else (subject_words(self.title),)
        return f"| {' | '.join(keys)} |"

    @property
    def class_prefixes(self) -> tuple[str, ...]:
        """Every prefix of every classification code ("clc:I", "clc:I2", "clc:I24" ...): a code "starts with"."""
        found = []
        for code in self.classification:
            scheme, _, number = code.partition(":")
            number = number.replace(" ", "").upper()
            found += [f"{scheme}:{number[:n]}" for n in range(1, min(len(number), MAX_CLASS_PREFIX) + 1)]
        return tuple(dict.fromkeys(found))

    @property
    def title_line(self) -> str:
        parts = [self.title]
        if self.subtitle:
            parts.append(self.subtitle)
        if self.authors:
            parts.append(" / ".join(self.authors))
        return " — ".join(parts)
