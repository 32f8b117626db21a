"""The ways `shelfwise eval` runs the recall path, and the grid `shelfwise tune` searches.

A variant is a set of stage switches plus settings overrides; bm25 and vector run one path alone,
hybrid fuses them, full is the product's stages (random BM25 share, reranker) on the query's own words
(tasks/evaluation/queries.py: a claim is no brief, the brief grammar does not read it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from config.settings import Settings
from tasks.evaluation.metrics import ModeScore
from tasks.model.themes import RECALL_PATHS, StageSwitches


@dataclass(frozen=True)
class Variant:
    """One way to run the recall path: which paths and stages, which settings, with or without translation."""

    name: str
    switches: StageSwitches
    fusion: dict = field(default_factory=dict)  # overrides of settings.fusion
    sentence: dict = field(default_factory=dict)  # overrides of settings.rerank.sentence
    translate: bool = False  # the query as tasks/evaluation/queries.py builds it, else the plain text

    def settings(self, base: Settings) -> Settings:
        """The base settings with this variant's overrides."""
        rerank = base.rerank.model_copy(update={"sentence": base.rerank.sentence.model_copy(update=self.sentence)})
        return base.model_copy(update={"fusion": base.fusion.model_copy(update=self.fusion), "rerank": rerank})


def _plain(paths: tuple[str, ...] = RECALL_PATHS, **switches) -> StageSwitches:
    """A retrieval-only run: no random share, no reranker."""
    return StageSwitches(paths=paths, bm25_randomness=0.0, rerank=False, **switches)


MODES = {
    "bm25": Variant("bm25", _plain(("bm25",))),
    "vector": Variant("vector", _plain(("vector",))),
    "hybrid": Variant("hybrid", _plain()),
    "full": Variant("full", StageSwitches(), translate=True),
}
# Every default switched off in turn, beside the modes.
ABLATION = [
    MODES["bm25"], MODES["vector"],
    Variant("vector -sentence", _plain(("vector",)), {"sentence_weight": 0.0}),
    Variant("rrf (equal)", _plain(), {"method": "rrf", "weights": {"vector": 1.0, "bm25": 1.0}}),
    MODES["hybrid"],
    Variant("hybrid -sentence", _plain(), {"sentence_weight": 0.0}),
    Variant("hybrid -short-query rule", _plain(), {"short_query_tokens": 0}),
    Variant("hybrid dbsf", _plain(), {"method": "dbsf"}),
    Variant("hybrid dbsf 1/0.5", _plain(), {"method": "dbsf", "weights": {"vector": 0.5, "bm25": 1.0}}),
    Variant("hybrid equal weights", _plain(), {"weights": {"vector": 1.0, "bm25": 1.0}}),
    Variant("e5", _plain(("e5",))),
    Variant("hybrid -e5", _plain(("vector", "bm25"))),
    MODES["full"],
    Variant("full -randomness", StageSwitches(bm25_randomness=0.0), translate=True),
]
# Query expansion and sentence-level rerank, each on and off.
STAGES = [
    Variant(f"{mode} exp={'on' if expansion else 'off'} sent={'on' if sentence else 'off'}",
            _plain(paths, query_expansion=expansion, sentence_rerank=sentence))
    for mode, paths in (("vector", ("vector",)), ("hybrid", RECALL_PATHS))
    for expansion in (False, True) for sentence in (False, True)
] + [Variant(f"hybrid sent=on w={weight}", _plain(sentence_rerank=True), sentence={"weight": weight})
     for weight in (0.1, 0.5, 1.0)]

TUNE_GRID = [
    {"method": method, "weights": {"bm25": 1.0, "vector": weight}, "sentence_weight": sentence}
    for method in ("dbsf", "minmax") for weight in (0.25, 0.5, 0.75, 1.0, 1.5) for sentence in (0.0, 0.5)
] + [{"method": "rrf", "weights": {"bm25": 1.0, "vector": weight}} for weight in (0.3, 0.5, 1.0)]


def tune_variants() -> list[Variant]:
    """The hybrid mode as configured, then one variant per grid point."""
    return [MODES["hybrid"]] + [Variant(f"grid {i}", MODES["hybrid"].switches, grid) for i, grid in enumerate(TUNE_GRID)]


@dataclass(frozen=True)
class TuneReport:
    before: ModeScore
    after: ModeScore
    fusion: dict  # the chosen fusion settings, as written to config/local.yaml


def choose_fusion(scores: Sequence[ModeScore], current: dict) -> TuneReport:
    """The grid point with the best nDCG@10 (then Recall@100), if it beats the configured fusion."""
    before = scores[0]
    best = max(range(1, len(scores)), key=lambda i: (scores[i].ndcg_at_10, scores[i].recall_at_100, -i))
    if scores[best].ndcg_at_10 > before.ndcg_at_10:
        return TuneReport(before, scores[best], TUNE_GRID[best - 1])
    return TuneReport(before, before, current)
