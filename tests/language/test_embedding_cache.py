"""The embedding cache in a real DuckDB file, with the real model, read and filled chunk by chunk."""

import numpy as np

from storage.catalog_db import open_catalog
from tasks.language import embedding
from tasks.language.embedding import embed_with_cache

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


def _pool_bytes(db) -> int:
    return db.conn.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchall()[0][0]


def test_a_scan_of_the_cache_gives_duckdbs_buffer_pool_back(tmp_path):
    vectors = np.random.default_rng(7).random((40_000, 512), dtype=np.float32)  # 80 MB
    hashes = [f"text-{i}" for i in range(len(vectors))]
    with open_catalog(tmp_path / "cache.duckdb") as db:
        for start in range(0, len(hashes), 8_000):
            db.store_vectors("model", hashes[start:start + 8_000], vectors[start:start + 8_000])
        db.conn.execute("CHECKPOINT")
        db.release_buffers()
        baseline = _pool_bytes(db)
        # a plain read leaves its blocks in the pool (read as Arrow: 20M floats made Python objects cost 3.5 s of CPU)
        db.conn.sql("SELECT vector FROM embedding_cache").to_arrow_table()
        assert _pool_bytes(db) > baseline + 16 * 2**20
        rows = np.concatenate([r for r, _ in db.stream_cached_vectors("model", hashes)])
        assert sorted(rows.tolist()) == list(range(len(hashes)))
        assert _pool_bytes(db) < baseline + 4 * 2**20  # the build's scan gave them back
        limit = db.conn.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        assert float(limit.split()[0]) > 400  # and the cap is back for the next query


def test_stored_tokens_are_replaced_and_books_gone_from_the_catalog_forgotten(tmp_path):
    with open_catalog(tmp_path / "cache.duckdb") as db:
        db.store_tokens({"a": ("k1", ["雨", "夜"]), "b": ("k1", ["sea"]), "c": ("k1", ["star"])}, {"a", "b", "c"})
        # a full rebuild stores every book's tokens again: each replaced, none twice (an upsert of 100k books'
        # token lists had run out of memory)
        db.store_tokens({"a": ("k2", ["雨"]), "b": ("k2", ["sea", "island"])}, {"a", "b"})
        assert db.cached_tokens() == {"a": ("k2", ["雨"]), "b": ("k2", ["sea", "island"])}
        assert db.conn.execute("SELECT count(*) FROM bm25_tokens").fetchall()[0][0] == 2
