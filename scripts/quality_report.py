"""`make report`: measure the current code and write docs/quality.md, so that its tables cannot go stale.

Runs `shelfwise eval --briefs ... --json` on the demo catalog (tagged and tag-blind), the judged briefs
(benchmarks/judged_eval.py) on the demo catalog and, where it is staged, on the Gutenberg catalog, the fresh
curator fragments (benchmarks/fragments_eval.py) and the fragment tables (benchmarks/fragment_table.py),
`shelfwise eval DIR --json` on every BEIR-layout set under --data (none unless given), and times `shelfwise try`
on the demo workspace; keeps each command's JSON in outputs/report/ and renders the tables from those files
alone (--render-only renders what is there without measuring again; a section whose files are missing is left
out). --readme README.md also writes a compact quality table and the speed rows between the README's
`<!-- report:quality -->` / `<!-- report:speed -->` markers and their closing `<!-- /report:... -->` lines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SHELFWISE = [sys.executable, "-m", "flows.cli"]
RESULTS = PROJECT / "outputs" / "report"
TRY_BRIEFS = ("雨夜读的安静小说，不要温暖治愈的", "Quiet novels for a rainy night, nothing heart-warming",
              "鲁迅作品专题")
# The judged sets: (name in outputs/report/, briefs file, catalog key, the modes it is run in). Gutenberg's records
# carry no vocabulary tags of ours, so it is run tag-blind only.
BOTH, BLIND = ("tagged", "blind"), ("blind",)
# The sets written a session apart since `next`, each a demo set and a Gutenberg set (benchmarks/judged/README.md).
LATER_SETS = ("next2", "next3", "next4", "next5", "next6", "next7", "next8", "next9", "next10",
              "next11", "next12", "next13", "next14", "next15", "next16", "next17", "next18",
              "next19", "next20", "next21", "next22", "next23", "next24",
              "next25", "next26")
# The sets the product is tuned on (benchmarks/judged/README.md); whoever tunes it never opens the others.
TUNED_ON = frozenset({"demo-dev", "demo-next", "demo-next2", "demo-next3", "demo-next4", "gutenberg-dev",
                      "gutenberg-next", "gutenberg-next2", "gutenberg-next3", "gutenberg-next4", "evergreen-next"})
JUDGED = (("demo-dev", "benchmarks/judged/demo-dev.yaml", "demo", BOTH),
          ("demo-holdout", "benchmarks/judged/demo-holdout.yaml", "demo", BOTH),
          ("demo-next", "benchmarks/judged/demo-next.yaml", "demo", BOTH),
          ("gutenberg-dev", "benchmarks/judged/gutenberg-dev.yaml", "gutenberg", BLIND),
          ("gutenberg-holdout", "benchmarks/judged/gutenberg-holdout.yaml", "gutenberg", BLIND),
          ("gutenberg-next", "benchmarks/judged/gutenberg-next.yaml", "gutenberg", BLIND),
          ("evergreen-next", "benchmarks/judged/evergreen-next.yaml", "evergreen", BLIND),
          ("evergreen-next2", "benchmarks/judged/evergreen-next2.yaml", "evergreen", BLIND),
          ("evergreen-next8", "benchmarks/judged/evergreen-next8.yaml", "evergreen", BLIND),
          ("evergreen-next9", "benchmarks/judged/evergreen-next9.yaml", "evergreen", BLIND),
          ("evergreen-next10", "benchmarks/judged/evergreen-next10.yaml", "evergreen", BLIND),
          ("evergreen-next12", "benchmarks/judged/evergreen-next12.yaml", "evergreen", BLIND),
          ("evergreen-next13", "benchmarks/judged/evergreen-next13.yaml", "evergreen", BLIND),
          ("evergreen-next14", "benchmarks/judged/evergreen-next14.yaml", "evergreen", BLIND),
          ("evergreen-next15", "benchmarks/judged/evergreen-next15.yaml", "evergreen", BLIND),
          ("evergreen-next16", "benchmarks/judged/evergreen-next16.yaml", "evergreen", BLIND),
          ("evergreen-next17", "benchmarks/judged/evergreen-next17.yaml", "evergreen", BLIND),
          ("evergreen-next18", "benchmarks/judged/evergreen-next18.yaml", "evergreen", BLIND),
          ("evergreen-next19", "benchmarks/judged/evergreen-next19.yaml", "evergreen", BLIND),
          ("evergreen-next20", "benchmarks/judged/evergreen-next20.yaml", "evergreen", BLIND),
          ("evergreen-next21", "benchmarks/judged/evergreen-next21.yaml", "evergreen", BLIND),
          ("evergreen-next22", "benchmarks/judged/evergreen-next22.yaml", "evergreen", BLIND),
          ("evergreen-next23", "benchmarks/judged/evergreen-next23.yaml", "evergreen", BLIND),
          ("evergreen-next24", "benchmarks/judged/evergreen-next24.yaml", "evergreen", BLIND),
          ("evergreen-next25", "benchmarks/judged/evergreen-next25.yaml", "evergreen", BLIND),
          ("evergreen-next26", "benchmarks/judged/evergreen-next26.yaml", "evergreen", BLIND),
          *((f"{catalog}-{later}", f"benchmarks/judged/{catalog}-{later}.yaml", catalog, modes)
            for later in LATER_SETS for catalog, modes in (("demo", BOTH), ("gutenberg", BLIND))))
# The committed first-sight runs, before any change made for these briefs (main at cbca387 for the first sets, at
# f20f09f for the `next` sets, at eedd28a for `next2`, at 6b51fc3 for `next3`, at 17a6c7e for `next4`, at 9e774a3 for
# `next5`, at 20a62a8 for `next6`, at b4db347 for `next7`, at d50715a for `evergreen-next2`, at 5c834d2 for `next8`
# and `evergreen-next8`, at 0ff031f for `next9` and `evergreen-next9`, at 11930f4 for `next10` and
# `evergreen-next10`, at b211465 for `next11`, at d737169 for `next12` and `evergreen-next12`, at a6b1bdc for `next13` and
# `evergreen-next13`, at e6b4357 for `next14` and `evergreen-next14`, at 6a314b1 for `next15` and
# `evergreen-next15`, at 672ac51 for `next16` and `evergreen-next16`, at 461f033 for `next17` and
# `evergreen-next17`, at 9d7d4c4 for `next18` and `evergreen-next18`, at 3587d34 for `next19` and
# `evergreen-next19`, at 18e04ef for `next20` and `evergreen-next20`, at e64e16b for `next21` and
# `evergreen-next21`, at 427e970 for `next22` and `evergreen-next22`, at 8c4d499 for `next23` and `evergreen-next23`, at
# a06eeb2 for `next24` and `evergreen-next24`, at 85af471 for `next25` and `evergreen-next25`, at 63998bb for `next26`
# and `evergreen-next26`);
# the real catalogs were run as imported, holding none of our tags, so they stand beside the tag-blind rows.
FIRST_SIGHT = {"demo-dev-tagged": "benchmarks/judged/first-sight-dev-tagged.json",
               "demo-dev-blind": "benchmarks/judged/first-sight-dev-blind.json",
               "demo-holdout-tagged": "benchmarks/judged/first-sight-holdout-tagged.json",
               "demo-holdout-blind": "benchmarks/judged/first-sight-holdout-blind.json",
               "gutenberg-dev-blind": "benchmarks/catalogs/results/gutenberg-firstsight-dev.json",
               "gutenberg-holdout-blind": "benchmarks/catalogs/results/gutenberg-firstsight-holdout.json",
               "demo-next-tagged": "benchmarks/judged/first-sight-next-demo-tagged.json",
               "demo-next-blind": "benchmarks/judged/first-sight-next-demo-blind.json",
               "gutenberg-next-blind": "benchmarks/judged/first-sight-next-gutenberg.json",
               "evergreen-next-blind": "benchmarks/judged/first-sight-next-evergreen.json",
               "evergreen-next2-blind": "benchmarks/judged/first-sight-next2-evergreen.json",
               "evergreen-next8-blind": "benchmarks/judged/first-sight-next8-evergreen.json",
               "evergreen-next9-blind": "benchmarks/judged/first-sight-next9-evergreen.json",
               "evergreen-next10-blind": "benchmarks/judged/first-sight-next10-evergreen.json",
               "evergreen-next12-blind": "benchmarks/judged/first-sight-next12-evergreen.json",
               "evergreen-next13-blind": "benchmarks/judged/first-sight-next13-evergreen.json",
               "evergreen-next14-blind": "benchmarks/judged/first-sight-next14-evergreen.json",
               "evergreen-next15-blind": "benchmarks/judged/first-sight-next15-evergreen.json",
               "evergreen-next16-blind": "benchmarks/judged/first-sight-next16-evergreen.json",
               "evergreen-next17-blind": "benchmarks/judged/first-sight-next17-evergreen.json",
               "evergreen-next18-blind": "benchmarks/judged/first-sight-next18-evergreen.json",
               "evergreen-next19-blind": "benchmarks/judged/first-sight-next19-evergreen.json",
               "evergreen-next20-blind": "benchmarks/judged/first-sight-next20-evergreen.json",
               "evergreen-next21-blind": "benchmarks/judged/first-sight-next21-evergreen.json",
               "evergreen-next22-blind": "benchmarks/judged/first-sight-next22-evergreen.json",
               "evergreen-next23-blind": "benchmarks/judged/first-sight-next23-evergreen.json",
               "evergreen-next24-blind": "benchmarks/judged/first-sight-next24-evergreen.json",
               "evergreen-next25-blind": "benchmarks/judged/first-sight-next25-evergreen.json",
               "evergreen-next26-blind": "benchmarks/judged/first-sight-next26-evergreen.json",
               **{key: f"benchmarks/judged/first-sight-{later}-{name}.json" for later in LATER_SETS
                  for key, name in ((f"demo-{later}-tagged", "demo-tagged"), (f"demo-{later}-blind", "demo-blind"),
                                    (f"gutenberg-{later}-blind", "gutenberg"))}}
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
            "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
            "nineteenth", "twentieth", "twenty-first", "twenty-second", "twenty-third", "twenty-fourth",
            "twenty-fifth", "twenty-sixth", "twenty-seventh", "twenty-eighth", "twenty-ninth", "thirtieth",
            "thirty-first", "thirty-second", "thirty-third", "thirty-fourth", "thirty-fifth", "thirty-sixth")


def _fragment_files(batch: int) -> tuple[str, str]:
    stem = "fresh" if batch == 1 else f"fresh{batch}"
    return f"benchmarks/fragments/{stem}-zh.yaml", f"benchmarks/fragments/{stem}-en.yaml"


# The fresh fragment batches (benchmarks/fragments/README.md), each written by someone who did not change the
# reader: (name, files, its first-sight count: a JSON file of the runner or passed / total per language).
# A new batch is one more ordinal.
FRAGMENT_BATCHES = (("first batch", _fragment_files(1), {"zh": (65, 82), "en": (55, 78)}),
                    *((f"{ordinal} batch", _fragment_files(batch),
                       f"benchmarks/fragments/first-sight-fresh{batch}.json")
                      for batch, ordinal in enumerate(ORDINALS[1:], start=2)))
MARKERS = ("quality", "speed")
BRIEF_ROWS = ("briefs", "mean pass share", "mean pass share zh", "mean pass share en", "mean condition share",
              "briefs with a failing book", "duplicate works", "status as expected", "resolved as expected")


def run(command: list[str], label: str) -> str:
    """A command's output; its failure stops the report with the command's own error."""
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True,
                          env={**os.environ, "DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"})
    if done.returncode != 0:
        sys.exit(f"report: `{label}` failed:\n{done.stderr[-2000:]}")
    return done.stdout


def shelfwise(*args: str) -> str:
    return run([*SHELFWISE, *args], f"shelfwise {' '.join(args)}")


def benchmark(script: str, *args: str) -> str:
    return run([sys.executable, str(PROJECT / "benchmarks" / script), *args], f"benchmarks/{script} {' '.join(args)}")


def keep(name: str, data: object) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.with_suffix(".tmp").write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    path.with_suffix(".tmp").replace(path)


def real_catalogs() -> dict[str, Path]:
    """The judged catalogs that are here: the demo always, Gutenberg where it is staged
    (SHELFWISE_REAL_CATALOGS, as tests/integration/test_real_catalogs.py reads it, or ../shared/data/catalogs)."""
    staged = Path(os.environ.get("SHELFWISE_REAL_CATALOGS") or PROJECT.parent / "shared" / "data" / "catalogs")
    found = {"demo": PROJECT / "config/demo/catalog.jsonl"}
    for key, file in (("gutenberg", "gutenberg/pg_top_catalog.jsonl"), ("evergreen", "evergreen/concerto_bibs.xml")):
        if (staged / file).is_file():
            found[key] = staged / file
    return found


def measure_judged() -> None:
    catalogs = real_catalogs()
    for name, briefs, catalog, modes in JUDGED:
        if catalog not in catalogs:
            print(f"report: {catalog} catalog not staged, {name} not measured")
            continue
        for mode in modes:
            out = RESULTS / f"judged-{name}-{mode}.json"
            RESULTS.mkdir(parents=True, exist_ok=True)
            benchmark("judged_eval.py", "--briefs", briefs, "--catalog", str(catalogs[catalog]),
                      *(("--tag-blind",) if mode == "blind" else ()), "--json", str(out))


def measure(data: Path | None, limit: int | None) -> None:
    catalog = str(PROJECT / "config/demo/catalog.jsonl")
    briefs = str(PROJECT / "benchmarks/briefs/demo.yaml")
    for name, blind in (("briefs-tagged", ()), ("briefs-tag-blind", ("--tag-blind",))):
        keep(name, json.loads(shelfwise("eval", "--briefs", briefs, "--catalog", catalog, *blind, "--json")))
    measure_judged()
    RESULTS.mkdir(parents=True, exist_ok=True)
    for index, (_, files, _) in enumerate(FRAGMENT_BATCHES, start=1):
        if all((PROJECT / f).is_file() for f in files):
            benchmark("fragments_eval.py", "--json", str(RESULTS / f"fragments-{index}.json"), *files)
    benchmark("fragment_table.py", "--json", str(RESULTS / "fragment-table.json"))
    for folder in sorted(p for p in (data.iterdir() if data else ()) if (p / "qrels").is_dir()):
        keep(f"beir-{folder.name}", json.loads(shelfwise("eval", str(folder), "--json",
                                                         *(("--limit", str(limit)) if limit else ()))))
    benchmark("theme_stages.py", "--json", str(RESULTS / "stages.json"))
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


def load(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


@dataclass(frozen=True)
class JudgedRow:
    """One judged run's figures, as the table shows them."""
    wrong: float | None
    ndcg: float | None
    done_unfit: int
    status_ok: int
    briefs: int
    shelf_size: float | None
    broken: float | None  # shelved books graded wrong over all shelved books (issue 31's measure)

    @classmethod
    def of(cls, run: dict) -> "JudgedRow":
        s = run["summary"]["all"]
        sizes = [shelf["shelf_size"] for shelf in run.get("shelves", ())]
        return cls(s["mean_wrong_share"], s["mean_ndcg"], s["done_unfit"], s["status_ok"], s["briefs"],
                   sum(sizes) / len(sizes) if sizes else None, s.get("broken_share"))


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def judged_runs(results: Path) -> list[tuple[str, str, JudgedRow, JudgedRow | None]]:
    """(set name, mode, now, first sight) for every judged run measured, in the order of JUDGED."""
    rows = []
    for name, _, _, modes in JUDGED:
        for mode in modes:
            run = load(results / f"judged-{name}-{mode}.json")
            if run is None:
                continue
            first = load(PROJECT / FIRST_SIGHT[f"{name}-{mode}"]) if f"{name}-{mode}" in FIRST_SIGHT else None
            rows.append((name, mode, JudgedRow.of(run), JudgedRow.of(first) if first else None))
    return rows


