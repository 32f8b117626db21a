"""What curators' verdicts say about the ranking: shares kept and dropped, and what `tune --labels` learns from them.

`label_shares`: of the shelved books a curator judged, the share kept, dropped and replaced, over all and by the
recall path that found the book and by the kind of reason the workbook gave (`eval --labels`).

`tune --labels` learns four things, each validated on held-out themes and written only where it beats what is in
force there. Themes are split into folds by a hash of their ids (no randomness): what is learned on the other folds
is measured on the held-out one, so every figure compared is one on themes the learning never saw.

- `tune_weights`, the fusion weights, and once more the short-query weights on the themes whose query fusion
  weighs by them: each judged book carries what fusion saw (its rank and score on each path, from the workbook's
  ids); a theme's judged books are ordered by sum(weight x min-max normalised score) and scored by the share kept
  among the first `head` places.
- `tune_calibration`, the relevance calibration of this catalog's kind (tasks/ranking/calibration.py): each
  labelled theme is understood, recalled and ordered again over the current index for its judged books' evidence;
  the judged calibration refitted on the verdicts (kept 1, dropped or replaced 0), its pull toward the judged
  weights chosen on the training folds by log loss. A theme's shelf is then its judged books at or above the
  relevance floor, the likelier first (as the shelf takes them), scored by the share kept among the first `head`;
  a shelf left empty scores 1 where the curator kept none of its books and 0 where they kept some. It counts as
  better only if that held-out share rises and no more kept books than dropped ones leave the shelves.
- `tune_filter_confidence`, the enrichment's filter confidence: on the themes whose required vocabulary values
  (genre, form, audience …) a judged book holds by a guess, the shelf holds only the judged books holding them at
  the threshold, scored as above. Only a higher threshold can be judged (a guess below the one in force never
  filtered a book in); it takes effect at the next index build, which writes the values the filters read.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from storage.labels import Label
from tasks.model.constraints import TERM_FIELDS
from tasks.model.intent import POLICIES
from tasks.model.themes import Theme
from tasks.ranking.calibration import log_loss, refit
from tasks.ranking.fusion import short_query
from tasks.ranking.rank import order
from tasks.ranking.relevance import Calibration, Evidence, probabilities
from tasks.recall.keywords import bm25_query_tokens
from tasks.recall.recall import recall
from tasks.shelving import ShelvingContext
from tasks.understanding.understand import understand

HEAD = 10  # the places a curator and a reader see first
FOLDS = 5
GRID = (0.0, 0.1, 0.3, 0.6, 1.0, 2.0)
MAX_PATHS = 4  # the paths most judged books were found by are tuned (6^4 weightings); the rest keep theirs


@dataclass(frozen=True)
class Share:
    judged: int
    kept: int
    dropped: int
    replaced: int

    def of(self, n: int) -> float:
        return n / self.judged if self.judged else 0.0


def _share(labels: Sequence[Label]) -> Share:
    counts = Counter(lb.verdict for lb in labels)
    return Share(len(labels), counts["keep"], counts["drop"], counts["replace"])


@dataclass(frozen=True)
class LabelShares:
    overall: Share
    themes: int
    by_path: dict[str, Share]
    by_reason: dict[str, Share]


def judged(labels: Sequence[Label]) -> list[Label]:
    """The labels that judge a shelved book (a verdict, not only a note or a question's answer)."""
    return [lb for lb in labels if lb.book_id and lb.verdict]


def label_shares(labels: Sequence[Label]) -> LabelShares:
    books = judged(labels)
    paths = sorted({p for lb in books for p in lb.paths})
    reasons = sorted({r for lb in books for r in lb.reason_kinds})
    return LabelShares(_share(books), len({(lb.batch_id, lb.theme_id) for lb in books}),
                       {p: _share([lb for lb in books if p in lb.paths]) for p in paths},
                       {r: _share([lb for lb in books if r in lb.reason_kinds]) for r in reasons})


@dataclass(frozen=True)
class JudgedTheme:
    key: str  # batch/theme
    kept: tuple[bool, ...]  # per judged book
    scores: tuple[dict[str, float], ...]  # per judged book: path -> min-max normalised score within the theme


def judged_themes(labels: Sequence[Label]) -> list[JudgedTheme]:
    """Each theme's judged books with their normalised path scores (0 where a path did not find the book)."""
    by_theme: dict[str, list[Label]] = {}
    for lb in judged(labels):
        by_theme.setdefault(f"{lb.batch_id}/{lb.theme_id}", []).append(lb)
    themes = []
    for key, own in sorted(by_theme.items()):
        raw = [{p: float(s) for p, (_, s) in json.loads(lb.path_scores).items() if s is not None} for lb in own]
        bounds = {p: (min(v), max(v)) for p in {p for r in raw for p in r}
                  for v in [[r[p] for r in raw if p in r]]}
        scaled = tuple({p: (r[p] - bounds[p][0]) / (bounds[p][1] - bounds[p][0]) if bounds[p][1] > bounds[p][0]
                        else 1.0 for p in r} for r in raw)
        themes.append(JudgedTheme(key, tuple(lb.verdict == "keep" for lb in own), scaled))
    return themes


def head_kept(theme: JudgedTheme, weights: Mapping[str, float], head: int = HEAD) -> float:
    """The share kept among the first `head` judged books, ordered by the weighted sum (ties: the shelf's order)."""
    # a path the settings do not weigh counts fully, as in fusion
    fused = [sum(weights.get(p, 1.0) * s for p, s in scores.items()) for scores in theme.scores]
    order = sorted(range(len(fused)), key=lambda i: (-fused[i], i))[:head]
    return sum(theme.kept[i] for i in order) / len(order) if order else 0.0


def mean_head_kept(themes: Sequence[JudgedTheme], weights: Mapping[str, float]) -> float:
    return mean([head_kept(t, weights) for t in themes])


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def fold_of(key: str) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % FOLDS


def best_weights(themes: Sequence[JudgedTheme], defaults: Mapping[str, float]) -> dict[str, float]:
    """The grid's best weights for the paths the labels hold and the settings weigh; the defaults win every tie."""
    found = Counter(p for t in themes for s in t.scores for p in s if p in defaults)
    paths = sorted(p for p, _ in found.most_common(MAX_PATHS))
    best, best_score = dict(defaults), mean_head_kept(themes, defaults)
    for values in itertools.product(GRID, repeat=len(paths)):
        if not any(values):
            continue
        weights = {**defaults, **dict(zip(paths, values))}
        score = mean_head_kept(themes, weights)
        if score > best_score + 1e-9:
            best, best_score = weights, score
    return best


@dataclass(frozen=True)
class LabelTuning:
    themes: int
    judged: int
    default_held_out: float  # the defaults' share kept in the head, on each fold's held-out themes
    tuned_held_out: float  # the weights chosen on the other folds, on the same held-out themes
    weights: dict[str, float]  # chosen on every theme: what an overlay would hold

    @property
    def better(self) -> bool:
        return self.tuned_held_out > self.default_held_out + 1e-9


def tune_weights(themes: Sequence[JudgedTheme], defaults: Mapping[str, float]) -> LabelTuning:
    default_scores, tuned_scores = [], []
    for fold in range(FOLDS):
        held_out = [t for t in themes if fold_of(t.key) == fold]
        if not held_out:
            continue
        chosen = best_weights([t for t in themes if fold_of(t.key) != fold], defaults)
        default_scores += [head_kept(t, defaults) for t in held_out]
        tuned_scores += [head_kept(t, chosen) for t in held_out]

    return LabelTuning(len(themes), sum(len(t.kept) for t in themes), mean(default_scores), mean(tuned_scores),
                       best_weights(themes, defaults))


# ---- the relevance calibration ----------------------------------------------------------------------------------

STRENGTHS = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 1000.0)  # the pulls toward the judged weights tried (fit_logistic's l2)
FLOORS = tuple(round(0.05 * i, 2) for i in range(1, 15))  # the relevance floors tried, 0.05 to 0.7


