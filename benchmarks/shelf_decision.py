"""The shelf's decision measured: which books a shelf takes (`ranking.relevance_floor`) and when it says "done"
(`gating.done_fit_share`), over judged briefs and the 90 benchmark briefs.

    .venv/bin/python benchmarks/shelf_decision.py \\
        --judged benchmarks/judged/demo-dev.yaml=config/demo/catalog.jsonl \\
        --judged-blind benchmarks/judged/demo-dev.yaml=config/demo/catalog.jsonl \\
        --judged benchmarks/judged/gutenberg-dev.yaml=/work/catalogs-data/gutenberg/pg_top_catalog.jsonl \\
        [--briefs benchmarks/briefs/demo.yaml=config/demo/catalog.jsonl] [--briefs-blind ...] --dump OUT.json
    .venv/bin/python benchmarks/shelf_decision.py --table OUT.json     # the tables again from a dump

Each brief is understood, recalled and ordered once by the product path (tasks/ranking/rank.py `order`); its
order is then shelved (`shelve_ranking`) at every floor, with every "done" rule read off the shelf it gives. The
probabilities are the calibration's in force (config/relevance.yaml: in sample on the dev briefs) and, on judged
sets, also two-fold: each half of the briefs scored by weights fitted on the other half (per catalog kind, over
every judged set of that kind), so a floor or a rule is chosen on one half and measured on the other. Judged sets
are scored as benchmarks/judged_eval.py scores them; the 90 briefs by their expected status alone. Only dev files:
the holdout and next sets are run by judged_eval.py, never opened here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

FLOORS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
DONE_SHARES = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9)  # "done" asks the shelf's mean probability of fitting at least this
BANDS = ((0.2, 0.3), (0.3, 0.4), (0.4, 0.5), (0.5, 0.6), (0.6, 0.8), (0.8, 1.01))
FIT_SHARE = 0.9  # what "done" promises of a shelf
READ_AT = 0.4  # the floor whose shelves are read whole in the dump (the floor in force)
RELIABILITY_BINS = (0.0, 0.2, 0.4, 0.6, 0.7, 0.75, 0.8, 0.9, 1.01)
# a kind of evidence is admitted from the lowest band of probability whose books fit more often than not: what the
# shelf's floor was chosen by (config/settings.yaml `ranking.relevance_floor`), asked of each kind apart
ADMIT_FIT = 0.5
ADMIT_FLOORS = (0.4, 0.5, 0.6, 0.7, 0.8)  # the floors a kind's admission is chosen among (bands of 0.1 from each)
SUPPORTS = (0.0, 0.1, 0.2, 0.3)  # the weights' least probability a book its values lift may be asked to have
ADMIT_BAND_LEAST = 5  # a band with fewer books of a kind says nothing of it: it is read with the band above


def reliability(records: list[dict]) -> None:
    from tasks.ranking.relevance import STANDINGS

    """Of every candidate of the judged briefs (calibration in force), by what its probability stands on and by
    its probability: how many, and how many truly fit (graded 1 or 2)."""
    rows = [(kind, p, fit) for r in records if r.get("candidates") for kind, p, fit, *_ in r["candidates"]]
    if not rows:
        return
    for name in sorted({r["set"] for r in records if r.get("candidates")}) + ["all"]:
        mine = [(k, p, f) for r in records if r.get("candidates") and name in (r["set"], "all")
                for k, p, f, *_ in r["candidates"]]
        print(f"\nreliability, {name}: books fitting / books, by evidence and probability")
        print(f"{'evidence':<17}" + "".join(f"{lo:.2f}-{min(hi, 1):.2f}".rjust(12)
                                         for lo, hi in zip(RELIABILITY_BINS, RELIABILITY_BINS[1:])) + "         all")
        for kind in STANDINGS:
            cells = []
            for lo, hi in zip(RELIABILITY_BINS, RELIABILITY_BINS[1:]):
                inside = [f for k, p, f in mine if k == kind and lo <= p < hi]
                cells.append(f"{sum(inside)}/{len(inside)}" if inside else "-")
            every = [f for k, _, f in mine if k == kind]
            if every:
                print(f"{kind:<17}" + "".join(c.rjust(12) for c in cells)
                      + f"{sum(every)}/{len(every)}".rjust(12) + f" {sum(every) / len(every):.2f}")


def calibration_table(records: list[dict]) -> None:
    """How far the probabilities are to be trusted, per catalog kind: of every judged candidate (calibration in
    force) the Brier score and, per standing, the mean probability beside the share that fits; of every shelf at the
    floor in force (admission in force; in sample and two-fold) the "done" ones under FIT_SHARE fitting (false) and
    the full ones at or above it not "done" (missed)."""
    judged = [r for r in records if r["grades"] is not None]
    if not judged:
        return
    print(f"\ncalibration, by catalog kind (Brier over every candidate; shelves at floor {READ_AT}, admission in "
          f"force, done from a mean of {FIT_SHARE}):")
    for kind in sorted({r["admits_by"] for r in judged}) + ["all"]:
        mine = [r for r in judged if kind in (r["admits_by"], "all")]
        rows = [(k, p, f) for r in mine if r.get("candidates") for k, p, f, *_ in r["candidates"]]
        p = np.array([x[1] for x in rows])
        fit = np.array([x[2] for x in rows], dtype=np.float64)
        print(f"  {kind}: {len(rows)} candidates, Brier {np.mean((p - fit) ** 2):.4f}; by standing, "
              "books / mean p / fit share:")
        for standing_kind in sorted({x[0] for x in rows}):
            inside = np.array([x[0] == standing_kind for x in rows])
            print(f"    {standing_kind:<17} {int(inside.sum()):>5}  {p[inside].mean():.2f}  {fit[inside].mean():.2f}")
        for cal in ("in+admission", "fold+admission"):
            shelves = [r for r in mine if r["calibration"] == cal and r["floor"] == READ_AT]
            if not shelves:
                continue
            status = [status_under(r, FIT_SHARE) for r in shelves]
            done = [r for s, r in zip(status, shelves) if s == "done"]
            true = [r for r in shelves if len(r["grades"]) >= 10 and fits(r) >= FIT_SHARE]
            missed = [r for s, r in zip(status, shelves) if s != "done" and r in true]
            brier = np.mean([(np.mean(r["p"]) - fits(r)) ** 2 for r in shelves if r["p"]])
            print(f"    shelves, {cal:<14}: {len(shelves)}, done {len(done)}, false done "
                  f"{sum(fits(r) < FIT_SHARE for r in done)}, full and >= {FIT_SHARE:.0%} fitting {len(true)}, "
                  f"of them not done {len(missed)}; shelf mean p vs fit share Brier {brier:.4f}")


@dataclass
class Ordered:
    """One brief's order, made once, with what scoring it needs."""

    set_name: str
    brief_id: str
    expected: str | None
    judgments: dict | None
    understood: object
    hits: object
    ranking: object


