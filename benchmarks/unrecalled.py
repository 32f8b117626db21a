"""Why a fitting work was never recalled: every judged fitting book of the dev sets that no recall path brought,
sorted into one cause each, read from its record against the brief as understood (issue 31, recall).

    .venv/bin/python benchmarks/unrecalled.py \\
        --judged benchmarks/judged/demo-dev.yaml=config/demo/catalog.jsonl \\
        --judged-blind benchmarks/judged/demo-dev.yaml=config/demo/catalog.jsonl \\
        --judged benchmarks/judged/gutenberg-dev.yaml=/work/catalogs-data/gutenberg/pg_top_catalog.jsonl [--show]

Causes, the first that holds:
- unavailable: no copy on the shelf (every path recalls available books only);
- condition: the book fails the brief's hard conditions as understood (a MUST its record does not hold surely);
- subject: it carries a subject the brief matched (the subject path's depth);
- family: it carries a heading whose head is a topic of the brief ("World War, 1939-1945" for "war"), unmatched;
- words: its record holds a content word of the brief (BM25's depth, or the word is common);
- other language: its record is in the other language and says nothing of the brief in its own;
- nothing: no word of the brief and no matched subject: the record says it in other words.
Only dev files are read (benchmarks/judged/README.md).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from benchmarks.shelf_decision import order_judged  # noqa: E402

CAUSES = ("unavailable", "condition", "subject", "family", "words", "other language", "nothing")


def cause(book, understood, ctx, family_labels: set[str]) -> str:
    from tasks.language.text_analysis import detect_language
    from tasks.model.constraints import condition_expr, evaluate
    from tasks.model.subjects import REQUIRED_ROLE, PREFERRED_ROLE, subject_keys
    from tasks.model.conditions import subject_words

    if book.copies_available is not None and book.copies_available <= 0:
        return "unavailable"
    if not evaluate(understood.constraints, book):
        return "condition"
    query = understood.query
    matches = [m for t in query.subjects if t.role in (REQUIRED_ROLE, PREFERRED_ROLE) for m in t.matches]
    if any(evaluate(condition_expr(m.subject.field, m.subject.values), book) for m in matches):
        return "subject"
    keys = set(subject_keys(tuple(book.subjects)))
    if keys & {subject_words(label) for label in family_labels}:
        return "family"
    text = " ".join([book.title or "", book.summary or "", *book.subjects]).lower()
    words = [w.lower() for w in query.search_keywords if len(w) >= 2]
    if any(w in text for w in words):
        return "words"
    brief_language = detect_language(understood.theme.brief)
    return "other language" if book.language and book.language != brief_language else "nothing"


def failing_conditions(book, understood, ctx) -> str:
    """The hard conditions the book fails, each with whether a heading it carries is named by the value's names."""
    from tasks.model.constraints import hard_constraints, evaluate, numeric_expr
    from tasks.ranking.relevance import value_names
    from tasks.model.subjects import subject_keys
    from tasks.understanding.subjects import _key

    query, out = understood.query, []
    confidence = ctx.ranking.snapshot.filter_confidence
    keys = {_key(k) for k in subject_keys(tuple(book.subjects))}
    for c in query.filter_conditions:
        if c.operator != "MUST_NOT" and c.operator != "MUST":
            continue
        if not evaluate(hard_constraints((c,), facet_confidence=confidence), book):
            named = [n for v in c.values for n in value_names(c.field, v, ctx.tools.vocabulary) if _key(n) in keys]
            out.append(f"{c.operator} {c.field}={'/'.join(c.values)}" + (f" [headings say {named[0]}]" if named else ""))
    out += [f"{n.field}{n.op}{n.value}" for n in query.numeric_conditions if not evaluate(numeric_expr(n), book)]
    return "; ".join(out)


def family_of(keywords, vocabulary, tables) -> set[str]:
    """The headings a keyword of the brief, or its other names, heads (`SubjectVocabulary.family`)."""
    from tasks.understanding.subjects import _same

    terms = {o for k in keywords for o in (k, *_same(k, tables))}
    return {vocabulary.subjects[i].label for t in terms for i in vocabulary.family(t)}


def judged_arguments(description: str, shown: str) -> argparse.Namespace:
    """The dev sets to run, each `BRIEFS=CATALOG`, tagged or tag-blind, and whether to print every book found."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--judged", action="append", default=[])
    parser.add_argument("--judged-blind", action="append", default=[])
    parser.add_argument("--show", action="store_true", help=shown)
    return parser.parse_args()


def ordered_sets(args: argparse.Namespace, prefix: str) -> Iterator[tuple[str, object, dict, list]]:
    """Each set's name, context, work ids and briefs ordered by the product path; the sets over one catalog and
    tagging share one workspace, so its index is built once."""
    for spec, blind in [(s, False) for s in args.judged] + [(s, True) for s in args.judged_blind]:
        briefs, catalog = spec.split("=", 1)
        name = Path(briefs).stem + ("-blind" if blind else "")
        workspace = PROJECT / "var" / "eval" / f"{prefix}-{Path(catalog).stem}{'-blind' if blind else ''}"
        yield (name, *order_judged(name, Path(briefs), Path(catalog), workspace, blind))


def main() -> None:
    args = judged_arguments(__doc__.splitlines()[0], "print every unrecalled book with its cause")
    from tasks.understanding.expansion import load_expansion_tables

    totals: dict[str, Counter] = {}
    for name, ctx, works, ordered in ordered_sets(args, "unrecalled"):
        books = ctx.ranking.books
        counts = totals.setdefault(name, Counter())
        for o in ordered:
            recalled = {c.book_id for c in o.ranking.candidates}
            fitting = [b for b, g in o.judgments.items() if g > 0 and b in books]
            family = family_of(o.understood.query.search_keywords, ctx.tools.subjects, load_expansion_tables())
            for b in sorted(set(fitting) - recalled):
                found = cause(books[b], o.understood, ctx, family)
                counts[found] += 1
                if args.show:
                    book = books[b]
                    failing = failing_conditions(book, o.understood, ctx) if found == "condition" else ""
                    print(f"{name}\t{o.brief_id}\t{found}\t{book.title}\t{' | '.join(book.subjects[:6])}\t{failing}")
    for name, counts in totals.items():
        print(name, sum(counts.values()), " ".join(f"{c}={counts[c]}" for c in CAUSES))


if __name__ == "__main__":
    main()
