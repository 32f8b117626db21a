"""Property 9 with the real model: embedding in one batch equals embedding one by one."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

texts = st.lists(st.one_of(st.sampled_from(["雨夜里的孤独", "quiet novels for a rainy night", "科幻小说", "", " ",
                                            "鲁迅作品专题", "books like Stoner"]),
                           st.text(max_size=30)), min_size=1, max_size=6)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=texts)
def test_a_batch_embeds_like_its_texts_one_by_one(embedder, batch):
    together = embedder.embed_documents(batch)
    alone = np.vstack([embedder.embed_documents([t]) for t in batch])
    assert together.shape == (len(batch), embedder.dim)
    np.testing.assert_allclose(together, alone, atol=1e-5)
    # queries go through the cache: a variant embedded with others equals the variant alone
    np.testing.assert_allclose(embedder.embed_queries(batch), embedder.embed_queries(batch[::-1])[::-1], atol=1e-6)


def test_a_full_query_cache_never_loses_the_texts_of_the_call_that_fills_it(embedder, monkeypatch):
    monkeypatch.setattr(embedder, "QUERY_CACHE_SIZE", 3)
    texts = ["雨夜", "孤独的城市", "quiet novels", "海岛"]
    expected = embedder.embed_documents(texts)
    embedder.embed_queries(texts[:3])  # the cache is full
    # one cached text and one new one: the new one clears the cache, the cached one must survive the call
    np.testing.assert_allclose(embedder.embed_queries([texts[2], texts[3]]), expected[2:], atol=1e-5)
    np.testing.assert_allclose(embedder.embed_queries(texts), expected, atol=1e-5)
