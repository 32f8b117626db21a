"""Benchmark: our hybrid recall + fusion against LanceDB's own hybrid search, on the same synthetic catalog.

Judged queries come from the catalog generator of benchmarks/build_indexes_100k.py: every book leans on
a topic, a pair of words of its language that replace a quarter of its summary's words. A query is a
topic's two words; the books relevant to it are the books of that topic (about 100 at 100k books,
found by the same function that generated them, so no judgement is made by either system).

Both systems get the same book vectors (ours searched in memory, tasks/recall/vector_search.py; LanceDB's
table IVF_FLAT-indexed with our partitions and nprobes where our `books` table has that index) and the same
terms: LanceDB's full-text index is built over our BM25 tokens of each book,
split on whitespace with no further analysis, and queried with our tokens of the query. LanceDB then
fuses its full-text and vector top 100 by RRF (k 60, its default); ours runs the `hybrid` mode of
`shelfwise eval` (both paths, query expansion, min-max fusion with each book's best sentence).
Each side embeds its own query vectors inside its timing, and answers a query of each language untimed first
(its files and tokenizers open on first use). Run on a built workspace:
    .venv/bin/python benchmarks/hybrid_100k.py --workspace /tmp/sw-bench-100k [--queries 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TOP_K = 100


def judged_queries(book_ids: list[str], count: int) -> list[tuple[str, str, set[str]]]:
    """(language, query text, relevant book ids) for `count` topics, half of them Chinese."""
    from benchmarks.build_indexes_100k import book_topic, topics

    members: dict[tuple[str, int], set[str]] = {}
    for book_id in book_ids:
        members.setdefault(book_topic(int(book_id.removeprefix("syn-"))), set()).add(book_id)
    queries = []
    for n in range(count):
        language, topic = ("zh" if n % 2 == 0 else "en"), n // 2 * 7 % len(topics("zh"))
        words = topics(language)[topic]
        queries.append((language, " ".join(words), members.get((language, topic), set())))
    return queries


def lance_hybrid_table(snapshot, books, bm25_settings, workspace: Path):
    """Our book ids and vectors with a text column of our BM25 tokens, full-text and IVF indexed (built once)."""
    import numpy as np
    import pyarrow as pa

    from storage.index_store import ROWS_PER_PARTITION, _vector_array
    from storage.lance import lancedb
    from tasks.catalog.index_text import bm25_document_tokens

    db = lancedb.connect(str(workspace / "lance-hybrid"))
    name = f"books_{snapshot.version_id}"
    if name in db.list_tables().tables:
        return db.open_table(name)
    ids, vectors = snapshot.all_book_vectors()
    by_id = {b.book_id: b for b in books}
    text = [" ".join(bm25_document_tokens(by_id[b], bm25_settings.field_weights, bm25_settings.english_stemming))
            for b in ids]
    table = db.create_table(name, data=pa.table({"book_id": ids, "text": text,
                                                 "vector": _vector_array(np.asarray(vectors))}))
    table.create_fts_index("text", base_tokenizer="whitespace", lower_case=False, stem=False,
                           remove_stop_words=False, ascii_folding=False)
    if any(i.index_type == "IvfFlat" for i in snapshot.books.list_indices()):  # as ours, when ours has one
        from lancedb.index import IvfFlat

        table.create_index("vector", config=IvfFlat(distance_type="cosine",
                                                    num_partitions=max(2, len(ids) // ROWS_PER_PARTITION)))
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, default=Path("/tmp/sw-bench-100k"))
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    os.environ["SHELFWISE__WORKSPACE"] = str(args.workspace)
    os.environ.setdefault("LANCE_LOG", "error")  # not a deprecation warning per hybrid query

    from config.settings import load_settings
    from config.vocabulary import get_vocabulary
    from storage.index_store import NPROBES
    from tasks.evaluation.metrics import ndcg_at
    from tasks.evaluation.variants import MODES
    from tasks.language.text_analysis import bm25_tokens
    from tasks.model.constraints import hard_constraints
    from tasks.model.query import ThemeQuery
    from tasks.model.stages import Understood
    from tasks.model.themes import Theme
    from tasks.ranking.rank import rank
    from tasks.recall.recall import recall
    from tasks.shelving import build_context

    settings = load_settings()
    ctx = build_context(settings, get_vocabulary(), available_only=False)
    hybrid = MODES["hybrid"]
    ctx = ctx.choosing(hybrid.settings(settings), hybrid.switches)
    queries = judged_queries(list(ctx.recall.books), args.queries)
    start = time.perf_counter()
    table = lance_hybrid_table(ctx.recall.snapshot, ctx.recall.books.values(), settings.bm25, args.workspace)
    print(f"{len(ctx.recall.books):,} books, {len(queries)} judged queries (about "
          f"{statistics.mean(len(q[2]) for q in queries):.0f} relevant books each); "
          f"LanceDB comparison table ready in {time.perf_counter() - start:.1f} s")
    from lancedb.rerankers import RRFReranker

    reranker = RRFReranker()
    results: dict[str, tuple[list[float], list[float]]] = {"ours": ([], []), "lancedb": ([], [])}
    def ours(n: int, language: str, text: str) -> list[str]:
        query = ThemeQuery((), (text,), text, 1.0, "bench", language)
        understood = Understood(Theme("bench", f"q{n}", text), query, hard_constraints((), (), False))
        return list(rank(recall(understood, ctx.recall), understood, ctx.ranking).ranked)

    def lancedb(language: str, text: str) -> list[str]:
        vector = ctx.recall.embedder.embed_queries([text])[0]
        terms = " ".join(bm25_tokens(text, language, ctx.recall.snapshot.bm25.settings.english_stemming))
        found = (table.search(query_type="hybrid", vector_column_name="vector", fts_columns="text")
                 .vector(vector).text(terms).distance_type("cosine").nprobes(NPROBES).rerank(reranker)
                 .select(["book_id"]).limit(TOP_K).to_arrow())
        return found.column("book_id").to_pylist()

    # A query of each language, untimed: both sides open their files, indexes and tokenizers on first use.
    for language, text, _ in queries[-2:]:
        ours(-1, language, text)
        lancedb(language, text)
    for n, (language, text, relevant) in enumerate(queries):
        judged = dict.fromkeys(relevant, 1)
        started = time.perf_counter()
        ranked = ours(n, language, text)
        results["ours"][0].append(time.perf_counter() - started)
        results["ours"][1].append(ndcg_at(ranked, judged, 10))
        started = time.perf_counter()
        found = lancedb(language, text)
        results["lancedb"][0].append(time.perf_counter() - started)
        results["lancedb"][1].append(ndcg_at(found, judged, 10))
    print(f"{'system':<10} {'queries/s':>10} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'nDCG@10':>8}")
    for system, (seconds, ndcg) in results.items():
        p95 = statistics.quantiles(seconds, n=20)[-1]
        print(f"{system:<10} {len(seconds) / sum(seconds):10.1f} {statistics.median(seconds) * 1000:8.1f} "
              f"{p95 * 1000:8.1f} {max(seconds) * 1000:8.1f} {statistics.mean(ndcg):8.4f}")


if __name__ == "__main__":
    main()
