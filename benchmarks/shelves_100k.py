"""Benchmark: a 100-theme batch over a synthetic 100k-book catalog.

Prints the time of each stage (summed over themes), per-theme p50/p95 and the peak memory (RSS).
It reuses the workspace of benchmarks/build_indexes_100k.py when given one that is built:
    .venv/bin/python benchmarks/shelves_100k.py --workspace /tmp/sw-bench-100k [--themes 100]
otherwise it first builds one with that script's catalog. SHELFWISE__RECALL__PARALLEL_PATHS=false
runs the recall paths one after another, for comparison. Prefect's temporary server is started before the
batch and timed apart (a flow command reuses a running server when there is one).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

BRIEFS_ZH = ["适合{c}读的书，{t}，不要{n}的", "想找一些{t}的{g}，最好是{a}", "{a}里的{g}，{t}"]
BRIEFS_EN = ["Books for {c}: {t}, nothing {n}", "Some {t} {g} set in {a}", "{g} about {a}, {t}"]


def synthetic_themes(n: int, vocabulary, rng: random.Random) -> list[dict]:
    dims = {d.name: d.values for d in vocabulary.dimensions}
    themes = []
    for i in range(n):
        zh = i % 2 == 0
        pick = {k: rng.choice(v) for k, v in dims.items()}
        label = (lambda v: v.name) if zh else (lambda v: v.english_label)
        template = rng.choice(BRIEFS_ZH if zh else BRIEFS_EN)
        themes.append({
            "theme_id": f"t{i:03d}",
            "theme_name": template.format(c=label(pick["reading_context"]), t=label(pick["emotional_tone"]),
                                          n=label(rng.choice(dims["emotional_tone"])), g=label(pick["genre"]),
                                          a=label(pick["spatial_atmosphere"])),
            "description": pick["spatial_atmosphere"].description if zh else pick["spatial_atmosphere"].description_en,
        })
    return themes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, default=Path("/tmp/sw-bench-100k"))
    parser.add_argument("--themes", type=int, default=100)
    args = parser.parse_args()
    if not (args.workspace / "shelfwise.duckdb").exists():
        script = Path(__file__).with_name("build_indexes_100k.py")
        subprocess.run([sys.executable, str(script), "--workspace", str(args.workspace)], check=True)
    os.environ["SHELFWISE__WORKSPACE"] = str(args.workspace)
    os.environ["SHELFWISE__OUTPUTS_DIR"] = str(args.workspace / "outputs")
    from config.settings import configure_runtime_environment, load_settings

    configure_runtime_environment(load_settings())
    from config.vocabulary import get_vocabulary
    from flows.generate_shelves import ThemeBrief, generate_shelves

    themes = [ThemeBrief(**t) for t in synthetic_themes(args.themes, get_vocabulary(), random.Random(7))]
    # one batch id: a rerun sees the same history (a new id a run would find its own earlier shelves)
    batch_id = f"bench-{args.themes}"
    if not os.environ.get("PREFECT_API_URL"):  # the server a flow would start, started first and timed apart
        from prefect.server.api.server import SubprocessASGIServer

        start = time.perf_counter()
        SubprocessASGIServer().start()
        print(f"Prefect's temporary server started in {time.perf_counter() - start:.1f} s (not in the batch time)")
    start = time.perf_counter()
    result = generate_shelves(batch_id, themes)
    total = time.perf_counter() - start

    # "recall.<path>" times overlap inside "recall" (the paths run at once): they are shown, not summed
    per_theme = [sum(v for k, v in stages.items() if "." not in k) for stages in result.stage_seconds.values()]
    stages: dict[str, float] = {}
    for theme_stages in result.stage_seconds.values():
        for stage, seconds in theme_stages.items():
            stages[stage] = stages.get(stage, 0.0) + seconds
    q = statistics.quantiles(per_theme, n=20)
    print(f"batch of {len(per_theme)} themes: {total:,.1f} s in all (index load, Prefect flow and task runs, Excel)")
    print(f"per theme: p50 {statistics.median(per_theme):.3f} s, p95 {q[18]:.3f} s, max {max(per_theme):.3f} s")
    retrieval = [stages.get("recall", 0.0) + stages.get("fusion", 0.0) for stages in result.stage_seconds.values()]
    print(f"recall + fusion per theme: p50 {statistics.median(retrieval) * 1000:.0f} ms, "
          f"p95 {statistics.quantiles(retrieval, n=20)[18] * 1000:.0f} ms")
    print("stage totals over all themes:")
    for stage, seconds in sorted(stages.items(), key=lambda kv: -kv[1]):
        print(f"  {stage:<16} {seconds:9.2f} s")
    print(f"books per shelf: min {min(result.shelves.values())}, median "
          f"{statistics.median(result.shelves.values())}")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")
    print(f"workbook: {result.workbook}")


if __name__ == "__main__":
    main()
