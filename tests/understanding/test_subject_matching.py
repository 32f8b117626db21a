"""A brief's topics matched to a real subject index: built from the demo catalog and from a slice of a real one, with
the shipped embedder and a real DuckDB vector cache; required, preferred and doubtful topics; the subject path over
real vectors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from config.class_ranges import class_ranges
from config.settings import load_settings
from config.vocabulary import get_vocabulary
from storage.catalog_db import open_catalog
from tasks.model.conditions import FilterCondition
from tasks.model.constraints import EVERYTHING, evaluate, hard_constraints
from tasks.model.subjects import DOUBTFUL_ROLE, PREFERRED_ROLE, REQUIRED_ROLE
from tasks.model.themes import Theme
from tasks.catalog.ingest import ColumnMapping, validate_file
from tasks.catalog.subjects import build_subject_index, collect_subjects
from tasks.recall.filters import FilterColumns
from tasks.recall.paths.subject import subject_recall
from tasks.recall.vector_search import MemorySearch
from tasks.understanding.reading import load_cues, read_brief
from tasks.understanding.subjects import (
    STRENGTH,
    VECTOR_THRESHOLD,
    SubjectBooks,
    SubjectVocabulary,
    subjects_of_brief,
)
from tasks.understanding.translate.rules import RulesTranslator
from tests.conftest import DEMO_CATALOG, real_catalog


def index_of(books, embedder, folder: Path) -> SubjectVocabulary:
    with open_catalog(folder / "catalog.duckdb") as db:
        index = build_subject_index(books, embedder, db)
    return SubjectVocabulary(index.subjects, index.vectors)


@pytest.fixture(scope="module")
def demo_books():
    return validate_file(DEMO_CATALOG, ColumnMapping(), get_vocabulary()).books


@pytest.fixture(scope="module")
def demo_subjects(demo_books, embedder, tmp_path_factory) -> SubjectVocabulary:
    return index_of(demo_books, embedder, tmp_path_factory.mktemp("subjects"))


def subject_books(books) -> SubjectBooks:
    """The books as a run hands them to the subject evidence: through their filter columns."""
    from tasks.recall.filters import FilterColumns

    books = tuple(books)
    return SubjectBooks(books, FilterColumns.build(books).rows)


def read(brief: str, subjects: SubjectVocabulary, embedder, books=None):
    """The brief's query with its subject conditions, as the shelf flow reads it."""
    vocabulary = get_vocabulary()
    reading = read_brief(brief, vocabulary)
    query = RulesTranslator(vocabulary).translate(Theme("b", "t", brief), reading)
    settings = load_settings()
    return subjects_of_brief(reading, query, subjects, embedder, load_cues(), settings.gating.min_books,
                             books=subject_books(books or ()), confidence=settings.enrichment.filter_confidence)


def roles(query) -> dict[str, tuple[str, list[str]]]:
    return {t.topic.text.lower(): (t.role, [m.subject.label for m in t.matches]) for t in query.subjects}


def test_the_demo_subject_index_holds_its_headings_parts_and_classes_with_counts(demo_books, demo_subjects):
    by_label = {(s.kind, s.label): s for s in demo_subjects.subjects}
    science_fiction = by_label[("heading", "Science fiction")]
    assert science_fiction.books == sum("Science fiction" in b.subjects for b in demo_books)
    assert by_label[("part", "长篇小说")].books == sum(any("长篇小说" in h.split("—") for h in b.subjects)
                                                    for b in demo_books)
    assert by_label[("class", "中国古代史")].books > 0 and ("class", "日本文学") not in by_label
    assert demo_subjects.vectors.shape == (len(demo_subjects.subjects), 512)
    assert np.allclose(np.linalg.norm(demo_subjects.vectors, axis=1), 1.0, atol=1e-3)


