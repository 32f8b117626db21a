"""The judged shelf benchmark: shelve judged briefs over their catalog and score every shelf against the judgments.

    .venv/bin/python benchmarks/judged_eval.py --briefs benchmarks/judged/demo-dev.yaml \\
        --catalog config/demo/catalog.jsonl [--tag-blind] [--json OUT] [--workspace DIR]

The catalog is imported and indexed into its own workspace (<workspace>/eval/judged-[blind-]<catalog>, as
`shelfwise eval --briefs` does; caches make reruns cheap), every brief is shelved by the product path as one
batch, and each shelf is scored (tasks/evaluation/judged.py): wrong share of the top 10, nDCG@10, the share of
the shelf that fits, status against the expected one; over the set, the share of all shelved books that are wrong.
--json also writes each shelf's top 10 with grades, so that later runs can be compared book by book.
benchmarks/judged/README.md has the figures and the format.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))


def share(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--briefs", required=True, help="a judged-briefs file (benchmarks/judged/*.yaml)")
    parser.add_argument("--catalog", required=True, help="the catalog file the briefs were judged on")
    parser.add_argument("--tag-blind", action="store_true", help="import the catalog without its vocabulary tags")
    parser.add_argument("--json", metavar="OUT", help="also write the scores and each shelf's top 10 to OUT")
    parser.add_argument("--workspace", help="the workspace to index the catalog in (default: under the settings')")
    args = parser.parse_args()
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

    from config.settings import SettingsError, configure_runtime_environment, load_settings
    from flows.cli import USER_ERRORS
    from flows.evaluate import benchmark_settings, shelve_judged
    from flows.prefect_api import flow_api
    from storage.workspace_lock import workspace_lock
    from tasks.evaluation.judged import (TOP, JudgedFileError, fitting_works, grade, load_judged, score_shelf,
                                         summaries)

    briefs_path, catalog = Path(args.briefs).resolve(), Path(args.catalog).resolve()
    try:
        briefs = load_judged(briefs_path)
        settings = load_settings()
    except (JudgedFileError, SettingsError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if not briefs:
        print(f"error: {briefs_path}: no briefs", file=sys.stderr)
        return 2
    configure_runtime_environment(settings)
    folder = Path(args.workspace) if args.workspace else (
        settings.workspace / "eval" / f"judged-{'blind-' if args.tag_blind else ''}{catalog.stem}")
    run_settings = benchmark_settings(settings, folder.resolve())
    run_settings.workspace.mkdir(parents=True, exist_ok=True)
    batch_id = f"judged-{briefs_path.stem}"
    forms = [{"theme_id": b.id, "theme_name": b.theme_name, **({"description": b.description} if b.description
                                                                else {})} for b in briefs]
    try:
        with workspace_lock(run_settings.workspace, f"benchmarks/judged_eval.py {briefs_path.name}",
                            run_settings.locking.wait_seconds), flow_api(run_settings):
            shelves, works = shelve_judged(batch_id, forms, catalog, run_settings, args.tag_blind)
    except USER_ERRORS as err:  # a bad catalog file, a busy workspace, a Prefect server that did not start
        print(f"error: {err}", file=sys.stderr)
        return 2
    by_theme = {s.theme.theme_id: s for s in shelves}
    titles = {e.book.book_id: e.book.title for s in shelves for e in s.entries}

    scores, shelved = [], []
    for brief in briefs:
        shelf = by_theme.get(brief.id)
        ids = [e.book.book_id for e in shelf.entries] if shelf else []
        score = score_shelf(brief, ids, shelf.status if shelf else "failed", works)
        scores.append(score)
        shelved.append({**dataclasses.asdict(score), "fitting_works": fitting_works(brief.judgments, works),
                        "top": [{"book_id": b, "title": titles.get(b, ""), "grade": grade(b, brief.judgments)}
                                for b in ids[:TOP]]})

    print(f"{briefs_path.name} over {catalog.name}{' (tags hidden)' if args.tag_blind else ''}")
    print(f"{'brief':<34} {'shelf':>5} {'fit':>4} {'wrong@10':>8} {'nDCG@10':>8} {'fits':>5} "
          f"{'status':<13} expected")
    for s, row in zip(scores, shelved):
        print(f"{s.id:<34} {s.shelf_size:>5} {row['fitting_works']:>4} {share(s.wrong_share):>8} "
              f"{s.ndcg:>8.3f} {share(s.fit_share):>5} {s.status:<13} {s.expected_status}"
              + ("  [done, under 90% fits]" if s.done_unfit else ""))
    table = summaries(scores)
    print(f"{'':<6} {'briefs':>6} {'wrong@10':>9} {'nDCG@10':>8} {'done <90% fits':>15} {'status ok':>10} "
          f"{'shelved wrong':>13}")
    for name, m in table.items():
        print(f"{name:<6} {m.briefs:>6} {share(m.mean_wrong_share):>9} {share(m.mean_ndcg):>8} "
              f"{m.done_unfit:>15} {m.status_ok:>6}/{m.briefs:<3} {share(m.broken_share):>13}")
    if args.json:
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps({"briefs_file": briefs_path.relative_to(PROJECT).as_posix()
                                   if briefs_path.is_relative_to(PROJECT) else str(briefs_path),
                                   "catalog": catalog.name, "tag_blind": args.tag_blind,
                                   "summary": {k: dataclasses.asdict(v) for k, v in table.items()},
                                   "shelves": shelved}, ensure_ascii=False, indent=1), encoding="utf-8")
        tmp.replace(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
