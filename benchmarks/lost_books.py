"""Where a fitting book is lost: for every judged brief of the dev sets whose catalog holds at least FEW fitting
works while its shelf holds fewer, each fitting work off the shelf sorted into the one stage that lost it (issue 29).

    .venv/bin/python benchmarks/lost_books.py \\
        --judged benchmarks/judged/demo-dev.yaml=config/demo/catalog.jsonl \\
        --judged-blind benchmarks/judged/demo-dev.yaml=config/demo/catalog.jsonl \\
        --judged benchmarks/judged/gutenberg-dev.yaml=/work/catalogs-data/gutenberg/pg_top_catalog.jsonl [--show]

Stages, the first that holds:
- unrecalled/<cause>: no path brought it (benchmarks/unrecalled.py's causes, "condition" among them: it fails a
  hard condition as understood);
- admission: recalled, below the floor its evidence asks (relevance.Admission; its standing and probability are
  printed with --show: the calibration's to fix, not recall's);
- language: admitted, left out by the language preference (`only`);
- author cap: admitted, its author already had max_per_author books on the shelf;
- shelf full: admitted, after the shelf's size was reached;
- excluded: admitted, a work the brief or a review excludes (a book the brief names as its example: "Frankenstein
  and its kin").
Each brief is shelved alone (no earlier shelf of its batch as history). Only dev files are read
(benchmarks/judged/README.md).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from benchmarks.unrecalled import (  # noqa: E402
    cause,
    failing_conditions,
    family_of,
    judged_arguments,
    ordered_sets,
)

FEW = 10  # a catalog holding this many fitting works should fill a shelf with at least as many
STAGES = ("admission", "language", "author cap", "shelf full", "excluded")


@dataclass(frozen=True)
class Stages:
    """One brief's books at each stage after recall, as `rank.shelve_ranking` passes them on."""

    position: dict[str, int]  # every recalled book's place in the order
    admitted: frozenset[str]  # at or above the floor its evidence asks
    ordered: frozenset[str]  # of those, left by the language preference


def stages_of(o, ctx) -> Stages:
    from tasks.model.intent import POLICIES
    from tasks.ranking.language import choose_language, choose_preference, prefer_language
    from tasks.ranking.rank import admissible_of

    books, settings, understood = ctx.ranking.books, ctx.ranking.settings, o.understood
    admissible = admissible_of(o.ranking, ctx.ranking, understood.review.floor(settings.ranking.relevance_floor))
    language = choose_language(understood.query, choose_preference(understood.theme.language_preference, None,
                                                                   settings.shelf.language_preference))
    ordered = prefer_language(admissible, books, language,
                              by_relevance=not POLICIES[understood.understanding.intent].ordered_by)
    return Stages({c.book_id: i for i, c in enumerate(o.ranking.candidates)},
                  frozenset(c.book_id for c in admissible), frozenset(c.book_id for c in ordered))


def lost_at(book_id, o, ctx, stages: Stages, shelf, family) -> tuple[str, str]:
    """The stage that lost one fitting book off the shelf, and what it stood on where the admission turned it away
    (or the hard conditions it fails, where recall never saw it for them)."""
    from tasks.ranking.relevance import standing

    books, ranking, settings = ctx.ranking.books, o.ranking, ctx.ranking.settings
    if book_id not in stages.position:
        found = cause(books[book_id], o.understood, ctx, family)
        return "unrecalled/" + found, failing_conditions(books[book_id], o.understood, ctx) if found == "condition" else ""
    if book_id not in stages.admitted:
        i = stages.position[book_id]
        if len(ranking.evidence) != len(ranking.candidates):
            return "admission", f"p={ranking.candidates[i].relevance}"
        kind = standing(ranking.evidence[i], ranking.weighed[i])
        return "admission", f"{kind} p={ranking.candidates[i].relevance:.2f} weighed={ranking.weighed[i]:.2f}"
    if book_id not in stages.ordered:
        return "language", ""
    on_shelf = Counter(a for e in shelf.entries for a in e.book.authors)
    if any(on_shelf[a] >= settings.shelf.max_per_author for a in books[book_id].authors):
        return "author cap", ""
    return ("shelf full" if len(shelf.entries) >= settings.shelf.size else "excluded"), ""


def main() -> None:
    args = judged_arguments(__doc__.splitlines()[0], "print every lost book with its stage")
    from tasks.understanding.expansion import load_expansion_tables
    from tasks.ranking.rank import shelve_ranking

    totals: dict[str, Counter] = {}
    for name, ctx, works, ordered_briefs in ordered_sets(args, "lost"):
        books = ctx.ranking.books
        counts = totals.setdefault(name, Counter())
        tables = load_expansion_tables()
        for o in ordered_briefs:
            fitting = {}
            for b, g in o.judgments.items():
                if g > 0 and b in books:
                    fitting.setdefault(works.get(b, b), b)
            shelf = shelve_ranking(o.ranking, o.hits, o.understood, ctx.ranking)
            shelved = {works.get(e.book.book_id, e.book.book_id) for e in shelf.entries}
            held = shelved & set(fitting)
            if len(fitting) < FEW or len(held) >= FEW:
                continue
            counts["briefs"] += 1
            counts["fitting"] += len(fitting)
            counts["shelved fitting"] += len(held)
            counts["shelf size"] += len(shelf.entries)
            stages = stages_of(o, ctx)
            family = family_of(o.understood.query.search_keywords, ctx.tools.subjects, tables)
            for work, b in sorted(fitting.items()):
                if work in held:
                    continue
                # the work's recalled edition, if any: the one the stages saw
                recalled = next((c.book_id for c in o.ranking.candidates if works.get(c.book_id, c.book_id) == work), b)
                stage, why = lost_at(recalled, o, ctx, stages, shelf, family)
                counts[stage] += 1
                if args.show:
                    print(f"{name}\t{o.brief_id}\t{stage}\t{why}\t{books[recalled].title}"
                          f"\t{' | '.join(books[recalled].subjects[:4])}")
    for name, counts in totals.items():
        print(name, " ".join(f"{k}={v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
