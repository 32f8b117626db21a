"""Benchmark: a synthetic catalog (1M books by default) built in-process and on a LocalCluster of Dask workers, and a
100-theme batch shelved both ways.

    .venv/bin/python benchmarks/scale_1m.py [--books 1000000] [--workers 2] [--themes 100] [--workspace DIR]
    .venv/bin/python benchmarks/scale_1m.py --workspace DIR --step build-local --cached   # one step again

Prints, for each build (both full: every text embedded again, no cache): the seconds of every stage, the peak RSS
of the coordinating process and of each worker, and the speed-up; then the batch's p50 per theme and its wall time
on each backend. Each build and batch runs in a process of its own (`--step`), its Prefect server started first and
timed apart. The Dask steps run the product's own LocalCluster (`compute.dask_workers`, one thread each); each
worker's peak RSS is read from /proc while it runs.

The catalog: benchmarks/build_indexes_100k.py's synthetic books (half Chinese, half English, 2-4 summary sentences
of 6-14 words from a small word list, each leaning on a topic), seeded the same, with short titles in the book's
language and 2-4 subject headings drawn as a library writes them: LCSH-style "Topic -- Place -- Period" for English
books, 主题词 "主题—地区—时代" for Chinese ones, and a reader tag.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.build_indexes_100k import peak_rss_mib, synthetic_book  # noqa: E402
from benchmarks.shelves_100k import synthetic_themes  # noqa: E402

EN_TOPICS = ("Families", "Friendship", "Islands", "Rivers", "Railroads", "Cooking", "Gardening", "Astronomy",
             "Detective and mystery stories", "Science fiction", "Love stories", "War stories", "Voyages and travels",
             "Coming of age", "Small cities", "Memory", "Winter", "Bookstores", "Mothers and daughters", "Ghost stories")
EN_PLACES = ("England", "China", "Japan", "France", "United States", "Scotland", "India", "Brazil", "Russia", "Canada")
EN_PERIODS = ("19th century", "20th century", "21st century", "1945-1989", "Early works to 1800")
ZH_TOPICS = ("家庭", "友谊", "海岛", "河流", "铁路", "烹饪", "园艺", "天文学", "侦探小说", "科学幻想小说", "爱情小说",
             "战争小说", "游记", "成长", "小城镇", "记忆", "冬天", "书店", "母女关系", "鬼怪小说")
ZH_PLACES = ("中国", "日本", "英国", "法国", "美国", "江南", "东北", "西藏", "香港", "台湾")
ZH_PERIODS = ("近代", "现代", "当代", "民国", "清代")
READER_TAGS_EN = ("book club", "classic", "bedtime", "commute", "award winner")
READER_TAGS_ZH = ("经典", "枕边书", "通勤", "获奖作品", "读书会")
STEPS = ("build-local", "build-dask", "batch-local", "batch-dask")


def scale_book(i: int, rng: random.Random, vocabulary) -> dict:
    """The 100k benchmark's i-th book, with short titles and subject headings in its language."""
    book = synthetic_book(i, rng, vocabulary)
    own = random.Random(f"scale-{i}")  # its own generator: the 100k benchmark's draws stay as they were
    if book["language"] == "zh":
        headings = [f"{own.choice(ZH_TOPICS)}—{own.choice(ZH_PLACES)}—{own.choice(ZH_PERIODS)}"
                    for _ in range(own.randint(1, 3))]
        book["subjects"] = [*headings, own.choice(READER_TAGS_ZH)]
        book["title"] = book["title"][:8]
    else:
        headings = [f"{own.choice(EN_TOPICS)} -- {own.choice(EN_PLACES)} -- {own.choice(EN_PERIODS)}"
                    for _ in range(own.randint(1, 3))]
        book["subjects"] = [*headings, own.choice(READER_TAGS_EN)]
        book["title"] = book["title"].title()
    return book


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--themes", type=int, default=100)
    parser.add_argument("--workspace", type=Path, default=None)
    parser.add_argument("--step", choices=STEPS, help="only this step, on the imported --workspace, in this process")
    parser.add_argument("--cached", action="store_true",
                        help="with --step build-*: embed only what the embedding cache lacks (after an earlier full "
                             "build filled it), to time the build's other stages apart")
    args = parser.parse_args()
    workspace = args.workspace or Path(tempfile.mkdtemp(prefix="shelfwise-scale-"))
    os.environ["SHELFWISE__WORKSPACE"] = str(workspace)
    os.environ["SHELFWISE__OUTPUTS_DIR"] = str(workspace / "outputs")
    if args.step:
        _step(args.step, args)
        return
    shutil.rmtree(workspace, ignore_errors=True)
    workspace.mkdir(parents=True)
    _import(workspace, args.books)
    for step in STEPS:
        subprocess.run([sys.executable, __file__, "--workspace", str(workspace), "--books", str(args.books),
                        "--workers", str(args.workers), "--themes", str(args.themes), "--step", step], check=True)