def open_set(catalog: Path, workspace: Path, tag_blind: bool):
    from config.settings import load_settings
    from config.vocabulary import get_vocabulary
    from flows.evaluate import benchmark_settings, index_for_briefs
    from tasks.shelving import build_context

    settings = benchmark_settings(load_settings(), workspace)
    settings.workspace.mkdir(parents=True, exist_ok=True)
    works = index_for_briefs(settings, catalog, tag_blind)
    return build_context(settings, get_vocabulary()), works


def order_judged(name: str, briefs_path: Path, catalog: Path, workspace: Path, tag_blind: bool):
    from tasks.evaluation.judged import load_judged
    from tasks.intake.themes import themes_from_form
    from tasks.ranking.rank import order
    from tasks.recall.recall import recall
    from tasks.understanding.understand import understand

    ctx, works = open_set(catalog, workspace, tag_blind)
    briefs = load_judged(briefs_path)
    themes = themes_from_form("decision", [{"theme_id": b.id, "theme_name": b.theme_name,
                                            **({"description": b.description} if b.description else {})}
                                           for b in briefs], source="decision").themes
    out = []
    for brief, theme in zip(briefs, themes):
        understood = understand(theme, (), ctx.tools)
        hits = recall(understood, ctx.recall)
        out.append(Ordered(name, brief.id, brief.status, dict(brief.judgments), understood, hits,
                           order(hits, understood, ctx.ranking)))
    return ctx, works, out


