"""The read-alikes' admission measured and fitted: every read-alike brief (a named book, a likeness) of judged dev
sets, each candidate's likeness to its book, what its probability stands on, and whether it fits.

    .venv/bin/python benchmarks/alike_fit.py \\
        --judged benchmarks/judged/demo-next2.yaml=config/demo/catalog.jsonl \\
        --judged-blind benchmarks/judged/demo-next2.yaml=config/demo/catalog.jsonl \\
        --judged benchmarks/judged/gutenberg-next.yaml=/work/catalogs-data/gutenberg/pg_top_catalog.jsonl ...

Each brief the reader reads as a read-alike (`Intent.SIMILAR_TO_BOOK` with a book found) is ordered by the product
path (benchmarks/shelf_decision.py `order_judged`) and shelved as configured. Printed: per brief, its shelf (size,
wrong) and its fitting works; then, of the candidates at or above the floor that their likeness lifts over the
weights (`standing` ALIKE, or ALIKE_GUESSED where the likeness rests on guessed values), how many fit in each band of
the weights' own probability, and the support of each (config/relevance.yaml `admission.kinds.<kind>.supports`,
`alike` and `alike guessed`) shelf_decision.py's rule chooses: the lowest band from which they fit ADMIT_FIT of the
time. Only dev files: the holdout and next5.. sets are never opened here.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag in ("--judged", "--judged-blind"):
        parser.add_argument(flag, action="append", default=[], metavar="FILE=CATALOG")
    args = parser.parse_args()
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from benchmarks.shelf_decision import ADMIT_FIT, READ_AT, SUPPORTS, lowest_fitting, order_judged
    from config.settings import configure_runtime_environment, load_settings
    from tasks.model.intent import Intent
    from tasks.ranking.rank import shelve_ranking
    from tasks.ranking.relevance import ALIKE, ALIKE_GUESSED, standing

    settings = load_settings()
    configure_runtime_environment(settings)  # Prefect inside the workspace, and time for its server on a busy machine
    root = settings.workspace / "eval"
    lifted = []  # (its standing, the weights' probability, fits) of each candidate its likeness lifts from READ_AT
    for flag, blind in ((args.judged, False), (args.judged_blind, True)):
        for item in flag:
            file, _, catalog = item.partition("=")
            catalog_path = Path(catalog).resolve()
            name = f"{Path(file).stem}{' tag-blind' if blind else ''}"
            workspace = root / f"judged-{'blind-' if blind else ''}{catalog_path.stem}"
            ctx, works, ordered = order_judged(name, Path(file), catalog_path, workspace, blind)
            for o in ordered:
                if o.understood.understanding.intent is not Intent.SIMILAR_TO_BOOK or not o.ranking.evidence:
                    continue
                fits = {works.get(b, b) for b, g in o.judgments.items() if g > 0}
                shelf = [e.book.book_id for e in shelve_ranking(o.ranking, o.hits, o.understood, ctx.ranking).entries]
                wrong = sum(works.get(b, b) not in fits for b in shelf)
                print(f"{name:<24} {o.brief_id:<36} shelf {len(shelf):>2}, wrong {wrong:>2}; fitting works {len(fits)}")
                for c, e, w in zip(o.ranking.candidates, o.ranking.evidence, o.ranking.weighed):
                    kind = standing(e, w)
                    if c.relevance is not None and c.relevance >= READ_AT and kind in (ALIKE, ALIKE_GUESSED):
                        lifted.append((kind, w, works.get(c.book_id, c.book_id) in fits))
    ends = (*SUPPORTS[1:], 1.01)
    for kind in (ALIKE, ALIKE_GUESSED):  # a likeness on sure values, and one resting on guesses
        theirs = [(w, f) for k, w, f in lifted if k == kind]
        bands = [(sum(f for w, f in theirs if lo <= w < hi), sum(lo <= w < hi for w, _ in theirs))
                 for lo, hi in zip(SUPPORTS, ends)]
        print(f"\n{kind}: lifted by their likeness, from {READ_AT}, by the weights' own probability (fitting / books): "
              + ", ".join(f"{lo:.1f}-: {fit}/{n}" for lo, (fit, n) in zip(SUPPORTS, bands)))
        print(f"support for {kind} (fit {ADMIT_FIT} from): {lowest_fitting(theirs, SUPPORTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