def test_a_head_nouns_subject_is_required_and_a_side_topic_only_wished(demo_subjects, embedder):
    # "travel" alone is a reading situation (on a journey); before "writing" it is the subject, which 10 books carry
    query = read("Travel writing for the summer holidays", demo_subjects, embedder)
    assert roles(query)["travel writing"][0] == REQUIRED_ROLE and "Travel" in roles(query)["travel writing"][1]
    assert any(c.field == "topic" and "Travel" in c.values for c in query.conditions("MUST"))
    # a head noun whose heading one book carries is wished for: the catalog's other psychology books lack it
    assert roles(read("psychology books for beginners", demo_subjects, embedder))["psychology"] == (
        PREFERRED_ROLE, ["Psychology"])
    # 二战 is "World War, 1939-1945" by config/synonyms.yaml: the demo holds it only in a novel's heading, which stands
    # where no history of it is held (the review then says how few books fit)
    query = read("二战历史", demo_subjects, embedder)
    assert roles(query)["二战"] == (REQUIRED_ROLE, ["World War, 1939-1945 -- Fiction"])
    query = read("Books about friendship and growing up", demo_subjects, embedder)
    assert roles(query)["friendship"][0] == PREFERRED_ROLE
    assert query.conditions("MUST") == ()


def test_a_head_noun_listed_with_another_kind_of_book_is_one_part_of_the_shelf_not_required(demo_subjects, embedder):
    # "travel writing" alone requires its subject (above); listed with novels, the shelf holds both kinds, and a
    # required "Travel" had left a Steinbeck spotlight 2 books, none of his
    for brief in ("novels and travel books", "travel books or novels for the summer",
                  "John Steinbeck spotlight: his novels and travel books up front, then other writers of the West"):
        query = read(brief, demo_subjects, embedder)
        assert not any(c.field in ("topic", "form") for c in query.conditions("MUST")), brief
    # no joiner between them: the novels are about travel, the topic still heads it
    assert roles(read("Travel writing, no novels", demo_subjects, embedder))["travel writing"][0] == REQUIRED_ROLE


def test_a_chinese_topic_reaches_an_english_heading_by_vector_above_the_threshold(demo_subjects, embedder):
    query = read("想要一些关于友谊的书", demo_subjects, embedder)
    matches = {m.subject.label: m for t in query.subjects for m in t.matches}
    friendship = matches["Friendship -- Fiction"]  # the demo's friendship headings are all of novels
    assert friendship.how == "vector" and friendship.strength >= VECTOR_THRESHOLD


def test_a_brief_on_a_topic_the_catalog_holds_no_subject_of_still_requires_it(demo_subjects, embedder, demo_books):
    query = read("Cookbooks", demo_subjects, embedder)
    assert query.conditions("MUST") == (FilterCondition("topic", ("Cookbooks",), "MUST"),)
    constraints = hard_constraints(query.filter_conditions)
    assert not [b for b in demo_books if evaluate(constraints, b)]  # a short shelf, and a review, not 30 others


def test_a_mood_word_makes_no_subject(demo_subjects, embedder):
    query = read("Quiet novels for a rainy night, nothing heart-warming.", demo_subjects, embedder)
    assert not any(c.field == "topic" for c in query.filter_conditions)


def test_a_genre_word_in_a_brief_on_other_subjects_is_doubtful(demo_subjects, embedder):
    query = read("这期做逻辑与数学的推理乐趣", demo_subjects, embedder)
    doubt = next(t for t in query.subjects if t.role == DOUBTFUL_ROLE)
    assert doubt.topic.text == "推理" and len(doubt.readings) == 2
    assert doubt.reading_subjects()[0][0] == "推理悬疑"  # the genre's own tag, with its count, is one reading
    # picked in review, a reading is wished for as the condition that finds its books
    assert doubt.reading_wishes()[0] == FilterCondition("genre", ("推理悬疑",), "SHOULD")
    assert read("推理小说", demo_subjects, embedder).subjects == ()  # asked for alone: the genre, no doubt


def test_a_genre_read_from_part_of_a_word_is_the_genre_the_words_books_hold(demo_subjects, demo_books, embedder):
    # 科学 (an alias of 科普) inside 科学幻想: the books under 科学幻想小说 are science fiction, not popular science
    query = read("启示的梦想——科学幻想作品推荐", demo_subjects, embedder, demo_books)
    assert [c for c in query.conditions("MUST") if c.field == "genre"] == [FilterCondition("genre", ("科幻",), "MUST")]
    without_books = read("启示的梦想——科学幻想作品推荐", demo_subjects, embedder)
    assert [c.values for c in without_books.conditions("MUST") if c.field == "genre"] == [("科普",)]
    # 推理 inside 推理小说 is what the books under 推理小说 are
    query = read("想要推理小说，但不要东野圭吾", demo_subjects, embedder, demo_books)
    assert [c.values for c in query.conditions("MUST") if c.field == "genre"] == [("推理悬疑",)]