def order_benchmark(name: str, path: Path, catalog: Path, workspace: Path, tag_blind: bool):
    """The 90 briefs batch by batch, each seeing the earlier shelves (at the floor in force) as its history."""
    from storage.shelf_db import theme_history
    from tasks.evaluation.briefs import load_benchmark
    from tasks.intake.themes import themes_from_form
    from tasks.ranking.rank import order, shelve_ranking
    from tasks.recall.recall import recall
    from tasks.understanding.understand import understand

    ctx, works = open_set(catalog, workspace, tag_blind)
    out, earlier = [], []
    for batch in load_benchmark(path, tag_blind):
        themes = themes_from_form(batch.batch_id, [{"theme_id": b.id, "theme_name": b.brief} for b in batch.briefs],
                                  source=str(path)).themes
        delivered = []
        for brief, theme in zip(batch.briefs, themes):
            understood = understand(theme, theme_history(theme, earlier, delivered), ctx.tools)
            hits = recall(understood, ctx.recall)
            ranking = order(hits, understood, ctx.ranking)
            delivered.append(shelve_ranking(ranking, hits, understood, ctx.ranking).as_history(None))
            out.append(Ordered(name, brief.id, brief.checks.get("status"), None, understood, hits, ranking))
        earlier.extend(delivered)
    return ctx, works, out


def two_fold(sets, kind_of):
    """Per brief, its candidates' probabilities, and the weights' alone, from weights fitted on the other half of the
    judged briefs of its catalog kind (halves by position in each set: even and odd)."""
    from benchmarks.fit_relevance import defined_of, fit_rows, rule_columns, weighed_rows
    from tasks.ranking.relevance import Calibration, FEATURES, KINDS, probabilities

    rows = {}  # (kind, fold) -> rows as fit_relevance gathers them
    for name, (_, works, ordered) in sets.items():
        for i, o in enumerate(ordered):
            r = o.ranking
            fits = {works.get(b, b) for b, g in o.judgments.items() if g > 0}
            labels = np.array([works.get(c.book_id, c.book_id) in fits for c in r.candidates], dtype=np.float64)
            x = np.vstack([e.as_array() for e in r.evidence]) if r.evidence else np.zeros((0, len(FEATURES)))
            rows.setdefault((kind_of[name], i % 2), []).append((o.brief_id, x, labels, [],
                                                                 *rule_columns(r.evidence)))
    fitted = {}
    for key, found in rows.items():
        w, b = fit_rows(found)
        fitted[key] = (w, b, defined_of(found, weighed_rows(found, w, b)))
    out = {}
    for name, (_, _, ordered) in sets.items():
        kind = kind_of[name]
        for i, o in enumerate(ordered):
            w, b, defined = fitted[(kind, 1 - i % 2)]
            cal = Calibration({k: dict(zip(FEATURES, w)) for k in KINDS}, {k: b for k in KINDS},
                              defined={k: defined for k in KINDS if defined is not None})
            out[(name, o.brief_id)] = (probabilities(cal, o.ranking.evidence, kind),
                                       cal.probability(o.ranking.evidence, kind))
    return out


def shelve_at(ctx, o: Ordered, probs, weighed, floor: float, admission):
    """The brief's shelf at this floor, with these probabilities (and the weights' alone), admitting books by their
    evidence as `admission` says (relevance.Admission; an empty one: the floor alone)."""
    from tasks.ranking.rank import shelve_ranking
    from tasks.ranking.relevance import with_relevance

    settings = ctx.ranking.settings
    settings = settings.model_copy(update={
        "ranking": settings.ranking.model_copy(update={"relevance_floor": floor, "admission": True}),
        "gating": settings.gating.model_copy(update={"done_fit_share": 0.0})})
    ranking = replace(o.ranking, candidates=with_relevance(o.ranking.candidates, probs), weighed=list(weighed))
    relevance = replace(ctx.ranking.relevance, admission=admission)
    return shelve_ranking(ranking, o.hits, o.understood, replace(ctx.ranking, settings=settings, relevance=relevance))