def _mode(mode: str) -> str:
    return "tagged" if mode == "tagged" else "tag-blind"


def judged_rows(results: Path) -> list[tuple[str, JudgedRow, JudgedRow | None]]:
    """(label, now, first sight) for every judged run measured, in the order of JUDGED."""
    return [(f"{name.replace('-', ' ')}, {_mode(mode)}", now, first) for name, mode, now, first in judged_runs(results)]


def pooled(rows: list[JudgedRow]) -> JudgedRow:
    """Several runs as one: sums of counts, means weighted by each run's briefs (a run without a figure left out)."""
    def mean(values: list[tuple[float | None, int]]) -> float | None:
        said = [(v, n) for v, n in values if v is not None]
        return sum(v * n for v, n in said) / sum(n for _, n in said) if said else None
    return JudgedRow(mean([(r.wrong, r.briefs) for r in rows]), mean([(r.ndcg, r.briefs) for r in rows]),
                     sum(r.done_unfit for r in rows), sum(r.status_ok for r in rows), sum(r.briefs for r in rows),
                     mean([(r.shelf_size, r.briefs) for r in rows]), mean([(r.broken, r.briefs) for r in rows]))


def pooled_rows(results: Path) -> list[tuple[str, JudgedRow, JudgedRow | None]]:
    """The README's compact table: per catalog and mode, the sets tuned on and the unseen ones, each pooled over its
    briefs, the unseen ones beside their pooled first sight."""
    groups: dict[tuple[str, str, bool], list[tuple[JudgedRow, JudgedRow | None]]] = {}
    for name, mode, now, first in judged_runs(results):
        groups.setdefault((name.split("-")[0], mode, name in TUNED_ON), []).append((now, first))
    rows = []
    for (catalog, mode, tuned), runs in groups.items():
        firsts = [f for _, f in runs if f is not None]
        label = (f"{catalog}, {_mode(mode)}, {'dev (tuned on)' if tuned else 'unseen'} "
                 f"({len(runs)} set{'s' if len(runs) > 1 else ''})")
        rows.append((label, pooled([n for n, _ in runs]), None if tuned or not firsts else pooled(firsts)))
    return sorted(rows, key=lambda r: r[0])