def test_the_subject_path_brings_only_books_carrying_the_matched_subjects(demo_subjects, demo_books, embedder):
    query = read("Books about friendship and growing up", demo_subjects, embedder)
    columns = FilterColumns.build(demo_books)
    search = MemorySearch(columns, embedder.embed_documents([b.title_line for b in demo_books]))
    books = {b.book_id: b for b in demo_books}
    hits = subject_recall(query.subjects, EVERYTHING, embedder.embed_queries([query.synthetic_query])[0], search,
                          books, 100)
    carrying = {b.book_id for b in demo_books if any("friendship" in h.lower() or "成长" in h for h in b.subjects)}
    assert hits and {h.book_id for h in hits} <= carrying
    assert all(h.score > 0 for h in hits) and hits == sorted(hits, key=lambda h: -h.score)


def test_a_real_catalogs_lcsh_headings_split_count_and_match(embedder, tmp_path):
    rows = [json.loads(line) for line in real_catalog("gutenberg", "pg_top_catalog.jsonl").open(encoding="utf-8")]
    slice_file = tmp_path / "slice.jsonl"
    slice_file.write_text("".join(json.dumps(r) + "\n" for r in rows[:80]), encoding="utf-8")
    books = validate_file(slice_file, ColumnMapping(), get_vocabulary()).books
    subjects = index_of(books, embedder, tmp_path)
    by_label = {s.label: s for s in subjects.subjects if s.kind != "tag"}
    headings = [h for b in books for h in b.subjects]
    fiction = sum(any(h.endswith("-- Fiction") for h in b.subjects) for b in books)
    assert by_label["Fiction"].books == fiction and fiction > 0
    assert "19th century" not in by_label and "1939-1945" not in by_label  # a period alone is no subject
    assert len(by_label) > len(set(headings))  # the parts are subjects too
    # an inverted heading: its head is a subject, and it is matched in natural order
    assert by_label["Detective and mystery stories"].books == sum(
        any(h.startswith("Detective and mystery stories") for h in b.subjects) for b in books)
    assert by_label["Detective and mystery stories, English"].aliases == ("English detective and mystery stories",)
    sea = roles(read("Sea stories for the summer", subjects, embedder))
    assert sea["sea stories"] == (PREFERRED_ROLE, ["Sea stories"])  # a head noun, but 3 books of the slice
    # the whole brief: required, however few carry it; the slice holds orphans only in stories, so the topic is
    # its headings with their form ("Orphans -- Fiction"), not the bare part
    orphans = roles(read("Orphans", subjects, embedder))
    assert orphans["orphans"] == (REQUIRED_ROLE, ["Orphans -- Fiction", "Orphans -- Juvenile fiction"])


def test_a_real_marc_exports_headings_are_subjects_with_their_counts_and_its_literatures_none():
    """Evergreen's MARCXML test records (benchmarks/catalogs/evergreen/SOURCE.md): LCSH and DDC / LCC numbers."""
    books = validate_file(real_catalog("evergreen", "concerto_bibs.xml"), ColumnMapping(), get_vocabulary()).books
    subjects = collect_subjects(books)
    # its American literature (LCC PS, DDC 81x) is the records' literature facet, asked for as one: no topic subject
    american = class_ranges().entry("american").codes
    assert any(not set(american).isdisjoint(b.class_prefixes) for b in books)
    assert not any(s.kind == "class" and s.label in ("American literature", "美国文学") for s in subjects)
    parts = {s.label: s.books for s in subjects if s.kind == "part"}
    assert parts["Juvenile fiction"] == sum(any(h.rstrip(". ").endswith("Juvenile fiction") or "-- Juvenile fiction --"
                                                in h for h in b.subjects) for b in books)


def test_a_nations_word_before_a_kind_of_writing_says_whose_books_not_what_they_are_about(demo_subjects, embedder):
    assert "english" not in roles(read("Classic English novels", demo_subjects, embedder))
    assert "english" in roles(read("English history", demo_subjects, embedder))  # there it is the topic


