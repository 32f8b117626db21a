"""The embedding cache in a real DuckDB file, with the real model, read and filled chunk by chunk."""

import numpy as np

from storage.catalog_db import open_catalog
from tasks.catalog import embedding
from tasks.catalog.embedding import embed_with_cache

TEXTS = ["雨夜里的孤独", "quiet novels", "雨夜里的孤独", "科幻小说", "a lighthouse", "quiet novels", "海岛"]


def test_cached_vectors_come_back_in_order_and_are_computed_once(tmp_path, embedder, monkeypatch):
    monkeypatch.setattr(embedding, "CHUNK_TEXTS", 2)  # several chunks, duplicates across them
    expected = embedder.embed_documents(TEXTS)
    with open_catalog(tmp_path / "cache.duckdb") as db:
        first = embed_with_cache(TEXTS, embedder, db, "test")
        assert first.computed == len(set(TEXTS))
        np.testing.assert_allclose(first.vectors, expected, atol=1e-6)
    with open_catalog(tmp_path / "cache.duckdb") as db:  # reopened: the cache is on disk
        again = embed_with_cache(TEXTS[::-1], embedder, db, "test")
        assert again.computed == 0
        np.testing.assert_allclose(again.vectors, expected[::-1], atol=1e-6)
        partly = embed_with_cache(["海岛", "一个新句子"], embedder, db, "test")
        assert partly.computed == 1
        np.testing.assert_allclose(partly.vectors, embedder.embed_documents(["海岛", "一个新句子"]), atol=1e-6)


def test_the_catalog_caps_duckdbs_buffer_pool_for_writers_and_readers(tmp_path):
    # by default the pool keeps every cached vector a build reads, up to 80% of the machine's memory
    path = tmp_path / "cache.duckdb"
    for read_only in (False, True):
        with open_catalog(path, read_only=read_only) as db:
            limit = db.conn.execute("SELECT current_setting('memory_limit')").fetchone()[0]
            assert limit.endswith("MiB") and float(limit.split()[0]) <= 512
