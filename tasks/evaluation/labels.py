"""What curators' verdicts say about the ranking: shares kept and dropped, and fusion weights learned from them.

`label_shares`: of the shelved books a curator judged, the share kept, dropped and replaced, over all and by the
recall path that found the book and by the kind of reason the workbook gave (`eval --labels`).

`tune_weights`: the fusion weights that put the books curators kept first (`tune --labels`). Each judged book
carries what fusion saw (its rank and score on each path, from the workbook's ids); a theme's judged books are
ordered by sum(weight x min-max normalised score) and scored by the share kept among the first `head` places.
Themes are split into folds by a hash of their ids (no randomness): weights are chosen on the other folds and
measured on the held-out one, so the figure compared with the defaults is always one on themes the weights
never saw. An overlay is worth writing only when that held-out share beats the defaults'.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from storage.labels import Label

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
    fused = [sum(weights.get(p, 0.0) * s for p, s in scores.items()) for scores in theme.scores]
    order = sorted(range(len(fused)), key=lambda i: (-fused[i], i))[:head]
    return sum(theme.kept[i] for i in order) / len(order) if order else 0.0


def mean_head_kept(themes: Sequence[JudgedTheme], weights: Mapping[str, float]) -> float:
    return sum(head_kept(t, weights) for t in themes) / len(themes) if themes else 0.0


def fold_of(key: str) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % FOLDS


def best_weights(themes: Sequence[JudgedTheme], defaults: Mapping[str, float]) -> dict[str, float]:
    """The grid's best weights for the paths the labels hold; the defaults win every tie."""
    found = Counter(p for t in themes for s in t.scores for p in s)
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


def tune_weights(labels: Sequence[Label], defaults: Mapping[str, float]) -> LabelTuning:
    themes = judged_themes(labels)
    default_scores, tuned_scores = [], []
    for fold in range(FOLDS):
        held_out = [t for t in themes if fold_of(t.key) == fold]
        if not held_out:
            continue
        chosen = best_weights([t for t in themes if fold_of(t.key) != fold], defaults)
        default_scores += [head_kept(t, defaults) for t in held_out]
        tuned_scores += [head_kept(t, chosen) for t in held_out]

    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else 0.0
    return LabelTuning(len(themes), sum(len(t.kept) for t in themes), mean(default_scores), mean(tuned_scores),
                       best_weights(themes, defaults))
