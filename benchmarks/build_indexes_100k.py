"""Benchmark: import a synthetic catalog (100k books by default) and build its indexes.

Prints the time of every stage and the peak memory (RSS) of the build's process after it. Run:
    .venv/bin/python benchmarks/build_indexes_100k.py [--books 100000] [--workspace /tmp/sw-bench]
A second, incremental build after editing 1% of the books is timed too. Each build runs in a process of its
own, as `shelfwise index build` does; `--build full|incremental` reruns one of them on the imported workspace.

The catalog: half Chinese, half English books, 2-4 summary sentences of 6-14 words each drawn from a
small word list. Each book also leans on a topic, a pair of its language's words that replace a quarter
of its summary's words; the topics are what benchmarks/hybrid_100k.py's judged queries ask for. They are
drawn from their own generator, so every other draw is the one earlier runs of this benchmark made.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ZH_WORDS = ("山 河 雨 夜 城市 故乡 孤独 时间 记忆 宇宙 星空 海 岛 少年 母亲 父亲 战争 和平 爱情 梦 "
            "小镇 火车 旅行 冬天 春天 书店 灯 窗 风 雪 森林 草原 沙漠 渡口 老人 孩子 秘密 信 歌").split()
EN_WORDS = ("river night rain city home lonely time memory universe stars sea island boy mother father war "
            "peace love dream town train journey winter spring bookshop lamp window wind snow forest prairie "
            "desert ferry old child secret letter song garden mountain kitchen harbour").split()


TOPICS_PER_LANGUAGE = 500
TOPIC_SHARE = 0.25  # of a summary's words replaced by its topic's two words


@lru_cache(maxsize=2)
def topics(language: str) -> list[tuple[str, str]]:
    """The language's topics: pairs of its words, the same on every run."""
    words = ZH_WORDS if language == "zh" else EN_WORDS
    return random.Random(f"topics-{language}").sample(list(itertools.combinations(words, 2)), TOPICS_PER_LANGUAGE)