def test_a_topic_holds_the_heading_of_its_stories_unless_the_brief_excludes_fiction(demo_subjects, embedder):
    sea = roles(read("Books about the sea and ships", demo_subjects, embedder))["sea"][1]
    assert "Sea stories" in sea  # the demo's sea books are filed under "Sea stories", no heading "Sea"
    assert roles(read("Nonfiction about the sea", demo_subjects, embedder))["sea"][1] == ["Ocean"]


# A brief's topic word that heads compound headings reaches them as a family, each with its own count (issue 31,
# round seven): the wordings below are this round's own, written before the change, and failed before it.
def _vocabulary_of(labels: dict[str, int]) -> SubjectVocabulary:
    from tasks.model.subjects import Subject

    subjects = tuple(Subject(label, "heading", "en", books, "heading", (label,)) for label, books in labels.items())
    return SubjectVocabulary(subjects, np.zeros((len(subjects), 4), dtype=np.float32))


LCSH_LIKE = {"World War, 1939-1945": 9, "World War -- Fiction": 4, "Napoleonic Wars, 1800-1815": 2, "Cold War": 3,
             "Wars of the Roses": 2, "Sino-Japanese War, 1937-1945": 2, "Warships": 5, "Award winners": 2,
             "Prisoners of war": 2, "Time travel -- Fiction": 6, "Space travel": 2, "Voyages and travels": 7,
             "New England -- Fiction": 5, "England -- Fiction": 9, "United States -- History": 8,
             "Qing dynasty, 1644-1912": 4, "Casanova, Giacomo, 1725-1798": 1, "Political science": 3, "Science": 4}


@pytest.mark.parametrize("topic, family, never", [
    ("war", {"World War, 1939-1945", "World War -- Fiction", "Napoleonic Wars, 1800-1815", "Cold War",
             "Wars of the Roses", "Sino-Japanese War, 1937-1945"}, {"Warships", "Award winners", "Prisoners of war"}),
    ("wars", {"World War, 1939-1945", "Napoleonic Wars, 1800-1815", "Wars of the Roses"}, {"Warships"}),
    ("dynasties", {"Qing dynasty, 1644-1912"}, set()),
    ("travel", set(), {"Time travel -- Fiction", "Space travel"}),
    ("england", set(), {"New England -- Fiction"}),
    ("states", set(), {"United States -- History"}),
    ("science", {"Science"}, {"Political science"}),
])
def test_a_topic_heading_compound_headings_reaches_its_family_by_the_headings_structure(topic, family, never):
    found = {m.subject.label for m in _vocabulary_of(LCSH_LIKE).lexical(topic)}
    assert family <= found and not found & never, found


@pytest.mark.parametrize("brief, topic", [
    ("写战争的长篇小说，别太残酷", "战争"),
    ("战争中的普通人：几本小说", "战争"),
    ("Novels about war and the people who lived through it", "war"),
    ("War and its aftermath, in fiction", "war"),
    ("Soldiers coming home from the wars: novels", "wars"),
])
def test_a_broad_topic_word_reaches_the_catalogs_compound_headings_in_either_language(demo_subjects, embedder,
                                                                                     brief, topic):
    labels = roles(read(brief, demo_subjects, embedder)).get(topic, ("", []))[1]
    # the demo's war novels are filed under "World War, 1914-1918 -- Veterans -- Fiction", "World War, 1939-1945
    # -- Channel Islands -- Fiction" and "Napoleonic Wars, 1800-1815 -- Fiction", none under "War"
    assert any(label.startswith("World War") for label in labels), labels
    assert any(label.startswith("Napoleonic Wars") for label in labels), labels


# A Chinese tag holding the topic only inside another head (自然科学 holds 自然, 科学幻想小说 holds 科学) is partial
# evidence, by how many of its books say the word themselves; one ending in it (鸦片战争) or made of it and a kind of
# writing (推理小说) is the topic's own (issue 31, round seven; this round's own wordings, failing before the change).
def held(query, topic: str) -> dict[str, float]:
    return {m.subject.label: m.strength for t in query.subjects if t.topic.text == topic for m in t.matches
            if m.how == "holds"}


