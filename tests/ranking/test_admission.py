"""The admission per catalog kind: what a catalog's records give to read, and what a book's probability stands on."""

import pytest

from tasks.model.books import BookRecord
from tasks.model.query import Candidate
from tasks.ranking.relevance import (
    HEADED,
    HEADING,
    HEADING_WORD,
    MEANT,
    SUMMARISED,
    TAGGED,
    UNFILED,
    WORDS,
    Admission,
    Evidence,
    admitted,
    evidence_kind,
    read_admission,
    standing,
)


def test_a_catalog_is_read_by_the_evidence_its_records_give():
    tagged = [BookRecord(f"t{i}", "T", tag_origin="source", subjects=("Sea stories",)) for i in range(3)]
    headed = [BookRecord(f"h{i}", "H", subjects=("Pirates -- Fiction",)) for i in range(2)]
    classed = [BookRecord("c", "C", classification=("lcc:PR6059",))]
    bare = [BookRecord(f"b{i}", "B", summary="A voyage.") for i in range(3)]
    assert evidence_kind(tagged + bare[:2]) == TAGGED  # the source's tags first, headings or not
    assert evidence_kind(headed + classed + bare) == HEADED  # half of the books filed by heading or class
    assert evidence_kind(headed + bare) == SUMMARISED  # fewer than half: the text is what there is
    assert evidence_kind([]) == SUMMARISED


def test_a_heading_carrying_the_topic_is_told_from_one_stray_word_of_a_heading():
    # a subject the brief's topic matched by its words, or headings holding most of the brief: the topic
    assert standing(Evidence(subject_lexical=1.0, heading=0.1), 0.5) == HEADING
    assert standing(Evidence(heading=0.6), 0.5) == HEADING
    # 'French' of "French literature -- History and criticism" on a French Revolution shelf
    assert standing(Evidence(heading=0.2, cover=0.4), 0.5) == HEADING_WORD
    # a subject the topic met by meaning alone, saying none of the brief's words
    assert standing(Evidence(subject_preferred=0.8, cover=0.4), 0.5) == MEANT
    # the brief's words in the text: where the catalog files the topic under subjects the book lacks, apart
    assert standing(Evidence(cover=0.4), 0.5) == WORDS
    assert standing(Evidence(cover=0.4, unfiled=True), 0.5) == UNFILED


def test_each_catalog_kind_reads_its_own_admission(tmp_path):
    path = tmp_path / "relevance.yaml"
    path.write_text("admission:\n  kinds:\n    headed:\n      floors:\n        unfiled words: 0.7\n"
                    "    tagged:\n      supports:\n        said full: 0.3\n", encoding="utf-8")
    headed, tagged, summarised = (read_admission(path, k) for k in (HEADED, TAGGED, SUMMARISED))
    assert headed == Admission({UNFILED: 0.7}, {}) and tagged == Admission({}, {"said full": 0.3})
    assert summarised == Admission()  # a kind nothing was fitted for: the shelf's floor alone
    stray, written = Evidence(cover=0.4, unfiled=True), Evidence(cover=0.4)
    books = [Candidate("stray", relevance=0.6), Candidate("written", relevance=0.6)]
    assert [c.book_id for c in admitted(books, [stray, written], [0.6, 0.6], 0.4, headed)] == ["written"]
    assert [c.book_id for c in admitted(books, [stray, written], [0.6, 0.6], 0.4, tagged)] == ["stray", "written"]
    path.write_text("admission:\n  kinds:\n    marc:\n      floors: {}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="marc"):
        read_admission(path, HEADED)