def book_reading(ctx, o: Ordered, book_id: str, evidence, p: float | None) -> dict:
    """One book as a cause is read from: its record, its evidence and its probability."""
    book = ctx.ranking.books[book_id]
    carried = o.ranking.subject_evidence.get(book_id, ())
    return {"book": book_id, "title": book.title, "p": p, "grade": (o.judgments or {}).get(book_id, 0),
            "summary": (book.summary or "")[:300], "subjects": list(book.subjects)[:12],
            "tags": {d: list(v) for d, v in book.tags.items()},
            "evidence": {k: (round(v, 3) if isinstance(v, float) else v) for k, v in asdict(evidence).items()},
            "carried": [f"{e.topic}->{e.subject} ({e.how}, {e.kind}, {e.books})" for e in carried]}


def reading(ctx, o: Ordered, shelf, by_id: dict) -> dict:
    """The brief as understood and, for the shelf at the floor in force, every shelved book and every judged fitting
    candidate left under the floor, read whole: what a cause of a wrong or a missed book is read from."""
    query = o.understood.query
    evidence = dict(zip((c.book_id for c in o.ranking.candidates), o.ranking.evidence))
    shelved = {e.book.book_id for e in shelf.entries}
    judged = o.judgments or {}
    fitting = {b for b, g in judged.items() if g > 0}
    return {"query": {"conditions": query.describe_conditions(), "keywords": list(query.search_keywords),
                      "content": list(o.ranking.content),
                      "subjects": [f"{t.topic.text} [{t.role}]: " + ", ".join(f"{m.subject.label} ({m.how}, "
                                   f"{m.subject.books})" for m in t.matches[:6]) for t in query.subjects]},
            "shelved": [book_reading(ctx, o, b, evidence[b], by_id.get(b)) for b in (e.book.book_id for e in
                        shelf.entries) if b in evidence],
            "under": [book_reading(ctx, o, c.book_id, evidence[c.book_id], by_id.get(c.book_id))
                      for c in o.ranking.candidates if c.book_id in fitting and c.book_id not in shelved],
            "unrecalled": sorted(fitting - set(evidence))}


def status_under(record: dict, share: float) -> str:
    """The shelf's status had "done" asked that its mean probability of fitting reach `share`."""
    if record["status"] != "done" or not record["p"]:
        return record["status"]
    return "done" if float(np.mean(record["p"])) >= share else "needs_review"


def fits(record: dict) -> float:
    return float(np.mean([g > 0 for g in record["grades"]])) if record["grades"] else 0.0


def lowest_fitting(books: list[tuple[float, bool]], starts: tuple[float, ...]) -> float:
    """The lowest start from whose band (to the next start; a band of fewer than ADMIT_BAND_LEAST books read with
    the band above) the books fit at least ADMIT_FIT of the time; above the last start if none does; the first
    start where there are no books (nothing says to ask more of them)."""
    if not books:
        return starts[0]
    ends = (*starts[1:], 1.01)
    pending: list[bool] = []
    first = None
    for lo, hi in zip(starts, ends):
        pending += [fit for value, fit in books if lo <= value < hi]
        first = lo if first is None else first
        if len(pending) < ADMIT_BAND_LEAST and hi < 1.01:
            continue
        if pending and float(np.mean(pending)) >= ADMIT_FIT:
            return first
        pending, first = [], None
    return ends[-1]


def fit_admissions(rows: list[dict]) -> dict:
    """An admission per catalog kind (`relevance.evidence_kind`: what its records give to read), each fitted on the
    shelves of the catalogs of that kind (`fit_admission`)."""
    return {kind: fit_admission([r for r in rows if r["admits_by"] == kind])
            for kind in sorted({r["admits_by"] for r in rows})}


