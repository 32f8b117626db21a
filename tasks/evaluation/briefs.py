"""The shelf benchmark: curators' briefs with machine-checkable checks, run batch by batch.

Per brief: the share of shelved books that pass every per-book check on their true catalog data, the
share whose true values meet the brief's own MUST / MUST_NOT conditions, how many works repeat on the
shelf, the status against the one the brief expects, and whether the brief resolved to what it names.
The file format is documented at the top of benchmarks/briefs/demo.yaml.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from config.vocabulary import Vocabulary
from tasks.evaluation.tags import true_values
from tasks.intake.themes import themes_from_text
from tasks.language.text_analysis import detect_language
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition

PER_BOOK = ("authors_none", "authors_any", "year_min", "year_max", "pages_min", "pages_max", "rating_min",
            "language", "tags_any", "tags_none", "form", "form_none", "audience", "titles_none")
PER_SHELF = ("status", "question", "resolves_to", "head_authors")
# What a shelf should get may differ by catalog: a brief that requires what only the tags say (a page-turner)
# is shelved on the tagged catalog, and on the tag-blind one sent to review with a question. Such a check is
# written {tagged: ..., tag_blind: ...}.
PER_CATALOG = ("status", "question")
CATALOGS = ("tagged", "tag_blind")


@dataclass(frozen=True)
class Resolution:
    """What a brief should resolve to: an intent, the authors and titles it names, the brief it refers to."""

    intent: str | None = None
    authors: tuple[str, ...] = ()
    titles: tuple[str, ...] = ()
    reference: str | None = None  # the id of an earlier brief


@dataclass(frozen=True)
class BenchBrief:
    id: str
    brief: str
    style: str
    checks: dict  # the raw per-book and per-shelf checks
    resolves_to: Resolution | None = None

    @property
    def language(self) -> str:
        return self.id.split("-")[0]


@dataclass(frozen=True)
class BenchBatch:
    batch_id: str
    briefs: tuple[BenchBrief, ...]


class BenchmarkFileError(ValueError):
    """A benchmark file that does not fit the format."""


def load_benchmark(path: Path, tag_blind: bool = False) -> list[BenchBatch]:
    """The batches of a benchmark file, every check key known and every brief id unique, each per-catalog check
    read for the catalog shelved (tag-blind or tagged); or of a themes file."""
    text = path.read_text(encoding="utf-8")
    raw = yaml.safe_load(text) or {}
    if "themes" in raw:  # a batch's themes file: its briefs as they are shelved, with no checks of their own
        batch = themes_from_text(text, source=str(path))
        briefs = (BenchBrief(f"{detect_language(t.brief)}-{t.theme_id}", t.brief, "", {}) for t in batch.themes)
        return [BenchBatch(batch.batch_id, tuple(briefs))]
    batches, seen = [], set()
    for b in raw.get("batches") or ():
        briefs = []
        for item in b.get("briefs") or ():
            checks = dict(item.get("checks") or {})
            unknown = set(checks) - set(PER_BOOK) - set(PER_SHELF)
            if unknown or item["id"] in seen:
                raise BenchmarkFileError(f"{path}: brief {item['id']}: "
                                         + (f"unknown checks {sorted(unknown)}" if unknown else "repeated id"))
            seen.add(item["id"])
            for name in PER_CATALOG:
                if isinstance(checks.get(name), dict):
                    if set(checks[name]) != set(CATALOGS):
                        raise BenchmarkFileError(f"{path}: brief {item['id']}: {name} per catalog needs exactly "
                                                 f"{', '.join(CATALOGS)}")
                    checks[name] = checks[name][CATALOGS[tag_blind]]
            resolves = checks.pop("resolves_to", None)
            resolution = Resolution(resolves.get("intent"), tuple(resolves.get("authors") or ()),
                                    tuple(resolves.get("titles") or ()), resolves.get("reference")) if resolves else None
            briefs.append(BenchBrief(item["id"], str(item["brief"]), item.get("style", ""), checks, resolution))
        batches.append(BenchBatch(str(b["batch_id"]), tuple(briefs)))
    return batches


def _norm(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).lower().split())


def book_failures(checks: Mapping, book: BookRecord, vocabulary: Vocabulary) -> list[str]:
    """The per-book checks a shelved book fails, on its true catalog data (a missing value fails a bound)."""
    failed = []

    def bound(name: str, value, ok) -> None:
        if name in checks and (value is None or not ok(value, checks[name])):
            failed.append(name)

    authors = {_norm(a) for a in book.authors}
    if {_norm(a) for a in checks.get("authors_none", ())} & authors:
        failed.append("authors_none")
    if "authors_any" in checks and not {_norm(a) for a in checks["authors_any"]} & authors:
        failed.append("authors_any")
    bound("year_min", book.pub_year, lambda v, c: v >= c)
    bound("year_max", book.pub_year, lambda v, c: v <= c)
    bound("pages_min", book.pages, lambda v, c: v >= c)
    bound("pages_max", book.pages, lambda v, c: v <= c)
    bound("rating_min", book.rating, lambda v, c: v >= c)
    bound("language", book.language, lambda v, c: v == c)
    for dim, values in (checks.get("tags_any") or {}).items():
        if not set(values) & true_values(book, dim, vocabulary):
            failed.append(f"tags_any.{dim}")
    for dim, values in (checks.get("tags_none") or {}).items():
        if set(values) & true_values(book, dim, vocabulary):
            failed.append(f"tags_none.{dim}")
    forms = true_values(book, "form", vocabulary)
    if "form" in checks and checks["form"] not in forms:
        failed.append("form")
    if set(checks.get("form_none", ())) & forms:
        failed.append("form_none")
    children = "children" in true_values(book, "audience", vocabulary)
    if "audience" in checks and children != (checks["audience"] == "children"):
        failed.append("audience")
    if _norm(book.title) in {_norm(t) for t in checks.get("titles_none", ())}:
        failed.append("titles_none")
    return failed


def meets_conditions(book: BookRecord, conditions: Sequence[FilterCondition], vocabulary: Vocabulary) -> bool:
    """Whether the book's TRUE values meet the facet MUST / MUST_NOT conditions a brief was translated into."""
    for cond in conditions:
        if cond.field not in vocabulary.facet_names or cond.operator == "SHOULD":
            continue
        held = bool(set(cond.values) & true_values(book, cond.field, vocabulary))
        if held != (cond.operator == "MUST"):
            return False
    return True