@pytest.mark.parametrize("brief, topic, loose", [
    ("亲近自然的散文", "自然", "自然科学"),
    ("春天里读几本关于自然的书", "自然", "自然科学"),
    ("Books about nature and the seasons, 写自然的也行", "自然", "自然科学"),
    ("给孩子的科学读物", "科学", "科学幻想小说"),
    ("科学与科学家的故事", "科学", "科学幻想小说"),
])
def test_a_tag_holding_the_topic_inside_another_head_is_partial_evidence(demo_subjects, demo_books, embedder, brief,
                                                                         topic, loose):
    strengths = held(read(brief, demo_subjects, embedder, demo_books), topic)
    assert strengths.get(loose, 0.0) < 0.5, strengths


@pytest.mark.parametrize("term, label, inside", [
    ("战争", "鸦片战争", False), ("战争", "抗日战争", False), ("推理", "推理小说", False), ("战争", "战争小说", False),
    ("自然", "自然科学", True), ("科学", "科学幻想小说", True), ("人生", "人生哲学", True), ("时代", "战国时代～五代十国时期", True),
])
def test_a_chinese_tag_holds_a_term_as_its_head_or_only_inside_another_head(term, label, inside):
    from tasks.understanding.reading import load_cues
    from tasks.understanding.subjects import held_inside, kind_words

    assert held_inside(term, label, kind_words(load_cues())) is inside


# A heading near a matched topic in meaning, under the match threshold, says the topic in other words or the other
# language (抗战 for 战争, "Satire" for humorous, "Natural history" for 自然): the subject path brings its books as
# candidates, weaker than a matched subject's, with no evidence of their own (issue 31, round seven; this round's
# own wordings, failing before the change).
@pytest.mark.parametrize("brief, book_title", [
    ("写战争的长篇小说，别太残酷", "四世同堂"),
    ("战争中的普通人：几本小说", "红高粱家族"),
    ("亲近自然的书，春天读", "The Outermost House"),
    # left: an English brief is far from a Chinese heading as a whole (0.09), however near 'war' is to 抗战 (0.65)
    pytest.param("Novels of war and the soldiers who came home", "四世同堂",
                 marks=pytest.mark.xfail(strict=True, reason="a near heading of the other language stays far from "
                                                             "the whole brief (PREFERRED_FIT)")),
    ("Nature writing for the first warm days", "The Outermost House"),
])
def test_the_subject_path_brings_books_under_headings_near_a_matched_topic(demo_subjects, demo_books, embedder, brief,
                                                                           book_title):
    from tasks.recall.paths.subject import near_recall

    query = read(brief, demo_subjects, embedder, demo_books)
    columns = FilterColumns.build(demo_books)
    search = MemorySearch(columns, embedder.embed_documents([b.title_line for b in demo_books]))
    books = {b.book_id: b for b in demo_books}
    vector = embedder.embed_queries([query.synthetic_query])[0]
    matched = {h.book_id for h in subject_recall(query.subjects, EVERYTHING, vector, search, books, 100)}
    near = near_recall(query.subjects, demo_subjects, embedder, EVERYTHING, vector, search, books, 100, matched)
    titles = {books[h.book_id].title for h in near}
    assert any(t.startswith(book_title) for t in titles), titles
    assert not {h.book_id for h in near} & matched and all(0 < h.score < 0.5 for h in near)


# The subject evidence reads a subject's books through the run's filter columns, never by testing every book of the
# catalog (issue 31, round eight: 4 s a partial match at 1M books): the same books as the evaluator finds, and at
# most CARRIERS_READ of them, spread over all, where a subject is carried by more.
def test_the_subject_evidence_reads_the_books_the_evaluator_finds_for_every_subject(demo_subjects, demo_books):
    from tasks.model.constraints import condition_expr

    books = subject_books(demo_books)
    for subject in demo_subjects.subjects:
        expr = condition_expr(subject.field, subject.values)
        found = {b.book_id for b in books.carriers([subject])}
        assert found == {b.book_id for b in demo_books if evaluate(expr, b)}, subject
        assert len(found) == subject.books or subject.kind == "class", subject  # a class counts its books its way
    two = [s for s in demo_subjects.subjects if s.kind == "heading"][:2]
    assert {b.book_id for b in books.carriers(two)} == {b.book_id for s in two for b in books.carriers([s])}