def book_topic(i: int) -> tuple[str, int]:
    """(language, topic number) of the i-th synthetic book."""
    return ("zh" if i % 2 == 0 else "en"), (i // 2 * 7919) % TOPICS_PER_LANGUAGE


def synthetic_book(i: int, rng: random.Random, vocabulary) -> dict:
    zh = i % 2 == 0
    words = ZH_WORDS if zh else EN_WORDS
    join = "" if zh else " "
    end = "。" if zh else "."
    language, topic = book_topic(i)
    pair = topics(language)[topic]
    lean = random.Random(i)  # its own generator: `rng` draws what it drew before topics existed

    def sentence() -> str:
        drawn = rng.choices(words, k=rng.randint(6, 14))
        return join.join(lean.choice(pair) if lean.random() < TOPIC_SHARE else w for w in drawn) + end

    sentences = [sentence() for _ in range(rng.randint(2, 4))]
    if not zh:
        sentences = [s.capitalize() for s in sentences]
    tags = {}
    if rng.random() < 0.9:  # a tenth of the books arrive untagged and go through enrichment
        for dim in vocabulary.dimensions:
            tags[dim.name] = [v.name for v in rng.sample(dim.values, k=rng.randint(1, 2))]
    return {
        "book_id": f"syn-{i:06d}",
        "title": join.join(rng.choices(words, k=rng.randint(1, 4))),
        "authors": [f"Author {rng.randint(1, 20000)}"],
        "pub_year": rng.randint(1900, 2025),
        "language": "zh" if zh else "en",
        "summary": join.join(sentences),
        "pages": rng.randint(80, 900),
        "copies_available": rng.randint(0, 5),
        "tags": tags,
    }


BUILDS = {"full": "full build", "incremental": "incremental build (1% edited)"}


def peak_rss_mib() -> float:
    """This process's peak RSS: VmHWM, which starts afresh in a new program (Linux's ru_maxrss would carry
    the parent's peak over into the child, the import's into the build)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--books", type=int, default=100_000)
    parser.add_argument("--workspace", type=Path, default=None)
    parser.add_argument("--build", choices=BUILDS,
                        help="only this build of the imported --workspace, in this process (`incremental` edits 1%% "
                             "of the books first)")
    args = parser.parse_args()

    workspace = args.workspace or Path(tempfile.mkdtemp(prefix="shelfwise-bench-"))
    if args.build and not (workspace / "shelfwise.duckdb").exists():
        parser.error(f"--build needs an imported workspace; {workspace} has none")
    if not args.build:
        shutil.rmtree(workspace, ignore_errors=True)
    os.environ["SHELFWISE__WORKSPACE"] = str(workspace)
    from config.settings import configure_runtime_environment, load_settings

    settings = load_settings()
    configure_runtime_environment(settings)
    from config.vocabulary import get_vocabulary
    from storage.catalog_db import open_catalog
    from tasks.catalog.ingest import ColumnMapping, validate_file

    if args.build:
        _build_and_report(BUILDS[args.build], settings)
        return
    vocabulary = get_vocabulary()
    rng = random.Random(20261122)
    source = workspace / "synthetic.jsonl"
    workspace.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with open(source, "w", encoding="utf-8") as fh:
        for i in range(args.books):
            fh.write(json.dumps(synthetic_book(i, rng, vocabulary), ensure_ascii=False) + "\n")
    print(f"books: {args.books:,}  workspace: {workspace}")
    print(f"generate catalog file: {time.perf_counter() - t0:8.1f} s")

    t0 = time.perf_counter()
    rows = validate_file(source, ColumnMapping(), vocabulary)
    t_validate = time.perf_counter() - t0
    with open_catalog(settings.duckdb_path) as db:
        t0 = time.perf_counter()
        counts = db.import_books(rows.books, rows.rejected, str(source))
        t_upsert = time.perf_counter() - t0
    print(f"import: validate {t_validate:8.1f} s, upsert {t_upsert:8.1f} s "
          f"({counts.inserted:,} inserted, {counts.rejected} rejected); peak RSS {peak_rss_mib():,.0f} MiB")
    del rows
    # Each build in a process of its own, as `shelfwise index build` runs: its peak RSS is its own, not the import's.
    for build in BUILDS:
        subprocess.run([sys.executable, __file__, "--workspace", str(workspace), "--build", build], check=True)
    size = sum(f.stat().st_size for f in workspace.rglob("*") if f.is_file()) / 2**20
    print(f"\nworkspace on disk: {size:,.0f} MiB")


class StagePeaks(logging.Handler):
    """The process's peak RSS as each build stage logs its end."""

    def __init__(self):
        super().__init__()
        self.peaks: dict[str, float] = {}

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("stage "):
            self.peaks[message.split()[1].rstrip(":")] = peak_rss_mib()


def _build_and_report(label: str, settings) -> None:
    from flows.build_indexes import build_indexes
    from storage.catalog_db import open_catalog
    from tasks.progress import logger

    peaks = StagePeaks()
    logger.addHandler(peaks)
    if label.startswith("incremental"):
        with open_catalog(settings.duckdb_path) as db:
            db.conn.execute("UPDATE books SET summary = summary || ' Revised.', content_hash = md5(content_hash) "
                            "WHERE hash(book_id) % 100 = 0")
    t0 = time.perf_counter()
    report = build_indexes(full=label.startswith("full"))
    total = time.perf_counter() - t0
    print(f"\n{label}: {total:,.1f} s total (including Prefect's temporary server)")
    print(f"  books {report.book_count:,}, sentences {report.sentence_count:,}, embedded books "
          f"{report.books_embedded:,}, embedded sentences {report.sentences_embedded:,}, "
          f"tagged {report.books_enriched:,}, tokenized {report.books_tokenized:,}")
    print(f"  {'stage':<16} {'seconds':>10} {'peak RSS after':>16}")
    for stage, seconds in report.stage_seconds.items():
        print(f"  {stage:<16} {seconds:10.2f} {peaks.peaks.get(stage, 0):13,.0f} MiB")
    print(f"  peak RSS of the build process  {peak_rss_mib():10,.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
