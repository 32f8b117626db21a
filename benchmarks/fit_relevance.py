"""Fit the relevance calibration (config/relevance.yaml) on judged briefs, one set of weights per catalog kind.

    .venv/bin/python benchmarks/fit_relevance.py --set benchmarks/judged/demo-dev.yaml=config/demo/catalog.jsonl \\
        [--set benchmarks/judged/gutenberg-dev.yaml=.../pg_top_catalog.jsonl] [--workspace DIR] [--write]

Each judged brief is understood, recalled and ordered by the product path over its catalog, imported as it is
(its kind, `tagged` or `tag_blind`, read from its books) and, where it is tagged, once more without its tags
(kind `tag_blind`); every candidate's evidence (tasks/ranking/relevance.py)
is a row, labelled 1 where the judgments grade its work 1 or 2 and 0 otherwise (a book not listed is wrong). An
untied candidate (tied to the brief by its vector alone, relevance.py) is 0 by rule, so no row of the fit. A
logistic regression per kind gives the weights; probabilities left out one brief at a time (the brief's rows
predicted by weights fitted on the other briefs) say how well they are calibrated and choose the floor: the lowest
at which the books a shelf would take (at most 30 per brief, in the product's order) fit at least 90% of the time.
A book meeting a brief its hard conditions define (relevance.py `conditions_define`) is read apart: how often such
books fit by the weights' probability (`fit_defined`, on its log-odds), per kind.
--write writes the weights and that to config/relevance.yaml; the floor is printed for `ranking.relevance_floor`.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np
import yaml

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

L2 = 10.0  # by left-one-brief-out log loss on the dev briefs: 1 -> 10 takes tag-blind 0.324 -> 0.313, tagged 0.301 -> 0.300
SHELF = 30
FLOORS = tuple(round(f, 2) for f in np.arange(0.2, 0.91, 0.05))


def gather(briefs, catalog: Path, workspace: Path, tag_blind: bool):
    """Per brief: its candidates' evidence rows, their labels and the product's order."""
    from config.settings import load_settings
    from config.vocabulary import get_vocabulary
    from flows.evaluate import benchmark_settings, index_for_briefs
    from tasks.intake.themes import themes_from_form
    from tasks.ranking.rank import order
    from tasks.ranking.relevance import KINDS, FEATURES, Calibration
    from tasks.recall.recall import recall
    from tasks.shelving import build_context
    from tasks.understanding.understand import understand

    settings = benchmark_settings(load_settings(), workspace)
    settings.workspace.mkdir(parents=True, exist_ok=True)
    works = index_for_briefs(settings, catalog, tag_blind)
    ctx = build_context(settings, get_vocabulary())
    blank = Calibration({k: {f: 0.0 for f in FEATURES} for k in KINDS}, {k: 0.0 for k in KINDS})
    # the evidence is what is fitted: the calibration in force must not matter
    ranking_ctx = replace(ctx.ranking, relevance=replace(ctx.ranking.relevance, calibration=blank))
    themes = themes_from_form("fit-relevance", [{"theme_id": b.id, "theme_name": b.theme_name,
                                                 **({"description": b.description} if b.description else {})}
                                                for b in briefs], source="fit-relevance").themes
    rows = []
    for brief, theme in zip(briefs, themes):
        understood = understand(theme, (), ctx.tools)
        ranking = order(recall(understood, ctx.recall), understood, ranking_ctx)
        fits = {works.get(b, b) for b, g in brief.judgments.items() if g > 0}
        labels = np.array([works.get(c.book_id, c.book_id) in fits for c in ranking.candidates], dtype=np.float64)
        x = np.vstack([e.as_array() for e in ranking.evidence]) if ranking.evidence else np.zeros((0, len(FEATURES)))
        rows.append((brief.id, x, labels, [works.get(c.book_id, c.book_id) for c in ranking.candidates],
                     *rule_columns(ranking.evidence)))
    return ctx.ranking.relevance.kind, rows


def rule_columns(evidence) -> tuple[np.ndarray, np.ndarray]:
    """Of each candidate, what the rules read beside the weights: whether it is untied, and whether the brief's hard
    conditions define the brief (its probability then read apart, relevance.py `defined_probability`)."""
    return (np.array([e.untied for e in evidence], dtype=bool), np.array([e.defined for e in evidence], dtype=bool))


def weighed_rows(rows, weights: np.ndarray, intercept: float) -> list[np.ndarray]:
    """Each brief's candidates' probabilities by these weights alone (an untied one 0)."""
    return [np.where(r[4], 0.0, 1.0 / (1.0 + np.exp(-(r[1] @ weights + intercept)))) if len(r[1]) else np.zeros(0)
            for r in rows]


def defined_of(rows, weighed: list[np.ndarray]) -> tuple[float, float] | None:
    """How the rows' defined candidates fit by the weights' probabilities (relevance.py `fit_defined`)."""
    from tasks.ranking.relevance import fit_defined

    mask = [r[5] for r in rows]
    return fit_defined(np.concatenate([p[m] for p, m in zip(weighed, mask)]),
                       np.concatenate([r[2][m] for r, m in zip(rows, mask)]))


def fit_rows(rows):
    """The weights and intercept fitted on the rows' candidates that are not untied."""
    from tasks.ranking.relevance import fit_logistic

    rows = [r for r in rows if len(r[1])]
    return fit_logistic(np.vstack([r[1][~r[4]] for r in rows]), np.concatenate([r[2][~r[4]] for r in rows]), L2)


