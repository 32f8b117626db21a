"""Would the admission's turned-away books fit? For every judged dev brief, the books recalled high in the order
but below the floor their evidence asks, against the books the shelf took, by the evidence the product has
(issue 29: is the short shelf the admission's fault, or the evidence's?).

    .venv/bin/python benchmarks/turned_away.py \\
        --judged benchmarks/judged/demo-dev.yaml=config/demo/catalog.jsonl \\
        --judged-blind benchmarks/judged/gutenberg-dev.yaml=/work/catalogs-data/gutenberg/pg_top_catalog.jsonl

A book counts as fitting where its set grades it above 0 (the sets grade every fitting book of the catalog). Rows:
- shelved: the books on the brief's shelf (shelved alone, as lost_books.py does);
- turned away by place: recalled at that place of the order (1-10, 11-20, 21-40), not admitted;
- turned away by probability: its calibrated relevance (relevance.py) in bands under the floor;
- turned away by standing: what that probability stands on (relevance.standing);
- turned away, shares a heading with the shelf: carries a subject at most 5% of the catalog carries that at least
  a third of the shelf (and two books) carries: pseudo-relevance feedback on the catalog's own headings.
Only dev files are read (benchmarks/judged/README.md).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from benchmarks.lost_books import stages_of  # noqa: E402
from benchmarks.unrecalled import judged_arguments, ordered_sets  # noqa: E402

DEPTH = 40  # the order's places read: a shelf of 30 is filled from the top of the order, not below it
SPECIFIC = 0.05  # a heading carried by at most this share of the catalog says something about a book
SHARED = 3  # a heading the shelf holds in at least a third of its books (and two) is the shelf's own


def place(i: int) -> str:
    return "1-10" if i < 10 else "11-20" if i < 20 else "21-40"


def band(p: float | None) -> str:
    p = p or 0.0
    return "< 0.1" if p < 0.1 else "0.1-0.2" if p < 0.2 else "0.2-0.3" if p < 0.3 else ">= 0.3"


def main() -> None:
    args = judged_arguments(__doc__.splitlines()[0], "print every turned-away fitting book")
    from tasks.ranking.rank import shelve_ranking
    from tasks.ranking.relevance import standing

    rows: dict[str, Counter] = {}

    def count(row: str, name: str, fits: bool) -> None:
        rows.setdefault(row, Counter())[name, fits] += 1

    names = []
    for name, ctx, works, ordered in ordered_sets(args, "lost"):
        names.append(name)
        books = ctx.ranking.books
        carried = Counter(s for b in books.values() for s in set(b.subjects))
        for o in ordered:
            shelf = shelve_ranking(o.ranking, o.hits, o.understood, ctx.ranking)
            shelved = [e.book.book_id for e in shelf.entries]
            for b in shelved:
                count("shelved", name, o.judgments.get(b, 0) > 0)
            held = Counter(s for b in shelved for s in set(books[b].subjects) if carried[s] <= SPECIFIC * len(books))
            own = {s for s, k in held.items() if k >= max(2, len(shelved) / SHARED)}
            admitted = stages_of(o, ctx).admitted
            scored = len(o.ranking.evidence) == len(o.ranking.candidates)
            for i, c in enumerate(o.ranking.candidates[:DEPTH]):
                if c.book_id in admitted:
                    continue
                fits = o.judgments.get(c.book_id, 0) > 0
                count(f"turned away, place {place(i)}", name, fits)
                count(f"turned away, p {band(c.relevance)}", name, fits)
                if scored:
                    count(f"turned away, stands on {standing(o.ranking.evidence[i], o.ranking.weighed[i])}", name,
                          fits)
                if own & set(books[c.book_id].subjects):
                    count("turned away, shares a heading with the shelf", name, fits)
                if fits and args.show:
                    print(f"{name}\t{o.brief_id}\t{i + 1}\tp={c.relevance}\t{books[c.book_id].title}")
    print("| books | " + " | ".join(names) + " | all |")
    print("|---" * (len(names) + 2) + "|")
    groups = ("shelved", "turned away, place", "turned away, p ", "turned away, stands", "turned away, shares")
    for row in sorted(rows, key=lambda r: (next(i for i, g in enumerate(groups) if r.startswith(g)), r)):
        counts = rows[row]
        cells = [f"{counts[n, True]}/{counts[n, True] + counts[n, False]}" for n in names]
        fit = sum(counts[n, True] for n in names)
        every = fit + sum(counts[n, False] for n in names)
        print(f"| {row} | " + " | ".join(cells) + f" | {fit}/{every} ({fit / max(every, 1):.0%}) |")


if __name__ == "__main__":
    main()
