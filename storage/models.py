"""Records that storage reads and writes: what a book, a rejected row and an index version are."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from functools import lru_cache
from typing import Literal

# Fields that come from a catalog source; content_hash is computed over exactly these.
SOURCE_FIELDS = (
    "book_id", "isbn", "title", "subtitle", "authors", "publisher", "pub_year", "language",
    "call_no", "summary", "author_intro", "toc", "tags", "rating", "rating_count", "pages",
    "copies_available", "subjects", "classification", "edition", "series", "original_title",
    "credits", "original_language",
)
# Source fields added after catalogs were first imported: they join the content hash only where a record has
# them, so that a catalog without them is not all "updated" on its next import.
_LATER_FIELDS = ("credits", "original_language")
FACET_ORIGINS = ("source", "crosswalk", "neighbours", "reference", "zero-shot")
MAX_CLASS_PREFIX = 16  # the longest class prefix a filter can name ("clc:I247.55" needs 7)
_NOT_A_WORD = re.compile(r"[^\w\u3400-\u9fff]+|_")


def subject_words(text: str) -> str:
    """Lower-case words separated by single spaces: how subject headings and subject conditions compare.

    A Latin term matches whole words ("war" is not in "award"); a Chinese term matches anywhere.
    """
    return " ".join(_NOT_A_WORD.sub(" ", unicodedata.normalize("NFKC", text).lower()).split())


Operator = Literal["MUST", "SHOULD", "MUST_NOT"]
OPERATORS: tuple[str, ...] = ("MUST", "SHOULD", "MUST_NOT")


@dataclass(frozen=True)
class FilterCondition:
    """One condition on a vocabulary dimension: the book has (any of) these values, or must not."""

    field: str
    values: tuple[str, ...]
    operator: Operator

    def to_dict(self) -> dict:
        return {"field": self.field, "values": list(self.values), "operator": self.operator}

    @classmethod
    def from_dict(cls, raw: dict) -> FilterCondition:
        return cls(raw["field"], tuple(raw["values"]), raw["operator"])


@dataclass(frozen=True)
class NumericCondition:
    """A hard numeric constraint from the brief, e.g. pub_year >= 1980; or a range it excludes ("nothing from the
    1980s"): op "outside", the numbers from `value` up to, not including, `upper` left out."""

    field: str  # pub_year | rating | pages
    op: str  # < <= > >= = != outside
    value: float
    upper: float | None = None  # "outside" only

    @property
    def last_left_out(self) -> float | None:
        """The last number an "outside" range leaves out, as a curator says it: 1989 of "the 1980s"."""
        return self.upper - 1 if self.upper is not None else None

    def describe(self, operator: str = "MUST") -> str:
        if self.op == "outside":
            return f"{operator} {self.field} outside {plain_number(self.value)}..{plain_number(self.last_left_out)}"
        return f"{operator} {self.field}{self.op}{plain_number(self.value)}"

    def to_dict(self) -> dict:
        return {"field": self.field, "op": self.op, "value": self.value,
                **({"upper": self.upper} if self.upper is not None else {})}


def plain_number(value: float) -> int | float:
    """A number as a person writes it: 1980, not 1980.0."""
    return int(value) if float(value).is_integer() else value


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
    # Set by storage / enrichment, not by sources:
    tag_origin: str | None = None  # "source" | "enriched" | None
    facets: tuple[Facet, ...] = ()  # every derived value with its confidence and origin (source tags included)
    work_id: str = ""  # the work this edition belongs to (editions, printings, translations share it)
    content_hash: str = ""
    updated_at: datetime | None = None

    def source_dict(self) -> dict:
        """The source fields as plain JSON-able values."""
        data = asdict(self)
        out = {name: data[name] for name in SOURCE_FIELDS}
        out["authors"] = list(self.authors)
        out["subjects"] = list(self.subjects)
        out["classification"] = list(self.classification)
        out["credits"] = list(self.credits)
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
        """The subject headings as filters read them: `subject_words` of all headings, space padded. A record
        without any is read by its title: over a catalog of titles and authors (a Goodreads export) "except
        Poirot" had kept "The Murder on the Links (Hercule Poirot, #2)", which no subject heading could exclude."""
        return f" {subject_words(' '.join(self.subjects) if self.subjects else self.title)} "

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


@dataclass(frozen=True)
class RejectedRow:
    """A source row that failed validation, kept with its reason."""

    source_file: str
    row_number: int
    field: str
    reason: str
    raw: dict


@dataclass(frozen=True)
class ImportWarning:
    """A value that could not be read as its field: the book was kept, the field left empty or cleaned."""

    source_file: str
    row_number: int
    field: str
    message: str
    value: str


@dataclass(frozen=True)
class ImportCounts:
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: int = 0
    warnings: int = 0
    overwritten: int = 0  # updated books that an earlier import had taken from another source file


@dataclass(frozen=True)
class IndexVersion:
    """One finished index build, as recorded in DuckDB."""

    version_id: str
    created_at: datetime
    path: str
    snapshot_hash: str
    book_count: int
    sentence_count: int
    embedder: str
    embedding_dim: int
    books_embedded: int
    sentences_embedded: int
    stage_seconds: dict[str, float]
    is_current: bool = False


LANGUAGE_PREFERENCES = ("first", "only", "any")  # books in the brief's language: first, only, or no preference


@dataclass(frozen=True)
class Theme:
    """A curator's theme brief, one of a batch."""

    batch_id: str
    theme_id: str
    theme_name: str
    slogan: str = ""
    description: str = ""
    target_vibe: str = ""
    position: int = 0  # order within the batch; earlier themes claim books first
    status: str = "pending"  # pending | done | needs_review | failed
    language_preference: str = ""  # books in the brief's language: first | only | any; "": the batch's choice

    @property
    def brief(self) -> str:
        """The whole brief as one text."""
        return "\n".join(p for p in (self.theme_name, self.slogan, self.description, self.target_vibe) if p)


@dataclass(frozen=True)
class HistoryShelf:
    """A shelf delivered earlier, as de-duplication and references see it."""

    batch_id: str
    theme_id: str
    brief: str
    conditions: tuple[FilterCondition, ...]
    book_ids: tuple[str, ...]
    numeric: tuple[NumericCondition, ...] = ()  # its year, page or rating ranges
    position: int = 0  # the theme's place in its batch
    batch_started: datetime | None = None  # when its batch first ran
    recent: bool = True  # within history.days (or of this batch): its books are not shelved again for a similar brief


RECALL_PATHS = ("vector", "bm25", "e5")  # e5 runs only where the index was built with index.e5_path


@dataclass(frozen=True)
class StageSwitches:
    """Which optional stages a run uses: one record for the CLI, the flows, a batch's stored choice and eval.

    None keeps what the settings say. A batch stores its curator-facing switches (sentence rerank, query
    expansion, language preference) so that its reruns give the same shelves; the others exist for evaluation.
    """

    sentence_rerank: bool | None = None
    query_expansion: bool | None = None
    language_preference: str | None = None  # first | only | any (shelf.language_preference when None)
    paths: tuple[str, ...] = RECALL_PATHS
    bm25_randomness: float | None = None  # None: recall.bm25_randomness
    rerank: bool = True  # the configured HTTP reranker, if any

    def over(self, stored: StageSwitches) -> StageSwitches:
        """These switches, with the stored batch choice where these leave a curator switch open."""
        return replace(self, sentence_rerank=_first_set(self.sentence_rerank, stored.sentence_rerank),
                       query_expansion=_first_set(self.query_expansion, stored.query_expansion),
                       language_preference=_first_set(self.language_preference, stored.language_preference))


def _first_set(*choices: bool | str | None) -> bool | str | None:
    return next((c for c in choices if c is not None), None)