def test_a_subject_carried_by_more_books_than_are_read_is_read_on_a_sample_spread_over_all(demo_books):
    from dataclasses import replace as copy

    from tasks.model.subjects import Subject
    from tasks.understanding.subjects import CARRIERS_READ

    many = [copy(demo_books[i % len(demo_books)], book_id=f"b{i:05d}", subjects=("Lighthouses",))
            for i in range(CARRIERS_READ * 2 + 500)]
    carriers = subject_books(many).carriers([Subject("Lighthouses", "heading", "en", len(many), "heading",
                                                       ("Lighthouses",))])
    assert len(carriers) <= CARRIERS_READ and carriers[0].book_id == "b00000"
    assert carriers[-1].book_id >= f"b{len(many) - 3:05d}"  # spread to the end, not the first thousand


# A heading family joins the headings a topic word heads, never the name of one thing holding the word: a singular
# head before "of" and a name ("Kingdom of God"), a qualifier saying what the name is ("(Fictitious character)",
# "(England)"), a corporate body's units between full stops (issue 31, round eight; headings as the Gutenberg and
# Evergreen records write them; the wordings are this round's own, written before the change, and failed before it).
NAMED_LIKE = {"Three kingdoms, 220-265 -- Fiction": 3, "Kingdom of God": 4, "Wars of the Roses": 2,
              "War of 1812": 2, "Indians of North America": 5, "Wizard of Oz (Fictitious character) -- Fiction": 3,
              "Isle of Ely (England)": 2, "Great Britain. Army. Cavalry. 19th Regiment, 1759-1763": 2,
              "Great Britain. Army. Royal Irish Regiment": 1, "Hogwarts School of Witchcraft and Wizardry (Imaginary "
              "place) -- Fiction": 4, "Louis XIV King of France 1638-1715": 2, "Qing dynasty, 1644-1912": 3}


@pytest.mark.parametrize("brief, topic, family, never", [
    ("Kingdoms and empires of the ancient world", "kingdoms", {"Three kingdoms, 220-265 -- Fiction"},
     {"Kingdom of God"}),
    ("Regiments and cavalry: soldiers' lives", "regiments", set(),
     {"Great Britain. Army. Cavalry. 19th Regiment, 1759-1763", "Great Britain. Army. Royal Irish Regiment"}),
    ("Wizards and witches for young readers", "wizards", set(),
     {"Wizard of Oz (Fictitious character) -- Fiction"}),
    ("A school story for a rainy weekend", "school", set(),
     {"Hogwarts School of Witchcraft and Wizardry (Imaginary place) -- Fiction"}),
    ("Kings and their courts", "kings", set(), {"Louis XIV King of France 1638-1715"}),
    ("关于战争的历史书", "战争", {"Wars of the Roses", "War of 1812"}, set()),
    ("Islands and isles of the north", "isles", set(), {"Isle of Ely (England)"}),
])
def test_a_heading_family_leaves_out_the_name_of_one_thing_holding_the_word(brief, topic, family, never):
    from tasks.understanding.expansion import load_expansion_tables
    from tasks.understanding.subjects import _same

    vocabulary = _vocabulary_of(NAMED_LIKE)  # 战争 reaches the headings by the term mapping's 'war'
    found = {m.subject.label for word in (topic, *_same(topic, load_expansion_tables()))
             for m in vocabulary.lexical(word, "exact" if word == topic else "mapped")}
    assert family <= found and not found & never, (brief, found)
    assert "Indians of North America" in {m.subject.label for m in _vocabulary_of(NAMED_LIKE).lexical("indians")}


# A brief's head topic and a modifier's (issue 31, round eight): "women in science" is science with women, not every
# book on women. The modifier's headings only narrow the head's: no condition of their own, no book of the subject
# path that carries them alone (the wordings are this round's own, written before the change, and failed before it).
def headed_catalog(headings: dict[str, int], demo_books, embedder, folder: Path):
    """A catalog of `count` books under each heading alone, and its subject index."""
    from dataclasses import replace as copy

    books = [copy(demo_books[0], book_id=f"h{n:03d}", work_id="", title=f"{heading} {i}", subjects=(heading,))
             for n, (heading, i) in enumerate((h, i) for h, count in headings.items() for i in range(count))]
    return books, index_of(books, embedder, folder)