def _import(workspace: Path, books: int) -> None:
    from config.settings import configure_runtime_environment, load_settings
    from config.vocabulary import get_vocabulary
    from storage.catalog_db import open_catalog
    from tasks.catalog.ingest import ColumnMapping, validate_file

    settings = load_settings()
    configure_runtime_environment(settings)
    vocabulary, rng, source = get_vocabulary(), random.Random(20261122), workspace / "synthetic.jsonl"
    start = time.perf_counter()
    with open(source, "w", encoding="utf-8") as fh:
        for i in range(books):
            fh.write(json.dumps(scale_book(i, rng, vocabulary), ensure_ascii=False) + "\n")
    generated = time.perf_counter() - start
    start = time.perf_counter()
    rows = validate_file(source, ColumnMapping(), vocabulary)
    with open_catalog(settings.duckdb_path) as db:
        counts = db.import_books(rows.books, rows.rejected, str(source))
    print(f"books: {books:,} (generated in {generated:.1f} s), imported in {time.perf_counter() - start:.1f} s: "
          f"{counts.inserted:,} inserted, {counts.rejected} rejected; workspace {workspace}", flush=True)


def _step(step: str, args: argparse.Namespace) -> None:
    from config.settings import configure_runtime_environment, load_settings

    if step.endswith("dask"):  # the product's own LocalCluster (compute.dask_workers), as `--compute dask` runs it
        os.environ["SHELFWISE__COMPUTE__DASK_WORKERS"] = str(args.workers)
    configure_runtime_environment(load_settings())
    from flows.prefect_api import flow_api

    start = time.perf_counter()
    with flow_api(load_settings()):
        print(f"\n== {step} ({args.books:,} books; Prefect server up in {time.perf_counter() - start:.1f} s, "
              "not counted)", flush=True)
        workers = WorkerPeaks()
        workers.start()
        try:
            _run(step, args, step.split("-")[1])
        finally:
            workers.stop()
    if workers.peaks:
        print("  peak RSS per worker process: " + ", ".join(f"{v:,.0f} MiB" for v in workers.peaks.values()))
    print(f"  peak RSS of the coordinating process: {peak_rss_mib():,.0f} MiB", flush=True)


class WorkerPeaks(threading.Thread):
    """The peak RSS (VmHWM) of each Dask worker process this process starts, read every half second while it runs:
    a worker's own peak, which it loses when the cluster stops."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peaks: dict[int, float] = {}
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(0.5):
            for pid in _descendants(os.getpid()):
                try:
                    if b"spawn_main" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                        continue  # the Prefect server, multiprocessing's resource tracker
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue  # ended meanwhile
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        self.peaks[pid] = max(self.peaks.get(pid, 0.0), int(line.split()[1]) / 1024)

    def stop(self) -> None:
        self._done.set()
        self.join()


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            found += [child, *_descendants(child)]
    return found


def _run(step: str, args: argparse.Namespace, compute: str) -> None:
    if step.startswith("build"):
        from flows.build_indexes import build_indexes

        start = time.perf_counter()
        report = build_indexes(full=not args.cached, compute=compute)
        total = time.perf_counter() - start
        print(f"  {'build from the cache' if args.cached else 'full build'}: {total:,.1f} s; "
              f"{report.sentence_count:,} sentences, "
              f"{report.sentences_embedded:,} and {report.books_embedded:,} head-line texts embedded, "
              f"{report.books_tokenized:,} books tokenized", flush=True)
        for stage, seconds in report.stage_seconds.items():
            print(f"  {stage:<16} {seconds:10.2f} s")
        if report.sentences_embedded:
            print(f"  sentences embedded per second: "
                  f"{report.sentences_embedded / report.stage_seconds['embed_sentences']:,.0f}")
        return
    from config.vocabulary import get_vocabulary
    from flows.generate_shelves import ThemeBrief, generate_shelves

    themes = [ThemeBrief(**t) for t in synthetic_themes(args.themes, get_vocabulary(), random.Random(7))]
    start = time.perf_counter()
    # one batch for both backends: the second run is a rerun, which sees the history the first saw
    result = generate_shelves(f"scale-{args.themes}", themes, compute=compute)
    total = time.perf_counter() - start
    per_theme = [sum(v for k, v in stages.items() if "." not in k) for stages in result.stage_seconds.values()]
    print(f"  batch of {len(per_theme)} themes: {total:,.1f} s wall (context loads, Prefect runs, Excel); per theme "
          f"p50 {statistics.median(per_theme):.3f} s, p95 {statistics.quantiles(per_theme, n=20)[18]:.3f} s; "
          f"{len(result.errors)} failed", flush=True)


if __name__ == "__main__":
    main()
