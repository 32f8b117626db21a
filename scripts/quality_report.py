"""`make report`: measure the current code and write docs/quality.md, so that its tables cannot go stale.

Runs `shelfwise eval --briefs ... --json` on the demo catalog (tagged and tag-blind), `shelfwise eval DIR --json`
on every BEIR-layout set under --data (none unless given), and times `shelfwise try` on the demo workspace;
keeps each command's JSON in outputs/report/ and renders the tables from those files alone (--render-only
renders what is there without measuring again).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SHELFWISE = [sys.executable, "-m", "flows.cli"]
RESULTS = PROJECT / "outputs" / "report"
TRY_BRIEFS = ("雨夜读的安静小说，不要温暖治愈的", "Quiet novels for a rainy night, nothing heart-warming",
              "鲁迅作品专题")
BRIEF_ROWS = ("briefs", "mean pass share", "mean pass share zh", "mean pass share en", "mean condition share",
              "briefs with a failing book", "duplicate works", "status as expected", "resolved as expected")


def shelfwise(*args: str) -> str:
    """A shelfwise command's output; its failure stops the report with the command's own error."""
    done = subprocess.run([*SHELFWISE, *args], cwd=PROJECT, capture_output=True, text=True,
                          env={**os.environ, "DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"})
    if done.returncode != 0:
        sys.exit(f"report: `shelfwise {' '.join(args)}` failed:\n{done.stderr[-2000:]}")
    return done.stdout


def keep(name: str, data: object) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.with_suffix(".tmp").write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    path.with_suffix(".tmp").replace(path)


def measure(data: Path | None, limit: int | None) -> None:
    catalog = str(PROJECT / "config/demo/catalog.jsonl")
    benchmark = str(PROJECT / "benchmarks/briefs/demo.yaml")
    for name, blind in (("briefs-tagged", ()), ("briefs-tag-blind", ("--tag-blind",))):
        keep(name, json.loads(shelfwise("eval", "--briefs", benchmark, "--catalog", catalog, *blind, "--json")))
    for folder in sorted(p for p in (data.iterdir() if data else ()) if (p / "qrels").is_dir()):
        keep(f"beir-{folder.name}", json.loads(shelfwise("eval", str(folder), "--json",
                                                         *(("--limit", str(limit)) if limit else ()))))
    shelfwise("try", TRY_BRIEFS[0])  # the first call pays for loading the model and the index: not a brief's time
    seconds = {}
    for brief in TRY_BRIEFS:
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            shelfwise("try", brief)
            runs.append(time.perf_counter() - start)
        seconds[brief] = round(statistics.median(runs), 2)
    keep("try", {"seconds": seconds})
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT, capture_output=True,
                            text=True).stdout.strip()
    keep("measured", {"at": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "commit": commit,
                      "cores": os.cpu_count(), "load": round(os.getloadavg()[0], 1), "beir_limit": limit})


def table(header: list[str], rows: list[list[object]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(str(c) for c in row) + " |" for row in rows]


def render() -> str:
    def read(name: str) -> dict:
        return json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))

    measured = read("measured")
    lines = ["# Quality and speed", "",
             "Written by `make report` from `shelfwise eval --json` and timed `shelfwise try` runs; "
             "do not edit by hand.",
             "", f"Measured on {measured['at']}, commit {measured['commit']}, {measured['cores']} cores, "
             f"load average {measured['load']} (times are wall-clock: a busy machine slows them).", "",
             "## Briefs read as the curator meant them", "",
             "The shelf benchmark (benchmarks/briefs/demo.yaml) over the demo catalog, with its tags and "
             "without them.",
             ""]
    tagged, blind = read("briefs-tagged")["summary"], read("briefs-tag-blind")["summary"]
    lines += table(["", "tagged", "tag-blind"],
                   [[row, tagged.get(row, "-"), blind.get(row, "-")] for row in BRIEF_ROWS])
    sets = sorted(p.stem for p in RESULTS.glob("beir-*.json"))
    if sets:
        limit = measured.get("beir_limit")
        lines += ["", "## Retrieval on labelled sets", "",
                  f"nDCG@10 / Recall@100 per mode{f' (first {limit} queries of each set)' if limit else ''}.", ""]
        runs = {name: read(name) for name in sets}
        modes = list(dict.fromkeys(s["mode"] for run in runs.values() for s in run["scores"]))
        rows = []
        for name, run in runs.items():
            score = {s["mode"]: s for s in run["scores"]}
            rows.append([f"{run['dataset']} ({run['scores'][0]['queries']} queries)"]
                        + [f"{score[m]['ndcg_at_10']:.3f} / {score[m]['recall_at_100']:.3f}" if m in score else "-"
                           for m in modes])
        lines += table(["set", *modes], rows)
    lines += ["", "## Speed", ""]
    rows = [[f"`shelfwise try \"{brief}\"` (median of 3, warm)", f"{seconds:.2f} s"]
            for brief, seconds in read("try")["seconds"].items()]
    for name in sets:
        run = read(name)
        for s in run["scores"]:
            rows.append([f"eval {run['dataset']} {s['mode']}, per query",
                         f"{1000 * s['seconds'] / max(s['queries'], 1):.0f} ms"])
    lines += table(["what", "time"], rows)
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a folder of BEIR-layout sets to score (default: none)")
    parser.add_argument("--limit", type=int, help="only the first N queries of each labelled set")
    parser.add_argument("--render-only", action="store_true", help="write docs/quality.md from outputs/report/")
    args = parser.parse_args()
    if not args.render_only:
        measure(args.data, args.limit)
    target = PROJECT / "docs" / "quality.md"
    target.with_suffix(".tmp").write_text(render(), encoding="utf-8")
    target.with_suffix(".tmp").replace(target)
    print(f"written to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