def judged_table(results: Path) -> list[str]:
    """Now, with the first sight in brackets: wrong share of the top 10, nDCG@10, "done" under 90% fitting,
    status as expected, mean shelf size."""
    def cells(row: JudgedRow) -> list[str]:
        return [_share(row.wrong), _share(row.ndcg), _share(row.broken), str(row.done_unfit),
                f"{row.status_ok}/{row.briefs}", "-" if row.shelf_size is None else f"{row.shelf_size:.1f}"]

    rows = []
    for label, now, first in judged_rows(results):
        figures = [f"**{c}**" if i < 2 else c for i, c in enumerate(cells(now))]  # the two scores stand out
        if first:
            figures = [f"{c} ({f})" for c, f in zip(figures, cells(first))]
        rows.append([f"{label} ({now.briefs})", *figures])
    if not rows:
        return []
    return table(["set (briefs)", "wrong share of top 10", "nDCG@10", "shelved books wrong",
                  "\"done\", under 90% fitting", "status as expected", "mean shelf size"], rows)


def _counts(passed: dict[str, int], total: dict[str, int]) -> str:
    both = f"all {sum(passed.values())}/{sum(total.values())} = {sum(passed.values()) / sum(total.values()):.0%}"
    return ", ".join([f"{lang} {passed[lang]}/{total[lang]}" for lang in sorted(total, reverse=True)] + [both])