def wish_share(books: Sequence[BookRecord], conditions: Sequence[FilterCondition], vocabulary: Vocabulary
               ) -> float | None:
    """Per mood, setting, texture or situation the brief wishes for (SHOULD), the share of the shelf whose TRUE
    values hold one of the wished ones; their mean. None where the brief wishes for none of them (or the
    shelf is empty). Genre wishes are left out: they are mostly MUST in disguise, checked by the benchmark."""
    wished: dict[str, set[str]] = {}
    for cond in conditions:
        if cond.operator == "SHOULD" and cond.field in vocabulary.dimension_names and cond.field != "genre":
            wished.setdefault(cond.field, set()).update(cond.values)
    if not wished or not books:
        return None
    return sum(sum(bool(values & true_values(b, dimension, vocabulary)) for b in books) / len(books)
               for dimension, values in wished.items()) / len(wished)


@dataclass(frozen=True)
class ShelfOutcome:
    """What the product made of one brief."""

    status: str
    intent: str
    authors: tuple[str, ...]
    titles: tuple[str, ...]
    reference: str | None  # "batch/theme" of the shelf it took as referenced
    book_ids: tuple[str, ...]
    conditions: tuple[FilterCondition, ...]
    question: str | None = None  # the kind of question a shelf under review asks (tasks/ranking/gating.py)


