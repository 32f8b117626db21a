"""The judged shelf benchmark: briefs whose every fitting book of one catalog was listed by reading the records.

A brief's judgments grade books 2 (fits) or 1 (acceptable); a book not listed is 0 (wrong). Per shelf: the share
of wrong books among its first 10 (a shorter shelf counts its own books only), nDCG@10 with gains 2/1/0 against
the ideal the judgments allow, the share of the whole shelf that fits, and its status against the expected one. Over a
set of briefs, the share of all shelved books that break their brief (grade 0) is issue 31's measure.
The file format is documented in benchmarks/judged/README.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from tasks.evaluation.metrics import ndcg_at

TOP = 10
GRADES = (1, 2)
STATUSES = ("done", "needs_review")
LANGUAGES = ("zh", "en")
DONE_FIT_SHARE = 0.9  # "done" promises that at least this share of the shelf fits (issue 29)


class JudgedFileError(ValueError):
    """A judged-benchmark file that does not fit the format."""


@dataclass(frozen=True)
class JudgedBrief:
    id: str
    lang: str
    theme_name: str
    description: str | None
    source: str
    status: str  # expected: done where the catalog holds at least 10 fitting works
    conditions: str
    judgments: Mapping[str, int]  # book id -> 2 fits, 1 acceptable; unlisted is 0


@dataclass(frozen=True)
class JudgedScore:
    id: str
    lang: str
    shelf_size: int
    top_size: int  # books among the first 10 that were counted
    wrong_share: float | None  # grade 0 among the first 10; None for an empty shelf
    ndcg: float
    fit_share: float | None  # grade >= 1 over the whole shelf; None for an empty shelf
    status: str
    expected_status: str
    broken: int  # grade-0 books over the whole shelf, not only its first 10

    @property
    def status_ok(self) -> bool:
        return self.status == self.expected_status

    @property
    def done_unfit(self) -> bool:
        """Said "done" while less than 90% of the shelf fits."""
        return self.status == "done" and (self.fit_share or 0.0) < DONE_FIT_SHARE


@dataclass(frozen=True)
class JudgedSummary:
    briefs: int
    mean_wrong_share: float | None  # over briefs with a shelf
    mean_ndcg: float | None
    done_unfit: int
    status_ok: int
    empty_shelves: int
    broken_share: float | None  # grade-0 books over all shelved books of the set, pooled (issue 31); None if none


def load_judged(path: Path) -> list[JudgedBrief]:
    """The briefs of a judged-benchmark file; a bad field stops with the brief and field named."""
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    briefs, seen = [], set()
    for number, item in enumerate(raw.get("briefs") or (), start=1):
        where = f"{path}: brief {number} ({item.get('id', 'no id') if isinstance(item, dict) else 'not a mapping'})"
        if not isinstance(item, dict) or not item.get("id"):
            raise JudgedFileError(f"{where}: id: missing")
        if item["id"] in seen:
            raise JudgedFileError(f"{where}: id: used twice")
        seen.add(item["id"])
        brief = item.get("brief") or {}
        if not isinstance(brief, dict) or not str(brief.get("theme_name") or "").strip():
            raise JudgedFileError(f"{where}: brief.theme_name: missing")
        if item.get("lang") not in LANGUAGES:
            raise JudgedFileError(f"{where}: lang: must be one of {', '.join(LANGUAGES)}")
        if item.get("status") not in STATUSES:
            raise JudgedFileError(f"{where}: status: must be one of {', '.join(STATUSES)}")
        judgments = item.get("judgments") or {}
        bad = [k for k, v in judgments.items() if v not in GRADES]
        if bad:
            raise JudgedFileError(f"{where}: judgments.{bad[0]}: grade must be 1 or 2 (leave a wrong book out)")
        briefs.append(JudgedBrief(str(item["id"]), item["lang"], str(brief["theme_name"]),
                                  brief.get("description"), str(item.get("source") or ""), item["status"],
                                  str(item.get("conditions") or ""), {str(k): int(v) for k, v in judgments.items()}))
    return briefs


def grade(book_id: str, judgments: Mapping[str, int]) -> int:
    return judgments.get(book_id, 0)


def wrong_share_at(shelf: Sequence[str], judgments: Mapping[str, int], k: int = TOP) -> float | None:
    """Share of grade-0 books among the first k shelved; a shelf shorter than k counts its own books."""
    top = shelf[:k]
    return sum(1 for b in top if grade(b, judgments) == 0) / len(top) if top else None


def fit_share(shelf: Sequence[str], judgments: Mapping[str, int]) -> float | None:
    """Share of the whole shelf graded 1 or 2."""
    return sum(1 for b in shelf if grade(b, judgments) > 0) / len(shelf) if shelf else None


def judged_ndcg(shelf: Sequence[str], judgments: Mapping[str, int], works: Mapping[str, str] | None = None,
                k: int = TOP) -> float:
    """nDCG@k with gains 2/1/0; editions of one work count once in the ideal (a shelf holds a work once)."""
    work = (lambda b: works.get(b, b)) if works else (lambda b: b)
    by_work: dict[str, int] = {}
    for book, g in judgments.items():
        by_work[work(book)] = max(g, by_work.get(work(book), 0))
    return ndcg_at([work(b) for b in shelf], by_work, k)


def fitting_works(judgments: Mapping[str, int], works: Mapping[str, str] | None = None) -> int:
    """How many works the judgments say fit (grade >= 1): the count the expected status is read from."""
    return len({(works or {}).get(b, b) for b, g in judgments.items() if g > 0})


def score_shelf(brief: JudgedBrief, shelf: Sequence[str], status: str,
                works: Mapping[str, str] | None = None) -> JudgedScore:
    """One brief's shelf (book ids in shelf order) scored against its judgments."""
    return JudgedScore(brief.id, brief.lang, len(shelf), len(shelf[:TOP]), wrong_share_at(shelf, brief.judgments),
                       judged_ndcg(shelf, brief.judgments, works), fit_share(shelf, brief.judgments), status,
                       brief.status, sum(1 for b in shelf if grade(b, brief.judgments) == 0))


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def summarize(scores: Sequence[JudgedScore]) -> JudgedSummary:
    """Means over briefs: wrong share of the top 10 (briefs with a shelf), nDCG@10 (every brief), and counts; the
    share of shelved books that break their brief is pooled over books, so a long padded shelf weighs by its size."""
    shelved = [s.wrong_share for s in scores if s.wrong_share is not None]
    books = sum(s.shelf_size for s in scores)
    return JudgedSummary(len(scores), _mean(shelved), _mean([s.ndcg for s in scores]),
                         sum(s.done_unfit for s in scores), sum(s.status_ok for s in scores),
                         sum(1 for s in scores if s.shelf_size == 0),
                         round(sum(s.broken for s in scores) / books, 3) if books else None)


def summaries(scores: Sequence[JudgedScore]) -> dict[str, JudgedSummary]:
    """The summary over all briefs, then per language."""
    out = {"all": summarize(scores)}
    for lang in LANGUAGES:
        out[lang] = summarize([s for s in scores if s.lang == lang])
    return out