@dataclass(frozen=True)
class ThemeEvidence:
    """A labelled theme's judged books as a rerun over the current index sees them."""

    key: str  # batch/theme
    short: bool  # fusion weighs its query by the short-query weights
    kept: np.ndarray  # per judged book found again: 1 kept, 0 dropped or replaced
    ranks: tuple[int, ...]  # its place on the curator's shelf (ties in probability keep that order)
    evidence: tuple[Evidence, ...]
    # how surely it holds the vocabulary values the brief requires: the least, over the brief's required facets, of
    # its best required value's confidence (1 where the brief requires none, or the source tagged it)
    sureness: tuple[float, ...] = ()


def theme_evidence(labels: Sequence[Label], themes: Mapping[str, Theme], ctx: ShelvingContext) -> list[ThemeEvidence]:
    """Each labelled theme understood, recalled and ordered again (no history, no answers applied), with the
    evidence of the judged books found among its candidates; a theme no longer in the workspace is left out."""
    by_theme: dict[str, list[Label]] = {}
    for lb in judged(labels):
        by_theme.setdefault(f"{lb.batch_id}/{lb.theme_id}", []).append(lb)
    settings = ctx.ranking.settings
    out = []
    for key, own in sorted(by_theme.items()):
        if key not in themes:
            continue
        understood = understand(themes[key], (), ctx.tools)
        ranking = order(recall(understood, ctx.recall), understood, ctx.ranking)
        tokens = bm25_query_tokens(understood.query, ctx.ranking.snapshot, settings.recall.max_keyword_share)
        found = dict(zip((c.book_id for c in ranking.candidates), ranking.evidence))
        again = [lb for lb in own if lb.book_id in found]
        required = [c for c in understood.query.filter_conditions
                    if c.operator == "MUST" and c.field not in TERM_FIELDS]
        out.append(ThemeEvidence(
            key, short_query(settings.fusion, len(tokens), bool(POLICIES[understood.understanding.intent].paths)),
            np.array([lb.verdict == "keep" for lb in again], dtype=np.float64),
            tuple(lb.rank or 0 for lb in again), tuple(found[lb.book_id] for lb in again),
            tuple(min((max(ctx.ranking.books[lb.book_id].confidence(c.field, v) for v in c.values) for c in required),
                      default=1.0) for lb in again)))
    return out


