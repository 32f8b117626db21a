"""Benchmark: how much of the exact nearest-neighbour list the IVF_FLAT index returns, and how fast.

Above `index.brute_force_max_rows` books the `books` table gets an IVF_FLAT index searched with
NPROBES partitions. This compares its top-k with exact search (NumPy over every vector) for theme-like
queries, with and without a prefilter, at several nprobes. Run on a built workspace:
    .venv/bin/python benchmarks/ivf_recall.py --workspace /tmp/sw-bench-100k [--queries 100]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, default=Path("/tmp/sw-bench-100k"))
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=100)
    args = parser.parse_args()
    os.environ["SHELFWISE__WORKSPACE"] = str(args.workspace)
    from benchmarks.shelves_100k import synthetic_themes
    from config.settings import load_settings
    from config.vocabulary import get_vocabulary
    from storage.catalog_db import open_catalog
    from storage.index_store import NPROBES, open_index
    from tasks.language.embedders import create_embedder

    settings = load_settings()
    with open_catalog(settings.duckdb_path) as db:
        version = db.current_index_version()
    if version is None:
        parser.error(f"{args.workspace} has no built index")
    snapshot = open_index(version.version_id, Path(version.path))
    indices = snapshot.books.list_indices()
    print(f"index {version.version_id}: {version.book_count:,} books; vector index: "
          f"{[i for i in indices if 'vector' in str(i)] or 'none (brute force)'}")
    themes = synthetic_themes(args.queries, get_vocabulary(), random.Random(11))
    queries = create_embedder(settings.embedder).embed_queries([t["theme_name"] + " " + t["description"]
                                                                for t in themes])
    for where in (None, "pub_year >= 1980"):
        ids, vectors = snapshot.all_book_vectors(where)
        if len(ids) < args.k:
            print(f"filter {where}: only {len(ids)} books pass, skipped")
            continue
        for nprobes in sorted({4, NPROBES, 32, 64}):
            recalls, seconds = [], []
            for query in queries:
                exact = {ids[i] for i in np.argsort(-(vectors @ query))[: args.k]}
                start = time.perf_counter()
                found = snapshot.vector_search(query, args.k, where, nprobes=nprobes)
                seconds.append(time.perf_counter() - start)
                recalls.append(len(exact & {b for b, _ in found}) / args.k)
            print(f"filter {where or 'none':<17} nprobes {nprobes:>3}: recall@{args.k} mean "
                  f"{statistics.mean(recalls):.3f}, min {min(recalls):.2f}; search p50 "
                  f"{statistics.median(seconds) * 1000:.1f} ms ({len(ids):,} books pass the filter)")


if __name__ == "__main__":
    main()