def fit_admission(rows: list[dict]):
    """The admission (relevance.Admission) the shelves at the lowest floor, with the floor alone, call for: for
    each kind of the weights' evidence the lowest band of probability its books fit ADMIT_FIT of the time from,
    and for each kind of books their values lift, the lowest band of the weights' own probability they fit so from
    (a kind of fewer than ADMIT_BAND_LEAST books read with every lifted book). Read on the books at or above the
    floor in force (READ_AT), the only ones it decides on: a lifted book under it (a value saying a third of the
    brief) is on no shelf, and had counted against the lifted books that are."""
    from tasks.ranking.relevance import VALUES, WEIGHED, Admission

    books = [(k, p, w, g > 0) for r in rows if r["floor"] == FLOORS[0] and r["grades"]
             for k, p, w, g in zip(r["standing"], r["p"], r["weighed"], r["grades"]) if p >= READ_AT]
    floors = {kind: lowest_fitting([(p, f) for k, p, _, f in books if k == kind], ADMIT_FLOORS)
              for kind in WEIGHED}
    lifted = [(k, w, f) for k, _, w, f in books if k in VALUES]
    supports = {kind: lowest_fitting([(w, f) for k, w, f in lifted
                                      if k == kind or sum(o == kind for o, _, _ in lifted) < ADMIT_BAND_LEAST],
                                     SUPPORTS)
                for kind in VALUES}
    return Admission({k: v for k, v in floors.items() if v > ADMIT_FLOORS[0]},
                     {k: v for k, v in supports.items() if v > SUPPORTS[0]})


def admitted_rows(rows: list[dict], admissions: dict) -> list[dict]:
    """The shelves at the floor in force, less the books their catalog kind's admission turns away (those it would
    keep stay in their order; a book past the shelf's size that would have come in is not counted: an estimate)."""
    from tasks.ranking.relevance import Admission

    out = []
    for r in rows:
        if r["floor"] != READ_AT:
            continue
        admission = admissions.get(r["admits_by"], Admission())
        keep = [i for i, (k, p, w) in enumerate(zip(r["standing"], r["p"], r["weighed"]))
                if admission.admits_kind(k, w, p, 0.0)]
        out.append({**r, "grades": [r["grades"][i] for i in keep], "books": [r["books"][i] for i in keep]})
    return out


def shelf_line(rows: list[dict]) -> str:
    shelved = sum(len(r["grades"]) for r in rows)
    wrong = sum(g == 0 for r in rows for g in r["grades"])
    top = [np.mean([g == 0 for g in r["grades"][:10]]) for r in rows if r["grades"]]
    return (f"shelf {np.mean([len(r['grades']) for r in rows]):.1f}, wrong@10 {np.mean(top) if top else 0:.2f}, "
            f"shelved wrong {wrong / max(shelved, 1):.2f}")


def admission_tables(records: list[dict]) -> None:
    """The admission fitted on all the judged briefs (in sample) and on each half, measured on the other half
    (two-fold probabilities, the floor alone before)."""
    folded = [r for r in records if r["calibration"] == "fold" and r.get("standing") is not None]
    if not folded:
        return
    inside = [r for r in records if r["calibration"] == "in" and r["grades"] is not None]
    from tasks.ranking.relevance import VALUES, WEIGHED

    for catalog in sorted({r["admits_by"] for r in inside}):
        print(f"\nadmission by evidence, {catalog} catalogs (ADMIT_FIT {ADMIT_FIT}; shelves at floor {FLOORS[0]}, "
              f"books from {READ_AT}, in sample; fitting / books):")
        books = [(k, p, w, g > 0) for r in inside if r["floor"] == FLOORS[0] and r["admits_by"] == catalog
                 for k, p, w, g in zip(r["standing"], r["p"], r["weighed"], r["grades"]) if p >= READ_AT]
        for kind, starts, value in (*((weighed, ADMIT_FLOORS, 1) for weighed in WEIGHED),
                                    *((f"{lifted}, by the weights' own", SUPPORTS, 2) for lifted in VALUES)):
            mine = [b for b in books if b[0] == kind.partition(",")[0]]
            cells = []
            for lo, hi in zip(starts, (*starts[1:], 1.01)):
                inside_band = [b[3] for b in mine if lo <= b[value] < hi]
                cells.append(f"{lo:.1f}-: {sum(inside_band)}/{len(inside_band)}")
            print(f"  {kind}: " + ", ".join(cells))
    print(f"  on every judged brief (in sample): {fit_admissions(inside)}")
    order = {}
    for r in folded:
        order.setdefault(r["set"], [])
        if r["brief"] not in order[r["set"]]:
            order[r["set"]].append(r["brief"])
    for chosen_on in (0, 1):
        half = [r for r in folded if order[r["set"]].index(r["brief"]) % 2 == chosen_on]
        other = [r for r in folded if order[r["set"]].index(r["brief"]) % 2 != chosen_on]
        admission = fit_admissions(half)
        print(f"  chosen on half {chosen_on}: {admission}")
        for name in sorted({r["set"] for r in other}):
            mine = [r for r in other if r["set"] == name and r["floor"] == READ_AT]
            print(f"    {name}, the other half: floor alone {shelf_line(mine)}; admitted "
                  f"{shelf_line(admitted_rows(mine, admission))}")