@dataclass(frozen=True)
class ShelfScore:
    share: float  # the share kept among the judged books the shelf takes first (see the module's docstring)
    kept: int  # kept books on the shelf
    dropped: int  # dropped or replaced books on the shelf


def shelf_of(theme: ThemeEvidence, taken: Sequence[int], head: int = HEAD) -> ShelfScore:
    """The score of a shelf that takes these of the theme's judged books, in this order."""
    first = list(taken)[:head]
    kept = int(sum(theme.kept[i] for i in first))
    return ShelfScore(kept / len(first) if first else float(not theme.kept.any()), kept, len(first) - kept)


def shelf_score(theme: ThemeEvidence, calibration: Calibration, kind: str, floor: float) -> ShelfScore:
    return shelves_at(theme, probabilities(calibration, theme.evidence, kind), (floor,))[0]


def shelves_at(theme: ThemeEvidence, p: np.ndarray, floors: Sequence[float]) -> list[ShelfScore]:
    """The theme's shelf at each floor, from its books' probabilities worked out once (the floors' search would
    otherwise score every book again for each floor tried)."""
    ordered = sorted(range(len(p)), key=lambda i: (-p[i], theme.ranks[i]))
    return [shelf_of(theme, [i for i in ordered if p[i] >= floor]) for floor in floors]


def _rows(themes: Sequence[ThemeEvidence]) -> tuple[list[Evidence], np.ndarray]:
    return [e for t in themes for e in t.evidence], np.concatenate([t.kept for t in themes] or [np.zeros(0)])


def refitted(themes: Sequence[ThemeEvidence], calibration: Calibration, kind: str,
             in_force_floor: float) -> tuple[Calibration, float]:
    """The calibration refitted on the themes' verdicts, its pull toward the judged weights the one of STRENGTHS
    whose refits, with the floor chosen beside them, shelve the most kept books less dropped ones on the themes'
    held-out folds (the stronger pull wins a tie)."""
    folds = sorted({fold_of(t.key) for t in themes})

    def held_out_net(strength: float) -> int:
        total = 0
        for fold in folds:
            train = [t for t in themes if fold_of(t.key) != fold]
            if train:
                learned = refit(calibration, kind, *_rows(train), strength)
                total += net(shelf_scores([t for t in themes if fold_of(t.key) == fold], learned, kind,
                                          chosen_floor(train, learned, kind, in_force_floor)))
        return total
    strength = max(STRENGTHS, key=lambda s: (held_out_net(s), s)) if len(folds) > 1 else max(STRENGTHS)
    return refit(calibration, kind, *_rows(themes), strength), strength


def shelf_scores(themes: Sequence[ThemeEvidence], calibration: Calibration, kind: str,
                 floor: float) -> list[ShelfScore]:
    return [shelf_score(t, calibration, kind, floor) for t in themes]