def fragments_line(results: Path) -> str | None:
    batches = []
    for index, (name, _, first_sight) in enumerate(FRAGMENT_BATCHES, start=1):
        run = load(results / f"fragments-{index}.json")
        if run is None:
            continue
        if isinstance(first_sight, str):
            first_run = load(PROJECT / first_sight)
            first = _counts(first_run["passed"], first_run["total"]) if first_run else "-"
        else:
            first = _counts({k: p for k, (p, _) in first_sight.items()}, {k: n for k, (_, n) in first_sight.items()})
        batches.append(f"{name} **{_counts(run['passed'], run['total'])}** (first sight {first})")
    if not batches:
        return None
    line = "Fresh curator fragments read right: " + "; ".join(batches) + "."
    fragment_table = load(results / "fragment-table.json")
    if fragment_table:
        tables = ", ".join(f"{name} {p}/{n}" for name, (p, n) in fragment_table["tables"].items())
        passed, total = fragment_table["probes"]
        line += f" Fragment tables: {tables}; issue 30 probes {passed}/{total}."
    return line


def briefs_line(results: Path) -> str | None:
    tagged, blind = load(results / "briefs-tagged.json"), load(results / "briefs-tag-blind.json")
    if tagged is None or blind is None:
        return None
    t, b = tagged["summary"], blind["summary"]
    return (f"The 90-brief benchmark (benchmarks/briefs/demo.yaml): status as expected {t['status as expected']} "
            f"tagged, {b['status as expected']} tag-blind; mean pass share {t['mean pass share']} / "
            f"{b['mean pass share']}.")