def left_out_probabilities(rows):
    """Each brief's candidates scored by weights fitted on the other briefs (an untied one 0, a defined one read as
    the other briefs' defined books fit)."""
    from tasks.ranking.relevance import defined_probability

    out = []
    for i, row in enumerate(rows):
        others = [r for j, r in enumerate(rows) if j != i]
        w, b = fit_rows(others)
        reading = defined_of(others, weighed_rows(others, w, b))
        out.append(np.array([defined_probability(reading, q) if d else q
                             for q, d in zip(weighed_rows([row], w, b)[0], row[5])]))
    return out


def shelf_precision(rows, probabilities, floor: float) -> tuple[float, int, int]:
    """Over every brief: the share of fitting books among those a shelf at this floor takes (its first SHELF
    works at or above the floor, in the product's order), and how many shelves hold at least 10."""
    taken = fit = full = 0
    for (_, _, labels, works, _, _), p in zip(rows, probabilities):
        seen: set[str] = set()
        shelf = []
        for label, work, prob in zip(labels, works, p):
            if prob >= floor and work not in seen and len(shelf) < SHELF:
                seen.add(work)
                shelf.append(label)
        taken += len(shelf)
        fit += int(sum(shelf))
        full += len(shelf) >= 10
    return (fit / taken if taken else 1.0), taken, full


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", required=True, metavar="BRIEFS=CATALOG",
                        help="a judged-briefs file and the catalog file it was judged on (repeatable)")
    parser.add_argument("--workspace", default=str(PROJECT / "var" / "eval" / "fit-relevance"))
    parser.add_argument("--write", action="store_true", help="write the weights to config/relevance.yaml")
    parser.add_argument("--dump", help="also save every row (brief, evidence, label) to this .npz file")
    args = parser.parse_args()
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from tasks.evaluation.judged import load_judged
    from tasks.ranking.calibration import defined_mapping
    from tasks.ranking.relevance import FEATURES

    sets = [(Path(b), Path(c).resolve()) for b, _, c in (item.partition("=") for item in args.set)]
    fitted = {}
    floors = {}
    by_kind: dict[str, list] = {}
    for number, (briefs_path, catalog) in enumerate(sets):
        briefs = load_judged(briefs_path)
        for tag_blind in (False, True):
            kind, rows = gather(briefs, catalog, Path(args.workspace) / f"{number}-{'blind' if tag_blind else 'as-is'}",
                                tag_blind)
            if tag_blind and kind == "tagged":
                raise SystemExit(f"{catalog}: still tagged with its tags hidden")
            by_kind.setdefault(kind, []).extend(rows)
            if kind == "tag_blind":
                break  # a catalog without our tags: hiding them changes nothing
    for kind, rows in sorted(by_kind.items()):
        if args.dump:
            np.savez(f"{args.dump}-{kind}.npz", brief=np.concatenate([[r[0]] * len(r[2]) for r in rows]),
                     x=np.vstack([r[1] for r in rows if len(r[1])]), y=np.concatenate([r[2] for r in rows]),
                     work=np.concatenate([r[3] for r in rows]), untied=np.concatenate([r[4] for r in rows]),
                     defined=np.concatenate([r[5] for r in rows]))
        y = np.concatenate([r[2] for r in rows])
        w, b = fit_rows(rows)
        fitted[kind] = {"intercept": round(b, 4), "weights": {f: round(float(v), 4) for f, v in zip(FEATURES, w)}}
        defined = defined_of(rows, weighed_rows(rows, w, b))
        if defined is not None:
            fitted[kind]["defined"] = defined_mapping(defined)
        held_out = left_out_probabilities(rows)
        p = np.concatenate(held_out)
        untied = np.concatenate([r[4] for r in rows])
        weighed, q = y[~untied], p[~untied]
        loss = -np.mean(weighed * np.log(np.clip(q, 1e-9, 1)) + (1 - weighed) * np.log(np.clip(1 - q, 1e-9, 1)))
        print(f"{kind}: {len(y)} candidates of {len(rows)} briefs, {int(y.sum())} fitting; untied {int(untied.sum())}, "
              f"{int(y[untied].sum())} of them fitting; left-one-brief-out log loss of the others {loss:.3f} "
              f"(base rate {weighed.mean():.3f})")
        for low, high in ((0, .1), (.1, .3), (.3, .5), (.5, .7), (.7, .9), (.9, 1.01)):
            inside = (p >= low) & (p < high)
            if inside.any():
                print(f"  p {low:.1f}-{min(high, 1):.1f}: {int(inside.sum()):>5} books, {y[inside].mean():.2f} fit")
        print("  floor  shelf precision  books taken  shelves >= 10")
        for floor in FLOORS:
            precision, taken, full = shelf_precision(rows, held_out, floor)
            print(f"  {floor:.2f}   {precision:.3f}            {taken:>5}        {full}")
            if precision >= 0.9 and kind not in floors:
                floors[kind] = floor
        print("  weights:", fitted[kind])
    print("lowest floor with at least 90% of the shelf fitting:", floors)
    if args.write:
        write_relevance_file({"fitted_on": "; ".join(f"{b.name} over {c.name}" for b, c in sets)
                              + f", {date.today().isoformat()}, benchmarks/fit_relevance.py (L2 {L2})",
                              "kinds": fitted})
    return 0


def write_relevance_file(changes: dict) -> None:
    """config/relevance.yaml with these top-level entries replaced, the others kept (the weights are this script's,
    the admission benchmarks/shelf_decision.py's), written whole or not at all."""
    from config.yaml_files import read_yaml
    from tasks.ranking.relevance import RELEVANCE_FILE

    data = {**(read_yaml(RELEVANCE_FILE) or {}), **changes}
    header = ("# Relevance calibration: logistic weights per catalog kind over the evidence of\n"
              "# tasks/ranking/relevance.py (benchmarks/fit_relevance.py --write), and which books a shelf may take by\n"
              "# that evidence (`admission`: benchmarks/shelf_decision.py --write-admission). Not edited by hand.\n")
    tmp = RELEVANCE_FILE.with_suffix(".tmp")
    tmp.write_text(header + yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    tmp.replace(RELEVANCE_FILE)
    print(f"wrote {RELEVANCE_FILE}")


if __name__ == "__main__":
    sys.exit(main())