@dataclass(frozen=True)
class BriefScore:
    id: str
    language: str
    style: str
    books: int
    pass_share: float | None  # None for an empty shelf
    condition_share: float | None  # true values meeting the brief's own MUST / MUST_NOT
    duplicates: int  # books on the shelf whose work is already on it
    status: str
    expected_status: str | None
    resolved: bool | None  # None where the brief names nothing to resolve to
    failures: dict[str, int] = field(default_factory=dict)
    wish_share: float | None = None  # true values holding the moods etc. the brief wishes for (wish_share)

    @property
    def status_ok(self) -> bool:
        return self.expected_status is None or self.status == self.expected_status


def score_brief(brief: BenchBrief, outcome: ShelfOutcome, truth: Mapping[str, BookRecord], vocabulary: Vocabulary,
                brief_theme: Mapping[str, str]) -> BriefScore:
    """One brief's scores; `brief_theme` maps brief ids to the "batch/theme" their shelves were recorded as."""
    books = [truth[b] for b in outcome.book_ids if b in truth]
    failures: dict[str, int] = {}
    passing = meeting = 0
    for book in books:
        failed = book_failures(brief.checks, book, vocabulary)
        passing += not failed
        meeting += meets_conditions(book, outcome.conditions, vocabulary)
        for name in failed:
            failures[name] = failures.get(name, 0) + 1
    head = brief.checks.get("head_authors")
    if head and books and not {_norm(a) for a in head} & {_norm(a) for a in books[0].authors}:
        failures["head_authors"] = 1
    if "question" in brief.checks and outcome.question != brief.checks["question"]:
        failures["question"] = 1
    works = [b.work_id or b.book_id for b in books]
    return BriefScore(
        brief.id, brief.language, brief.style, len(books),
        passing / len(books) if books else None, meeting / len(books) if books else None,
        len(works) - len(set(works)), outcome.status, brief.checks.get("status"),
        _resolved(brief.resolves_to, outcome, brief_theme), failures,
        wish_share(books, outcome.conditions, vocabulary))


def _resolved(expected: Resolution | None, outcome: ShelfOutcome, brief_theme: Mapping[str, str]) -> bool | None:
    if expected is None:
        return None
    ok = expected.intent is None or expected.intent == outcome.intent
    ok &= set(map(_norm, expected.authors)) <= set(map(_norm, outcome.authors))
    ok &= set(map(_norm, expected.titles)) <= set(map(_norm, outcome.titles))
    if expected.reference is not None:
        ok &= outcome.reference == brief_theme.get(expected.reference)
    return ok


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def summary(scores: Sequence[BriefScore]) -> dict[str, object]:
    """The benchmark's means: pass share (per brief, then per language), duplicates, statuses, resolutions."""
    filled = [s for s in scores if s.pass_share is not None]
    return {
        "briefs": len(scores),
        "mean pass share": _mean([s.pass_share for s in filled]),
        "mean pass share zh": _mean([s.pass_share for s in filled if s.language == "zh"]),
        "mean pass share en": _mean([s.pass_share for s in filled if s.language == "en"]),
        "mean condition share": _mean([s.condition_share for s in filled]),
        "mean wish share": _mean([s.wish_share for s in scores if s.wish_share is not None]),
        "briefs with a failing book": sum(1 for s in filled if s.pass_share < 1),
        "duplicate works": sum(s.duplicates for s in scores),
        "status as expected": f"{sum(s.status_ok for s in scores)}/{len(scores)}",
        "needs_review not expected": sum(1 for s in scores if s.status == "needs_review"
                                         and s.expected_status == "done"),
        "done though review expected": sum(1 for s in scores if s.status == "done"
                                           and s.expected_status == "needs_review"),
        "resolved as expected": f"{sum(1 for s in scores if s.resolved)}/{sum(1 for s in scores if s.resolved is not None)}",
    }
