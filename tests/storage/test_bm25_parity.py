"""bm25s (the fast default) must rank exactly like rank-bm25 (the reference) on real text."""

import json
from collections import Counter

import numpy as np

from config.settings import BM25Settings
from storage.bm25_index import BM25Index
from tasks.language.text_analysis import tokenize
from tests.conftest import shared_data


def load_sample(n_docs=1000, n_queries=100):
    with open(shared_data("scifact/corpus.jsonl"), encoding="utf-8") as fh:
        docs = [json.loads(line) for _, line in zip(range(n_docs), fh)]
    with open(shared_data("scifact/queries.jsonl"), encoding="utf-8") as fh:
        queries = [json.loads(line)["text"] for _, line in zip(range(n_queries), fh)]
    return docs, queries


def test_bm25s_ranks_exactly_like_rank_bm25_on_1000_documents():
    docs, queries = load_sample()
    ids = [d["_id"] for d in docs]
    tokens = [tokenize(f"{d['title']} {d['text']}", "en") for d in docs]
    fast = BM25Index.build(ids, tokens, BM25Settings(backend="bm25s", method="atire", k1=1.5, b=0.75))
    reference = BM25Index.build(ids, tokens, BM25Settings(backend="rank_bm25", k1=1.5, b=0.75))
    # rank-bm25 floors the idf of terms found in more than half the documents: leave those out.
    doc_freq = Counter(t for doc in tokens for t in set(doc))
    compared = 0
    for query in queries:
        q = [t for t in tokenize(query, "en") if doc_freq[t] <= len(docs) / 2]
        if not any(doc_freq[t] for t in q):
            continue
        compared += 1
        np.testing.assert_allclose(fast.scores(q), reference.scores(q), rtol=1e-4, atol=1e-5)
        assert [b for b, _ in fast.search(q, 10)] == [b for b, _ in reference.search(q, 10)]
        assert fast.best_cover(q) == reference.best_cover(q)  # the same books hold the same tokens
    assert compared >= 90
