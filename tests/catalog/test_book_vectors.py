"""Book vectors composed from the head line and the summary sentences, with the real model and a real DuckDB."""

import numpy as np

from config.settings import load_settings
from storage.catalog_db import open_catalog
from tasks.catalog.index_build import CarryOver, embed_books, embed_sentences, split_sentences
from tasks.catalog.index_text import compose_index_text, head_parts
from tasks.language.embedders import normalize
from tasks.model.books import BookRecord


class Recorder:
    """A sentence sink keeping what it is given."""

    def __init__(self):
        self.written: dict[int, np.ndarray] = {}

    def write(self, rows, vectors):
        self.written.update(zip(rows.tolist(), vectors))

    def copy(self, source, runs):
        raise AssertionError(f"nothing is carried, yet {runs} were copied from {source}")


BOOKS = [
    BookRecord("b1", "边城", authors=("沈从文",), language="zh", summary="湘西小镇茶峒。翠翠和爷爷守着渡船。",
               tags={"emotional_tone": ("忧伤怅惘",)}, tag_origin="source"),
    BookRecord("b2", "North of Boston", authors=("Robert Frost",), language="en",
               author_intro="An American poet of rural New England."),
    BookRecord("b3", "Stoner", authors=("John Williams",), language="en",
               summary="A farm boy becomes a professor. His quiet life is full of small defeats."),
]


def test_a_book_vector_blends_its_head_line_with_its_sentences_and_a_book_without_a_summary_embeds_its_text(
        tmp_path, embedder, vocabulary):
    settings = load_settings(index={"summary_weight": 0.6})
    recorder, nothing = Recorder(), CarryOver.none(len(BOOKS))
    sentences = split_sentences(BOOKS)
    assert sentences.owners.tolist() == [0, 0, 2, 2]
    with open_catalog(tmp_path / "catalog.duckdb") as db:
        means = embed_sentences(BOOKS, sentences, nothing, embedder, db, recorder)
        vectors = embed_books(BOOKS, means, nothing, vocabulary, embedder, db, settings)
        again = embed_books(BOOKS, means, nothing, vocabulary, embedder, db, settings)
    written = recorder.written
    # b1: its tag and its title line; b2: its index text; b3: its title line
    assert sorted(written) == [0, 1, 2, 3] and vectors.embedded == 4 and again.embedded == 0

    sentence_vectors = embedder.embed_documents(sentences.texts)
    np.testing.assert_allclose(np.vstack([written[r] for r in range(4)]), sentence_vectors, atol=1e-6)
    assert head_parts(BOOKS[0], vocabulary, settings.index.head_sections) == [(1.0, ["忧伤怅惘"]), (1.0, ["边城 — 沈从文"])]
    tag, title, stoner = embedder.embed_documents(["忧伤怅惘", "边城 — 沈从文", "Stoner — John Williams"])
    for book, rows, head in ((0, [0, 1], tag + title), (2, [2, 3], stoner)):
        summary = normalize(sentence_vectors[rows].mean(axis=0, keepdims=True))
        expected = normalize(0.4 * normalize(head[None, :]) + 0.6 * summary)[0]
        np.testing.assert_allclose(vectors.vectors[book], expected, atol=1e-5)
    no_summary = embedder.embed_documents([compose_index_text(BOOKS[1], vocabulary, settings.index.text_sections)])
    assert "rural New England" in compose_index_text(BOOKS[1], vocabulary, settings.index.text_sections)
    np.testing.assert_allclose(vectors.vectors[1], no_summary[0], atol=1e-6)
    assert not means.has_sentences[1] and np.allclose(means.means[1], 0)


def test_a_changed_class_range_or_name_mark_file_rebuilds_the_index(tmp_path, monkeypatch):
    """The literature facet and the class subjects are read from config/class_ranges.yaml and config/names.yaml: a
    version built before they changed is not "up to date with the catalog"."""
    from config.class_ranges import CLASS_RANGES_FILE
    from config.vocabulary import get_vocabulary
    from tasks.catalog import index_build
    from tasks.catalog.names import NAMES_FILE

    class Model:
        model_id = "m"

    settings, vocabulary = load_settings(), get_vocabulary()
    crosswalk = tmp_path / "crosswalk.yaml"
    crosswalk.write_text("terms: []\n")
    before = index_build.inputs_hash(Model(), settings, vocabulary, crosswalk)
    for name, original in (("CLASS_RANGES_FILE", CLASS_RANGES_FILE), ("NAMES_FILE", NAMES_FILE)):
        changed = tmp_path / original.name
        changed.write_bytes(original.read_bytes() + b"\n# a new literature\n")
        with monkeypatch.context() as patch:
            patch.setattr(index_build, name, changed)
            assert index_build.inputs_hash(Model(), settings, vocabulary, crosswalk) != before, name
    assert index_build.inputs_hash(Model(), settings, vocabulary, crosswalk) == before
