"""Benchmark: how much of the full scan's top k the in-memory search's shortlist keeps.

Above SHORTLIST_MIN_ROWS books, tasks/recall/vector_search.py scores every allowed book on a 128-dimension
projection of the book vectors and only its best SHORTLIST on the full vectors. This compares its top k
with the full scan's for the query variants of judged topic queries and synthetic briefs, and times both.
Run on a built workspace:
    .venv/bin/python benchmarks/shortlist_recall.py --workspace /tmp/sw-bench-100k [--queries 40]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, default=Path("/tmp/sw-bench-100k"))
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--k", type=int, default=100)
    args = parser.parse_args()
    os.environ["SHELFWISE__WORKSPACE"] = str(args.workspace)

    import numpy as np

    from benchmarks.hybrid_100k import judged_queries
    from benchmarks.shelves_100k import synthetic_themes
    from config.settings import load_settings
    from config.vocabulary import get_vocabulary
    from storage.index_root import index_root
    from storage.index_store import open_current
    from tasks.language.embedders import create_embedder
    from tasks.model.constraints import EVERYTHING
    from tasks.recall.filters import FilterColumns
    from tasks.recall.vector_search import MemorySearch
    from tasks.understanding.expansion import expand_query

    settings = load_settings()
    snapshot = open_current(index_root(settings))
    columns = FilterColumns.build(snapshot.load_books())
    started = time.perf_counter()
    search = MemorySearch(columns, snapshot.vector_matrix())
    print(f"{len(columns):,} books; projection fitted in {time.perf_counter() - started:.1f} s")
    embedder = create_embedder(settings.embedder)
    texts = [text for _, text, _ in judged_queries(list(columns.book_ids), args.queries)]
    texts += [f"{t['theme_name']} {t.get('description', '')}"
              for t in synthetic_themes(args.queries, get_vocabulary(), random.Random(3))]
    kept, shortlist_seconds, full_seconds = [], [], []
    for text in texts:
        queries = embedder.embed_queries(expand_query(text, None).texts)
        started = time.perf_counter()
        shortlisted = search.nearest(queries, args.k, EVERYTHING).by_query
        shortlist_seconds.append(time.perf_counter() - started)
        projection, search._projection = search._projection, None  # the full scan, for the same queries
        started = time.perf_counter()
        full = search.nearest(queries, args.k, EVERYTHING).by_query
        full_seconds.append(time.perf_counter() - started)
        search._projection = projection
        kept += [len({b for b, _ in s} & {b for b, _ in f}) / max(len(f), 1) for s, f in zip(shortlisted, full)]
    print(f"{len(kept)} query vectors from {len(texts)} texts: the shortlist keeps {np.mean(kept):.2%} of the "
          f"full scan's top {args.k} (worst query {min(kept):.0%})")
    print(f"per text (all its variants): shortlist p50 {statistics.median(shortlist_seconds) * 1000:.1f} ms, "
          f"full scan p50 {statistics.median(full_seconds) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
