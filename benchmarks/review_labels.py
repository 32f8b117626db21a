"""Labels written for the demo: a batch of the benchmark's briefs shelved, its workbook answered through openpyxl
as a curator would, and imported, so that `shelfwise eval --labels` and `shelfwise tune --labels` have verdicts.

The curator judges each shelved book on the demo catalog's own tags (config/demo/catalog.jsonl), never on what
Shelfwise guessed: a book that fails one of the brief's checks (benchmarks/briefs/demo.yaml: authors, years,
tags required or excluded) is dropped; one that passes them but holds none of the moods, settings or textures
the brief wishes for (the SHOULD conditions of its reading, in the summary's query column) is replaced; the
rest are kept. Briefs that refer to earlier shelves are left out (their batch history is not built here).

    .venv/bin/python -m benchmarks.review_labels --themes 24      # in the workspace of `make demo`
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml
from openpyxl import load_workbook

from config.settings import PROJECT_ROOT, load_settings
from config.vocabulary import get_vocabulary
from flows.cli import main as shelfwise
from tasks.catalog.ingest import ColumnMapping, validate_file
from tasks.evaluation.briefs import book_failures, load_benchmark
from tasks.evaluation.tags import true_values
from tasks.export.excel import IDS_SHEET, SUMMARY_COLUMNS

BRIEFS = PROJECT_ROOT / "benchmarks" / "briefs" / "demo.yaml"
CATALOG = PROJECT_ROOT / "config" / "demo" / "catalog.jsonl"
BATCH = "labels-demo"


def wished(query: str, dimensions: set[str]) -> dict[str, set[str]]:
    """The brief's wished values by dimension, from the summary's query column ("SHOULD field=a/b; ...")."""
    wishes: dict[str, set[str]] = {}
    for part in (query or "").split("; "):
        operator, _, rest = part.partition(" ")
        field, _, values = rest.partition("=")
        if operator == "SHOULD" and field in dimensions and field != "genre":
            wishes.setdefault(field, set()).update(values.split("/"))
    return wishes


def verdict(failures: list[str], wishes: dict[str, set[str]], book, vocabulary) -> str:  # noqa: ANN001
    if failures:
        return "drop"
    if wishes and not any(values & true_values(book, dim, vocabulary) for dim, values in wishes.items()):
        return "replace"
    return "keep"


def answer(workbook: Path, out: Path, checks: dict[str, dict]) -> dict[str, int]:
    """Every shelved book of the workbook judged; the verdicts written in the sheet's own language."""
    vocabulary = get_vocabulary()
    truth = {b.book_id: b for b in validate_file(CATALOG, ColumnMapping(), vocabulary).books}
    wb = load_workbook(workbook)
    keys = [key for key, _, _ in SUMMARY_COLUMNS]
    queries = {row[0].value: row[keys.index("query")].value for row in wb["summary"].iter_rows(min_row=2)}
    words = {"zh": {"keep": "保留", "drop": "去掉", "replace": "替换"}}
    counts = {"keep": 0, "drop": 0, "replace": 0}
    for kind, sheet, row, theme_id, book_id, _ in wb[IDS_SHEET].iter_rows(min_row=2, values_only=True):
        if kind != "book" or book_id not in truth:
            continue
        book = truth[book_id]
        said = verdict(book_failures(checks[theme_id], book, vocabulary),
                       wished(queries[theme_id], set(vocabulary.dimension_names)), book, vocabulary)
        counts[said] += 1
        chinese = wb[sheet]["I7"].value == "处理"
        wb[sheet][f"I{row}"] = words["zh"][said] if chinese else said
    wb.save(out)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--themes", type=int, default=24, help="briefs to shelve and judge (default 24)")
    args = parser.parse_args(argv)
    briefs = [b for batch in load_benchmark(BRIEFS) for b in batch.briefs
              if not (b.resolves_to and b.resolves_to.reference)][: args.themes]
    settings = load_settings()
    themes = settings.workspace / f"{BATCH}.yaml"
    themes.parent.mkdir(parents=True, exist_ok=True)
    themes.write_text(yaml.safe_dump({"batch_id": BATCH, "themes": [
        {"theme_id": b.id, "theme_name": b.brief} for b in briefs]}, allow_unicode=True), encoding="utf-8")
    if shelfwise(["run", str(themes)]) not in (0, 1):
        return 2
    answered = settings.outputs_dir / f"{BATCH}-answered.xlsx"
    counts = answer(settings.outputs_dir / f"{BATCH}.xlsx", answered, {b.id: b.checks for b in briefs})
    print(f"{len(briefs)} themes judged: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return shelfwise(["review", "import", str(answered)])


if __name__ == "__main__":
    sys.exit(main())