@pytest.fixture(scope="module")
def modifier_catalog(demo_books, embedder, tmp_path_factory):
    headings = {"Women -- Fiction": 8, "Science": 6, "Women -- Science": 2, "Animals -- Fiction": 6, "History": 6,
                "Animals -- History": 2, "女性": 6, "科学": 5, "女性—科学": 2, "动物": 6, "历史": 6, "动物—历史": 2}
    return headed_catalog(headings, demo_books, embedder, tmp_path_factory.mktemp("modifiers"))


@pytest.mark.parametrize("brief, head, modifier", [
    ("Women in science", "science", "women"),
    ("Women in science: lives and discoveries", "science", "women"),
    ("Animals in history, for curious readers", "history", "animals"),
    ("科学中的女性", "科学", "女性"),
    ("写历史里的动物的书", "历史", "动物"),
])
def test_a_modifiers_headings_only_narrow_the_head_topics(modifier_catalog, embedder, brief, head, modifier):
    from tasks.recall.paths.subject import evidence_for

    books, subjects = modifier_catalog
    query = read(brief, subjects, embedder, books)
    # the modifier's headings: a book carrying them alone (a novel about women) is not on science
    alone = [b for b in books if b.subjects[0] in ("Women -- Fiction", "Animals -- Fiction", "女性", "动物")
             and b.subjects[0].lower().startswith(modifier[:2].lower())]
    both = [b for b in books if b.subjects[0] in ("Women -- Science", "Animals -- History", "女性—科学", "动物—历史")
            and b.subjects[0].lower().startswith(modifier[:2].lower())]
    assert alone and both
    assert not any(evidence_for(b, query.subjects) for b in alone), brief
    assert all(evidence_for(b, query.subjects) for b in both), brief
    topic_values = {v for c in query.filter_conditions if c.field == "topic" for v in c.values}
    assert not topic_values & {"Women", "Animals", "女性", "动物"}, topic_values


# Two wished topics in one compound ("cello music", 大提琴音乐): the last word is the compound's head, and a book its
# headings alone carry (a history of a music festival under "Music") is no book of the compound, while one under the
# word before it is (a cello concerto, whether or not also under "Music"). The head narrows the word before it; a
# nation's word before it says whose, and narrows nothing (issue 31: a cello shelf of an English catalog had led with
# books under "Music" alone; the wordings are this session's own and failed before the change).
@pytest.fixture(scope="module")
def compound_catalog(demo_books, embedder, tmp_path_factory):
    headings = {"Concertos (Violoncello)": 5, "Music": 6, "Dogs": 6, "Training": 5, "Cooking": 6, "Gardens": 5,
                "Design": 5, "大提琴": 5, "音乐": 6, "太空": 5, "探索": 5}
    return headed_catalog(headings, demo_books, embedder, tmp_path_factory.mktemp("compounds"))


@pytest.mark.parametrize("brief, modifier, head", [
    ("Cello music for the listening corner", "Concertos (Violoncello)", "Music"),
    ("Some dog training books for new owners", "Dogs", "Training"),
    ("garden design ideas", "Gardens", "Design"),
    ("大提琴音乐，周末试听", "大提琴", "音乐"),
])
def test_a_compounds_head_only_narrows_the_word_before_it(compound_catalog, embedder, brief, modifier, head):
    from tasks.recall.paths.subject import evidence_for

    books, subjects = compound_catalog
    query = read(brief, subjects, embedder, books)
    assert all(evidence_for(b, query.subjects) for b in books if b.subjects == (modifier,)), (brief, roles(query))
    assert not any(evidence_for(b, query.subjects) for b in books if b.subjects == (head,)), (brief, roles(query))
    topic_values = {v for c in query.filter_conditions if c.field == "topic" for v in c.values}
    assert modifier in topic_values and head not in topic_values, topic_values


@pytest.mark.parametrize("brief, kept", [
    # two topics side by side but not one compound: each brings its books
    ("Dogs, training and walks", "Training"),
    ("Music and cooking for a slow Sunday", "Cooking"),
])
def test_topics_not_in_one_compound_each_bring_their_books(compound_catalog, embedder, brief, kept):
    from tasks.recall.paths.subject import evidence_for

    books, subjects = compound_catalog
    query = read(brief, subjects, embedder, books)
    assert all(evidence_for(b, query.subjects) for b in books if b.subjects == (kept,)), (brief, roles(query))