def speed_rows(results: Path) -> list[list[str]]:
    tried = load(results / "try.json")
    rows = [[f"`shelfwise try \"{brief}\"` (median of 3, warm)", f"{seconds:.2f} s"]
            for brief, seconds in (tried or {"seconds": {}})["seconds"].items()]
    stages = load(results / "stages.json")
    for s in (stages or {"stages": []})["stages"]:
        what = "a whole theme" if s["stage"] == "theme" else f"a theme's {s['stage']} stage"
        rows.append([f"{what}, warm, in-process (benchmarks/theme_stages.py, {stages['briefs']} briefs: p50 / p90)",
                     f"{s['p50_ms']:.0f} / {s['p90_ms']:.0f} ms"])
    for path in sorted(results.glob("beir-*.json")):
        run = load(path)
        for s in run["scores"]:
            rows.append([f"eval {run['dataset']} {s['mode']}, per query",
                         f"{1000 * s['seconds'] / max(s['queries'], 1):.0f} ms"])
    return rows


def render(results: Path = RESULTS) -> str:
    measured = load(results / "measured.json")
    lines = ["# Quality and speed", "",
             "Written by `make report` from `shelfwise eval --json`, the benchmarks' JSON and timed `shelfwise try` "
             "runs; do not edit by hand.", ""]
    if measured:
        lines += [f"Measured on {measured['at']}, commit {measured['commit']}, {measured['cores']} cores, "
                  f"load average {measured['load']} (times are wall-clock: a busy machine slows them).", ""]
    judged = judged_table(results)
    if judged:
        lines += ["## Judged briefs", "",
                  "Curators' briefs with every fitting book of the catalog graded (benchmarks/judged/README.md; "
                  "benchmarks/catalogs/README.md for the real catalogs). In brackets: the first sight, before any "
                  "change made for them (main at cbca387; the `next` sets at f20f09f, `next2` at eedd28a, `next3` "
                  "at 6b51fc3, `next4` at 17a6c7e, `next5` at 9e774a3, `next6` at 20a62a8, `next7` at b4db347, "
                  "`next8` at 5c834d2, `next9` at 0ff031f, `next10` at 11930f4 and `next11` at b211465 (5 briefs), "
                  "each written a session later). "
                  "Dev sets were tuned on; holdout and next sets never opened by whoever tuned.", "", *judged, ""]
    fragments = fragments_line(results)
    if fragments:
        lines += ["## Fragments of briefs", "", fragments, ""]
    tagged, blind = load(results / "briefs-tagged.json"), load(results / "briefs-tag-blind.json")
    if tagged and blind:
        lines += ["## Briefs read as the curator meant them", "",
                  "The shelf benchmark (benchmarks/briefs/demo.yaml) over the demo catalog, with its tags and "
                  "without them.", ""]
        lines += table(["", "tagged", "tag-blind"],
                       [[row, tagged["summary"].get(row, "-"), blind["summary"].get(row, "-")] for row in BRIEF_ROWS])
        lines.append("")
    runs = {p.stem: load(p) for p in sorted(results.glob("beir-*.json"))}
    if runs:
        limit = (measured or {}).get("beir_limit")
        lines += ["## Retrieval on labelled sets", "",
                  f"nDCG@10 / Recall@100 per mode{f' (first {limit} queries of each set)' if limit else ''}.", ""]
        modes = list(dict.fromkeys(s["mode"] for run in runs.values() for s in run["scores"]))
        rows = []
        for run in runs.values():
            score = {s["mode"]: s for s in run["scores"]}
            rows.append([f"{run['dataset']} ({run['scores'][0]['queries']} queries)"]
                        + [f"{score[m]['ndcg_at_10']:.3f} / {score[m]['recall_at_100']:.3f}" if m in score else "-"
                           for m in modes])
        lines += table(["set", *modes], rows) + [""]
    speed = speed_rows(results)
    if speed:
        lines += ["## Speed", "", *table(["what", "time"], speed), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def readme_blocks(results: Path) -> dict[str, str]:
    """The README's two generated blocks: the compact judged table with the 90-brief and fragments lines, and the
    speed rows."""
    measured = load(results / "measured.json")
    note = (f"Measured by `make report` on {measured['at']} (commit {measured['commit']}); docs/quality.md has "
            "the full tables, docs/history.md how the figures moved." if measured else
            "Written by `make report`; docs/quality.md has the full tables, docs/history.md how the figures moved.")
    quality = [note, ""]
    rows = [[label, _share(now.wrong), _share(now.ndcg), _share(now.broken), now.done_unfit,
             f"{now.status_ok}/{now.briefs}", f"{_share(first.wrong)} / {_share(first.ndcg)}" if first else "-"]
            for label, now, first in pooled_rows(results)]
    if rows:
        quality += table(["judged briefs, pooled (docs/quality.md: every set)", "wrong@10", "nDCG@10", "shelved wrong",
                          "done <90% fit", "status ok", "first sight wrong@10 / nDCG@10"], rows) + [""]
    quality += [line for line in (briefs_line(results), fragments_line(results)) if line]
    speed = speed_rows(results)
    return {"quality": "\n".join(quality).rstrip("\n"),
            "speed": "\n".join(table(["what", "time"], speed)) if speed else "Not measured yet (`make report`)."}


def replace_blocks(text: str, blocks: dict[str, str]) -> str | None:
    """The text with each `<!-- report:NAME -->` ... `<!-- /report:NAME -->` block's inside replaced; None when a
    marker is missing, out of order or doubled, so that a README without them is left alone."""
    for name, body in blocks.items():
        opening, closing = f"<!-- report:{name} -->", f"<!-- /report:{name} -->"
        lines = text.split("\n")
        starts = [i for i, line in enumerate(lines) if line.strip() == opening]
        ends = [i for i, line in enumerate(lines) if line.strip() == closing]
        if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
            return None
        text = "\n".join(lines[:starts[0] + 1] + body.split("\n") + lines[ends[0]:])
    return text


def write(path: Path, text: str) -> None:
    """Temp file and rename: never a half-written document."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a folder of BEIR-layout sets to score (default: none)")
    parser.add_argument("--limit", type=int, help="only the first N queries of each labelled set")
    parser.add_argument("--render-only", action="store_true", help="write docs/quality.md from outputs/report/")
    parser.add_argument("--readme", type=Path, help="also write the compact tables between this file's "
                        "<!-- report:quality --> and <!-- report:speed --> markers")
    args = parser.parse_args()
    if not args.render_only:
        measure(args.data, args.limit)
    target = PROJECT / "docs" / "quality.md"
    write(target, render())
    print(f"written to {target}")
    if args.readme:
        replaced = replace_blocks(args.readme.read_text(encoding="utf-8"), readme_blocks(RESULTS))
        if replaced is None:
            print(f"{args.readme}: no <!-- report:quality --> / <!-- report:speed --> markers (each once, "
                  "with its closing line); left alone")
        else:
            write(args.readme, replaced)
            print(f"written to {args.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