def net(scores: Sequence[ShelfScore]) -> int:
    """Kept books less dropped ones on the shelves: a book is worth shelving where a curator keeps it more often
    than not."""
    return sum(s.kept - s.dropped for s in scores)


def chosen_floor(themes: Sequence[ThemeEvidence], calibration: Calibration, kind: str, in_force: float) -> float:
    """The floor at which the themes' shelves hold the most kept books less dropped ones; the floor in force, then
    the nearest to it, wins a tie."""
    floors = sorted({*FLOORS, in_force})
    per_theme = [shelves_at(t, probabilities(calibration, t.evidence, kind), floors) for t in themes]
    nets = {f: net([shelves[k] for shelves in per_theme]) for k, f in enumerate(floors)}
    return max(floors, key=lambda f: (nets[f], f == in_force, -abs(f - in_force)))


@dataclass(frozen=True)
class HeldOut:
    """Per held-out theme, its shelf under what is in force and under what was learned on the other folds."""

    default: list[ShelfScore]
    tuned: list[ShelfScore]

    @property
    def default_held_out(self) -> float:
        return mean([s.share for s in self.default])

    @property
    def tuned_held_out(self) -> float:
        return mean([s.share for s in self.tuned])

    @property
    def better(self) -> bool:
        return self.tuned_held_out > self.default_held_out + 1e-9 and net(self.tuned) >= net(self.default)


@dataclass(frozen=True)
class CalibrationTuning(HeldOut):
    themes: int
    judged: int
    default_loss: float  # held-out log loss of the verdicts
    tuned_loss: float
    strength: float  # the pull toward the judged weights chosen on every theme
    calibration: Calibration  # refitted on every theme: what would be written
    floor: float  # the relevance floor chosen with it on every theme


def tune_calibration(themes: Sequence[ThemeEvidence], in_force: Calibration, judged_calibration: Calibration,
                     kind: str, floor: float) -> CalibrationTuning:
    """The calibration and floor in force against a calibration refitted (toward the judged one) on the other
    folds with the floor chosen there, on held-out themes; and the pair learned on every theme."""
    themes = [t for t in themes if len(t.kept)]
    default, tuned, default_loss, tuned_loss = [], [], 0.0, 0.0
    for fold in range(FOLDS):
        held_out = [t for t in themes if fold_of(t.key) == fold]
        train = [t for t in themes if fold_of(t.key) != fold]
        if not held_out or not train:
            continue
        learned, _ = refitted(train, judged_calibration, kind, floor)
        default += shelf_scores(held_out, in_force, kind, floor)
        tuned += shelf_scores(held_out, learned, kind, chosen_floor(train, learned, kind, floor))
        rows, kept = _rows(held_out)
        default_loss += log_loss(in_force, kind, rows, kept) * len(kept)
        tuned_loss += log_loss(learned, kind, rows, kept) * len(kept)
    judged_books = sum(len(t.kept) for t in themes)
    final, strength = refitted(themes, judged_calibration, kind, floor) if themes else (in_force, 0.0)
    return CalibrationTuning(default, tuned, len(themes), judged_books, default_loss / max(judged_books, 1),
                             tuned_loss / max(judged_books, 1), strength, final,
                             chosen_floor(themes, final, kind, floor))


# ---- the enrichment's filter confidence --------------------------------------------------------------------------

def sure_enough(themes: Sequence[ThemeEvidence], threshold: float) -> list[ShelfScore]:
    """Each theme's shelf with only the judged books that hold the brief's required values at the threshold, in the
    curator's order."""
    return [shelf_of(t, sorted((i for i, sure in enumerate(t.sureness) if sure >= threshold),
                               key=lambda i: t.ranks[i])) for t in themes]


def chosen_threshold(themes: Sequence[ThemeEvidence], in_force: float) -> float:
    """Of the surenesses the judged books hold above the threshold in force (a guess below it never filtered a book
    in, so its verdicts say nothing of a lower one), the threshold whose shelves hold the most kept books less
    dropped ones; the one in force wins a tie."""
    tried = sorted({in_force, *(x for t in themes for x in t.sureness if in_force < x < 1.0)})
    return max(tried, key=lambda x: (net(sure_enough(themes, x)), x == in_force, -x))


@dataclass(frozen=True)
class ThresholdTuning(HeldOut):
    themes: int  # themes with a judged book held by a guess only
    threshold: float  # chosen on every theme