def test_a_required_head_noun_set_in_a_place_stays_required(demo_subjects, embedder):
    # "travel writing" is what the shelf is: "in" before a place makes it no modifier of the place
    query = read("Travel writing in China and Japan", demo_subjects, embedder)
    travel = roles(query)["travel writing"]
    assert travel[0] == REQUIRED_ROLE and not next(t for t in query.subjects if t.topic.text.lower() ==
                                                    "travel writing").within
    assert any(c.field == "topic" and "Travel" in c.values for c in query.conditions("MUST"))


# A preferred topic's heading in another sense sits near the topic's word and far from the brief: among the
# catalog's headings nearest the brief it stands low (SENSE_SHARE), and counts for nothing (issue 31, round nine:
# 'love' of "the love of reading" matched "Love stories" on Gutenberg, 9 novels on a library-week shelf).
SENSE_HEADINGS = [
    ["Love stories"], ["Love stories", "England -- Fiction"], *([h] for h in (
        "Libraries", "Public libraries", "School libraries", "Academic libraries", "Libraries and readers",
        "Library science", "Library architecture", "Librarians -- Biography", "Books and reading", "Reading",
        "Reading promotion", "Literacy", "Bookselling", "Bookstores", "Publishers and publishing", "Book collecting",
        "Bibliography", "Books -- History", "Authorship", "Reading interests", "Children -- Books and reading",
        "Best books", "Book reviewing", "Storytelling", "Literary festivals", "Bookmobiles", "Rare books",
        "Printing -- History", "Book design", "Book industries and trade", "Reading clubs", "Information literacy",
        "Library outreach programs", "Cooking", "Gardening", "Whaling -- Fiction", "Railroads -- History",
        "Mountaineering", "Chemistry -- Textbooks", "Astronomy", "Carpentry", "Pirates -- Fiction", "Piano music",
        "Pianists -- Biography", "Piano -- Instruction and study", "Concertos (Piano)", "Sonatas (Piano)")),
]


@pytest.fixture(scope="module")
def sense_books(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sense")
    rows = [{"book_id": f"s{i}", "title": f"Book {i}", "authors": [], "language": "en", "subjects": headings}
            for i, headings in enumerate(SENSE_HEADINGS)]
    (folder / "catalog.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return validate_file(folder / "catalog.jsonl", ColumnMapping(), get_vocabulary()).books


@pytest.fixture(scope="module")
def sense_subjects(sense_books, embedder, tmp_path_factory) -> SubjectVocabulary:
    return index_of(sense_books, embedder, tmp_path_factory.mktemp("sense-subjects"))


LIBRARY_WEEK = "National Library Week: celebrating the love of reading and the libraries that share it"


def test_a_heading_holding_the_topics_word_in_another_sense_is_no_match(sense_subjects, embedder, monkeypatch):
    import tasks.understanding.subjects as matching

    monkeypatch.setattr(matching, "SENSE_FEW", 0)  # the share alone, as on a catalog of thousands of headings
    library = roles(read(LIBRARY_WEEK, sense_subjects, embedder))
    assert "Love stories" not in library.get("love", (None, []))[1], library  # 17th of 59 nearest the brief
    assert "Public libraries" in library["libraries"][1]  # the brief's own sense stands
    courtship = roles(read("Tender tales of love and courtship for a long evening", sense_subjects, embedder))
    assert "Love stories" in courtship["love"][1], courtship
    # a qualifier says in which sense: the piano's concertos stand, however far "Concertos" is from the brief
    piano = roles(read("National Piano Month: a month of music for the keys", sense_subjects, embedder))
    assert {"Concertos (Piano)", "Sonatas (Piano)"} <= set(piano["piano"][1]), piano


def test_a_small_catalogs_heading_in_sense_stands_among_its_few_nearest(sense_subjects, embedder):
    # of 59 subjects, 2% is one: the floor (SENSE_FEW) keeps what a small catalog holds near the brief
    assert "Love stories" in roles(read(LIBRARY_WEEK, sense_subjects, embedder))["love"][1]
