"""Benchmark: one theme's time per stage, warm, in-process, over the 90 curator briefs on the demo workspace.

    .venv/bin/python benchmarks/theme_stages.py [--json OUT] [--profile N]

Needs `make demo` (var/). Every brief is shelved once to warm the caches (the first theme pays for the model's
first call), then timed: understand, recall, rank and the whole theme, p50 and p90 in ms. It reads no history, so
a theme's time is its own brief's, not the batch's. `--profile N` prints the N costliest functions of the timed pass
(cProfile, cumulative). Process start, the index's opening and the model's load are what `shelfwise try` adds on
top (the report's `try` rows).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from config.settings import load_settings  # noqa: E402
from config.vocabulary import get_vocabulary  # noqa: E402
from tasks.model.themes import Theme  # noqa: E402
from tasks.ranking.rank import rank  # noqa: E402
from tasks.recall.recall import recall  # noqa: E402
from tasks.shelving import build_context  # noqa: E402
from tasks.understanding.understand import understand  # noqa: E402

BRIEFS = PROJECT / "benchmarks/briefs/demo.yaml"
STAGES = ("understand", "recall", "rank", "theme")


@dataclass(frozen=True)
class StageTime:
    stage: str
    p50_ms: float
    p90_ms: float


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def main(out: Path | None, profile: int) -> int:
    briefs = [b["brief"] for batch in yaml.safe_load(BRIEFS.read_text(encoding="utf-8"))["batches"]
              for b in batch["briefs"]]
    ctx = build_context(load_settings(), get_vocabulary())
    seconds: dict[str, list[float]] = {s: [] for s in STAGES}
    profiler = cProfile.Profile()
    for timed in (False, True):
        for i, brief in enumerate(briefs):
            theme = Theme("bench-stages", f"t{i:03d}", brief)
            if timed and profile:
                profiler.enable()
            start = time.perf_counter()
            understood = understand(theme, [], ctx.tools)
            understood_at = time.perf_counter()
            hits = recall(understood, ctx.recall)
            recalled_at = time.perf_counter()
            rank(hits, understood, ctx.ranking)
            ranked_at = time.perf_counter()
            if timed and profile:
                profiler.disable()
            if timed:
                for stage, took in zip(STAGES, (understood_at - start, recalled_at - understood_at,
                                                ranked_at - recalled_at, ranked_at - start)):
                    seconds[stage].append(took)
    times = [StageTime(s, round(1000 * statistics.median(v), 1), round(1000 * percentile(v, 0.9), 1))
             for s, v in seconds.items()]
    for t in times:
        print(f"{t.stage:10s}  p50 {t.p50_ms:7.1f} ms  p90 {t.p90_ms:7.1f} ms")
    if profile:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(profile)
    if out:
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps({"briefs": len(briefs), "stages": [asdict(t) for t in times]}, indent=2),
                       encoding="utf-8")
        tmp.replace(out)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the stage times here")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print the N costliest functions")
    args = parser.parse_args()
    sys.exit(main(args.json, args.profile))