def tables(records: list[dict]) -> None:
    """Per set and calibration: for each floor and "done" share, the mean shelf, wrong@10, the shelved books
    wrong, statuses as expected, shelves "done" and those "done" with under 90% fitting; then, of the books a
    shelf at the lowest floor takes, the share that fits in each band of probability (what a higher floor drops),
    and the choice made on one half of the judged briefs measured on the other."""
    for name, cal in sorted({(r["set"], r["calibration"]) for r in records}):
        rows = [r for r in records if r["set"] == name and r["calibration"] == cal]
        judged = rows[0]["grades"] is not None
        print(f"\n{name} ({'two-fold' if cal.startswith('fold') else 'calibration in force'}, "
              f"{'admission in force' if cal.endswith('+admission') else 'the floor alone'}), "
              f"{len({r['brief'] for r in rows})} briefs")
        print("floor done>=  shelf wrong@10 shelved-wrong status-ok done done<90%")
        for floor in FLOORS:
            at = [r for r in rows if r["floor"] == floor]
            for share in DONE_SHARES:
                status = [status_under(r, share) for r in at]
                ok = sum(s == r["expected"] for s, r in zip(status, at) if r["expected"])
                line = (f"{floor:.1f}   {share:.1f}   {np.mean([len(r['books']) for r in at]):5.1f} ")
                if judged:
                    shelved = sum(len(r["grades"]) for r in at)
                    wrong = sum(g == 0 for r in at for g in r["grades"])
                    top = [np.mean([g == 0 for g in r["grades"][:10]]) for r in at if r["grades"]]
                    line += f"{np.mean(top):8.2f} {wrong / max(shelved, 1):13.2f} "
                else:
                    line += f"{'-':>8} {'-':>13} "
                done = [r for s, r in zip(status, at) if s == "done"]
                line += f"{ok:>6}/{sum(1 for r in at if r['expected']):<3} {len(done):>4}"
                print(line + (f" {sum(fits(r) < FIT_SHARE for r in done):>8}" if judged else ""))
        if judged:
            lowest = [r for r in rows if r["floor"] == FLOORS[0]]
            p = np.array([x for r in lowest for x in r["p"]])
            fit = np.array([g > 0 for r in lowest for g in r["grades"]])
            print("  books shelved at the lowest floor, by probability: " + "; ".join(
                f"{lo:.1f}-{min(hi, 1):.1f} {fit[(p >= lo) & (p < hi)].mean():.2f} fit of "
                f"{int(((p >= lo) & (p < hi)).sum())}" for lo, hi in BANDS if ((p >= lo) & (p < hi)).any()))
    reliability(records)
    calibration_table(records)
    admission_tables(records)
    folded = [r for r in records if r["calibration"] == "fold"]
    if not folded:
        return
    order = {}
    for r in folded:
        order.setdefault(r["set"], [])
        if r["brief"] not in order[r["set"]]:
            order[r["set"]].append(r["brief"])
    print("\nleave-briefs-out (two-fold probabilities; chosen on one half of every judged set, measured on the other):")
    for chosen_on in (0, 1):
        half = [r for r in folded if order[r["set"]].index(r["brief"]) % 2 == chosen_on]
        other = [r for r in folded if order[r["set"]].index(r["brief"]) % 2 != chosen_on]
        lowest = [r for r in half if r["floor"] == FLOORS[0]]
        p = np.array([x for r in lowest for x in r["p"]])
        fit = np.array([g > 0 for r in lowest for g in r["grades"]])
        # the floor: the lowest band of probability whose books fit more often than not
        floor = next((lo for lo, hi in BANDS if ((p >= lo) & (p < hi)).any() and fit[(p >= lo) & (p < hi)].mean() > 0.5),
                     FLOORS[-1])
        floor = min(FLOORS, key=lambda f: abs(f - floor))

        def done_of(rows, share):
            done = [r for r in rows if r["floor"] == floor and status_under(r, share) == "done"]
            return len(done), sum(fits(r) < FIT_SHARE for r in done)
        share = next((s for s in np.arange(0.5, 1.0, 0.05) if done_of(half, s)[1] == 0), 1.0)
        mine, theirs = done_of(half, share), done_of(other, share)
        shelved = [r for r in other if r["floor"] == floor]
        wrong = sum(g == 0 for r in shelved for g in r["grades"]) / max(sum(len(r["grades"]) for r in shelved), 1)
        print(f"  half {chosen_on}: floor {floor:.1f}, done at a mean of {share:.2f} ({mine[0]} done, {mine[1]} under "
              f"90%); the other half: {theirs[0]} done, {theirs[1]} under 90% fitting, shelved wrong {wrong:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag in ("--judged", "--judged-blind", "--briefs", "--briefs-blind"):
        parser.add_argument(flag, action="append", default=[], metavar="FILE=CATALOG")
    parser.add_argument("--dump", help="write every shelf (floor, probabilities, grades) here")
    parser.add_argument("--table", help="print the tables of an earlier dump")
    parser.add_argument("--write-admission", action="store_true",
                        help="write the admission fitted on every judged brief (in sample) to config/relevance.yaml")
    parser.add_argument("--write-defined", action="store_true",
                        help="write how often a defined brief's books fit (in sample) to config/relevance.yaml")
    args = parser.parse_args()
    if args.table:
        records = json.loads(Path(args.table).read_text(encoding="utf-8"))
        tables(records)
        if args.write_admission:
            write_admission(records, Path(args.table).name)
        if args.write_defined:
            write_defined(records, Path(args.table).name)
        return 0
    if not args.dump:
        parser.error("--dump or --table")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from config.settings import load_settings
    from tasks.ranking.relevance import Admission, probabilities, standing

    root = load_settings().workspace / "eval"
    sets, kind_of, judged = {}, {}, set()
    for flag, blind, fn, prefix in ((args.judged, False, order_judged, "judged"),
                                    (args.judged_blind, True, order_judged, "judged"),
                                    (args.briefs, False, order_benchmark, "briefs"),
                                    (args.briefs_blind, True, order_benchmark, "briefs")):
        for item in flag:
            file, _, catalog = item.partition("=")
            catalog = Path(catalog).resolve()
            name = f"{Path(file).stem}{'-blind' if blind else ''}"
            workspace = root / f"{prefix}-{'blind-' if blind else ''}{catalog.stem}"
            print(f"ordering {name} in {workspace}", flush=True)
            sets[name] = fn(name, Path(file), catalog, workspace, blind)
            kind_of[name] = sets[name][0].ranking.relevance.kind
            if prefix == "judged":
                judged.add(name)
    folds = two_fold({n: s for n, s in sets.items() if n in judged}, kind_of)
    records = []
    for name, (ctx, works, ordered) in sets.items():
        print(f"shelving {name}", flush=True)
        in_force = ctx.ranking.relevance.admission  # its catalog kind's
        for o in ordered:
            calibration = ctx.ranking.relevance.calibration
            weighed = calibration.probability(o.ranking.evidence, kind_of[name])
            variants = {"in": (probabilities(calibration, o.ranking.evidence, kind_of[name]), weighed)}
            if (name, o.brief_id) in folds:
                variants["fold"] = folds[(name, o.brief_id)]
            if o.judgments is not None:
                fitting_works = {works.get(b, b) for b, g in o.judgments.items() if g > 0}
                candidates = [[standing(e, float(w)), float(p), int(works.get(c.book_id, c.book_id)
                                                                    in fitting_works), float(w) if e.defined else None]
                              for c, e, w, p in zip(o.ranking.candidates, o.ranking.evidence, weighed,
                                                    variants["in"][0])]
            evidence = dict(zip((c.book_id for c in o.ranking.candidates), o.ranking.evidence))
            for variant, (probs, weights) in variants.items():
                by_id = dict(zip((c.book_id for c in o.ranking.candidates), map(float, probs)))
                weights_of = dict(zip((c.book_id for c in o.ranking.candidates), map(float, weights)))
                # every floor with the floor alone (what an admission is fitted on), then with the admission in force
                for admission, cal in ((Admission(), variant), (in_force, f"{variant}+admission")):
                    for floor in FLOORS:
                        shelf = shelve_at(ctx, o, probs, weights, floor, admission)
                        ids = [e.book.book_id for e in shelf.entries]
                        records.append({
                            "set": name, "kind": kind_of[name], "brief": o.brief_id, "calibration": cal,
                            "admits_by": ctx.ranking.relevance.admission_kind,
                            "floor": floor, "expected": o.expected, "status": shelf.status,
                            "reasons": list(shelf.verdict.reasons), "books": ids,
                            "titles": [e.book.title for e in shelf.entries],
                            "p": [by_id.get(b) for b in ids],
                            "standing": [standing(evidence[b], weights_of[b]) if b in evidence else None
                                         for b in ids],
                            "weighed": [weights_of.get(b) for b in ids],
                            "grades": ([o.judgments.get(b, 0) for b in ids] if o.judgments is not None else None),
                            "works": [works.get(b, b) for b in ids],
                            "fitting_works": (len({works.get(b, b) for b, g in o.judgments.items() if g > 0})
                                              if o.judgments is not None else None),
                            **(reading(ctx, o, shelf, by_id) if cal == "in" and floor == READ_AT else {}),
                            **({"candidates": candidates}
                               if cal == "in" and floor == READ_AT and o.judgments is not None else {})})
    out = Path(args.dump)
    out.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    print(f"wrote {len(records)} shelves to {out}")
    tables(records)
    if args.write_admission:
        write_admission(records, ", ".join(sorted(judged)))
    if args.write_defined:
        write_defined(records, ", ".join(sorted(judged)))
    return 0


def write_defined(records: list[dict], source: str) -> None:
    """How books meeting a brief its hard conditions define fit by the weights' probability (relevance
    `Calibration.defined`, `fit_defined`), per calibration kind over every judged brief's candidates (in sample),
    into config/relevance.yaml beside the weights."""
    from datetime import date

    from benchmarks.fit_relevance import write_relevance_file
    from config.yaml_files import read_yaml
    from tasks.ranking.calibration import defined_mapping
    from tasks.ranking.relevance import RELEVANCE_FILE, fit_defined

    data = read_yaml(RELEVANCE_FILE) or {}
    kinds = dict(data["kinds"])
    for kind in kinds:
        defined = [(weighed, fit) for r in records if r["kind"] == kind and r.get("candidates")
                   for _, _, fit, weighed in r["candidates"] if weighed is not None]
        reading = fit_defined(np.array([w for w, _ in defined]), np.array([f for _, f in defined], dtype=np.float64))
        if reading is not None:
            kinds[kind] = {**kinds[kind], "defined": defined_mapping(reading)}
            print(f"{kind}: {len(defined)} defined candidates, {sum(f for _, f in defined)} fitting, "
                  f"read as {kinds[kind]['defined']}")
    write_relevance_file({"fitted_on": f"{data.get('fitted_on', '')}; `defined` {source}, {date.today().isoformat()}, "
                                       "benchmarks/shelf_decision.py --write-defined", "kinds": kinds})


def write_admission(records: list[dict], source: str) -> None:
    """The admission of each catalog kind fitted on every judged brief's shelves at the lowest floor, with the floor
    alone, into config/relevance.yaml."""
    from datetime import date

    from benchmarks.fit_relevance import write_relevance_file

    admissions = fit_admissions([r for r in records if r["calibration"] == "in" and r["grades"] is not None])
    write_relevance_file({"admission": {
        "fitted_on": f"{source}, {date.today().isoformat()}, benchmarks/shelf_decision.py (ADMIT_FIT {ADMIT_FIT})",
        "kinds": {kind: {"floors": dict(a.floors), "supports": dict(a.supports)} for kind, a in admissions.items()}}})


if __name__ == "__main__":
    sys.exit(main())