def tune_filter_confidence(themes: Sequence[ThemeEvidence], in_force: float) -> ThresholdTuning:
    """enrichment.filter_confidence from the verdicts on the themes whose required values some judged book holds
    by a guess (below 1): a guess the curators drop more often than keep says the threshold lies higher."""
    guessed = [t for t in themes if any(x < 1.0 for x in t.sureness)]
    default, tuned = [], []
    for fold in range(FOLDS):
        held_out = [t for t in guessed if fold_of(t.key) == fold]
        train = [t for t in guessed if fold_of(t.key) != fold]
        if held_out and train:
            default += sure_enough(held_out, in_force)
            tuned += sure_enough(held_out, chosen_threshold(train, in_force))
    return ThresholdTuning(default, tuned, len(guessed), chosen_threshold(guessed, in_force))


@dataclass(frozen=True)
class LabelsReport:
    """All `tune --labels` learned, with the held-out figures it compared."""

    labels: int
    fusion: LabelTuning
    short_query: LabelTuning
    calibration: CalibrationTuning
    filter_confidence: ThresholdTuning
    kind: str
    floor: float  # in force
    threshold: float  # in force

    def overlay(self) -> dict:
        """The settings learned better on held-out themes, as config/local.yaml holds them (empty: none)."""
        fusion = {key: t.weights for key, t in (("weights", self.fusion), ("short_query_weights", self.short_query))
                  if t.better}
        ranking = ({"relevance_floor": self.calibration.floor}
                   if self.calibration.better and self.calibration.floor != self.floor else {})
        enrichment = ({"filter_confidence": self.filter_confidence.threshold}
                      if self.filter_confidence.better and self.filter_confidence.threshold != self.threshold else {})
        return {section: values for section, values in (("fusion", fusion), ("ranking", ranking),
                                                        ("enrichment", enrichment)) if values}

    def lines(self) -> list[str]:
        out = [f"{self.labels} labels; share kept in the first {HEAD} places of held-out themes, in force -> "
               "learned:"]
        for name, t in (("fusion weights", self.fusion), ("short-query weights", self.short_query)):
            out.append(f"{name}: {t.judged} verdicts on {t.themes} themes: {t.default_held_out:.4f} -> "
                       f"{t.tuned_held_out:.4f}; learned " + json.dumps(t.weights, ensure_ascii=False))
        c = self.calibration
        out.append(f"relevance calibration and floor ({self.kind}): {c.judged} verdicts on {c.themes} themes: "
                   f"{c.default_held_out:.4f} -> {c.tuned_held_out:.4f}; kept less dropped books shelved "
                   f"{net(c.default)} -> {net(c.tuned)}; log loss {c.default_loss:.4f} -> {c.tuned_loss:.4f}; "
                   f"learned: floor {self.floor} -> {c.floor}, pull toward the judged weights {c.strength}")
        f = self.filter_confidence
        out.append(f"enrichment filter confidence: {f.themes} themes with a book held by a guess only: "
                   f"{f.default_held_out:.4f} -> {f.tuned_held_out:.4f}; kept less dropped books shelved "
                   f"{net(f.default)} -> {net(f.tuned)}; learned {self.threshold} -> {f.threshold}"
                   + (" (takes effect at the next `shelfwise index build`)" if f.better else ""))
        return out


def tune_from_labels(labels: Sequence[Label], themes: Mapping[str, Theme], ctx: ShelvingContext,
                     judged_calibration: Calibration) -> LabelsReport:
    """What the verdicts teach: the fusion weights on the themes fusion weighs by them, the short-query weights on
    the others, and the calibration of this catalog's kind with its floor."""
    settings, relevance = ctx.ranking.settings, ctx.ranking.relevance
    evidence = theme_evidence(labels, themes, ctx)
    short = {t.key for t in evidence if t.short}
    judged_books = judged_themes(labels)
    return LabelsReport(
        len(labels),
        tune_weights([t for t in judged_books if t.key not in short], settings.fusion.weights),
        tune_weights([t for t in judged_books if t.key in short], settings.fusion.short_query_weights),
        tune_calibration(evidence, relevance.calibration, judged_calibration, relevance.kind,
                         settings.ranking.relevance_floor),
        tune_filter_confidence(evidence, ctx.ranking.snapshot.filter_confidence),
        relevance.kind, settings.ranking.relevance_floor, ctx.ranking.snapshot.filter_confidence)
