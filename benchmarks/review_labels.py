"""Labels written for the demo as a curator writes them: the judged dev briefs shelved as one batch, its workbook
answered through openpyxl, and imported, so that `shelfwise eval --labels` and `shelfwise tune --labels` have
verdicts a curator would give.

A curator keeps the books that fit the brief and drops those that do not. What fits is read from the demo's judged
dev briefs (benchmarks/judged/demo-dev.yaml: every fitting book of the catalog listed after reading the records,
graded 2 fits, 1 acceptable, unlisted 0): a shelved book graded 1 or 2 is kept, one graded 0 dropped, an edition
judged through its work's grade. Only the books Shelfwise actually shelved are judged, in the sheet's own language
(keep / drop, 保留 / 去掉). No verdict comes from the catalog's tags or from what Shelfwise guessed.

    .venv/bin/python -m benchmarks.review_labels           # in the workspace of `make demo`
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import yaml
from openpyxl import load_workbook

from config.settings import PROJECT_ROOT, Settings, load_settings
from flows.cli import main as shelfwise
from storage.index_root import index_root
from storage.index_store import open_current
from tasks.evaluation.judged import JudgedBrief, load_judged
from tasks.export.excel import IDS_SHEET

JUDGED = PROJECT_ROOT / "benchmarks" / "judged" / "demo-dev.yaml"
BATCH = "labels-demo"
WORDS = {"en": {True: "keep", False: "drop"}, "zh": {True: "保留", False: "去掉"}}


def fits(brief: JudgedBrief, book_id: str, works: Mapping[str, str]) -> bool:
    """Whether the judgments grade the book, or another edition of its work, 1 or 2."""
    work = works.get(book_id, book_id)
    return any(grade >= 1 and works.get(b, b) == work for b, grade in brief.judgments.items())


def answer(workbook: Path, out: Path, kept: Callable[[str, str], bool | None]) -> dict[str, int]:
    """Every shelved book of the workbook judged, `kept(theme_id, book_id)` (None: left blank), in the sheet's own
    language; the counts of each verdict."""
    wb = load_workbook(workbook)
    counts = {"keep": 0, "drop": 0}
    for kind, sheet, row, theme_id, book_id, _ in wb[IDS_SHEET].iter_rows(min_row=2, values_only=True):
        said = kept(theme_id, book_id) if kind == "book" else None
        if said is None:
            continue
        counts[WORDS["en"][said]] += 1
        chinese = wb[sheet]["I7"].value == "处理"
        wb[sheet][f"I{row}"] = WORDS["zh" if chinese else "en"][said]
    wb.save(out)
    return counts


def shelve(settings: Settings, briefs: Mapping[str, JudgedBrief]) -> Path:
    """The briefs run as one batch in the workspace; its workbook."""
    themes = settings.workspace / f"{BATCH}.yaml"
    themes.parent.mkdir(parents=True, exist_ok=True)
    themes.write_text(yaml.safe_dump({"batch_id": BATCH, "themes": [
        {"theme_id": b.id, "theme_name": b.theme_name, **({"description": b.description} if b.description else {})}
        for b in briefs.values()]}, allow_unicode=True), encoding="utf-8")
    if shelfwise(["run", str(themes)]) not in (0, 1):
        raise SystemExit(f"{themes}: the batch did not run")
    return settings.outputs_dir / f"{BATCH}.xlsx"


def judged_verdicts(settings: Settings, briefs: Mapping[str, JudgedBrief]) -> Callable[[str, str], bool | None]:
    """A curator's verdict on a shelved book: kept where it fits its brief."""
    works = {b.book_id: b.work_id or b.book_id for b in open_current(index_root(settings)).load_books()}
    return lambda theme_id, book_id: fits(briefs[theme_id], book_id, works) if theme_id in briefs else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judged", default=str(JUDGED), help="the judged briefs (default: the demo's dev half)")
    args = parser.parse_args(argv)
    if "holdout" in Path(args.judged).name or "next" in Path(args.judged).name:
        print(f"{args.judged}: held-out judgments are never answered from", file=sys.stderr)
        return 2
    briefs = {b.id: b for b in load_judged(Path(args.judged))}
    settings = load_settings()
    workbook = shelve(settings, briefs)
    answered = settings.outputs_dir / f"{BATCH}-answered.xlsx"
    counts = answer(workbook, answered, judged_verdicts(settings, briefs))
    print(f"{len(briefs)} themes judged: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return shelfwise(["review", "import", str(answered)])


if __name__ == "__main__":
    sys.exit(main())
