"""The catalog's subjects as a vocabulary, without a model: headings split and counted, the subject index stored and
read back, a topic condition evaluated over headings and class codes, the matches said with their counts, and a
doubtful topic asked in review. Matching by vector is in tests/understanding/test_subject_matching.py."""

from dataclasses import replace

import numpy as np

from config.settings import GatingSettings
from storage.subject_store import read_subjects, write_subjects
from tasks.catalog.subjects import collect_subjects
from tasks.model.subjects import heading_parts, inverted
from tasks.export.wording import conditions_text, option_texts, question_text
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition
from tasks.model.constraints import evaluate, hard_constraints
from tasks.model.query import ThemeQuery
from tasks.model.subjects import (
    DOUBTFUL_ROLE,
    PREFERRED_ROLE,
    REQUIRED_ROLE,
    Subject,
    SubjectMatch,
    TopicPhrase,
    TopicSubjects,
)
from tasks.ranking.gating import ShelfLimits, gate
from tasks.recall.paths.subject import evidence_for, subject_score
from tasks.understanding.subjects import (
    BriefKind,
    SubjectVocabulary,
    allowed_by_kind,
    brief_kind,
    subject_conditions,
    with_subjects,
)

BOOKS = [
    BookRecord("b1", "Mastering the Art", subjects=("Cooking, French", "Cooking -- History")),
    BookRecord("b2", "Band of Brothers", subjects=("World War, 1939-1945 -- Campaigns -- France",)),
    BookRecord("b3", "三体", subjects=("科学幻想小说—中国—当代", "科幻"), tags={"genre": ("科幻",)}),
    BookRecord("b4", "雪国", subjects=("中篇小说—日本—现代",), classification=("clc:I313.45",)),
    BookRecord("b5", "Kitchen Confidential", subjects=("Cooks -- United States -- Biography",)),
    BookRecord("b6", "史记", classification=("clc:K204.2",)),
]


def test_a_heading_is_split_into_its_parts_and_an_inverted_one_into_its_head():
    assert heading_parts("World War, 1939-1945 -- Campaigns -- France") == [
        "World War, 1939-1945", "Campaigns", "France", "World War"]
    assert heading_parts("Cooking, French") == ["Cooking"]
    assert heading_parts("科学幻想小说—中国—当代") == ["科学幻想小说", "中国", "当代"]
    assert heading_parts("Authors, American -- 20th century -- Biography") == [
        "Authors, American", "Biography", "Authors"]
    assert inverted("Cooking, French") == ("Cooking", "French cooking")
    assert inverted("World War, 1939-1945") is None  # a date after the comma is no inversion
    assert inverted("Smith, John, 1900-1980") is None


def test_every_heading_part_tag_and_class_range_is_counted_once_per_book():
    subjects = {(s.kind, s.label): s for s in collect_subjects(BOOKS)}
    assert subjects[("part", "Cooking")].books == 1  # two headings of b1 hold it: one book
    assert subjects[("heading", "Cooking, French")].aliases == ("French cooking",)
    assert subjects[("part", "World War")].books == 1
    assert ("part", "1939-1945") not in subjects and ("part", "当代") in subjects
    assert subjects[("heading", "科幻")].field == "heading"
    assert subjects[("tag", "科幻")].field == "genre" and subjects[("tag", "科幻")].values == ("科幻",)
    ancient = subjects[("class", "中国古代史")]
    assert ancient.books == 1 and "clc:K204" in ancient.values and subjects[("class", "ancient Chinese history")]
    # a literature is the record's literature facet, asked for as a condition: never a topic's subject
    assert ("class", "日本文学") not in subjects and ("class", "Japanese literature") not in subjects
    assert subjects[("part", "中国")].language == "zh" and subjects[("part", "France")].language == "en"


def test_the_subject_index_is_read_back_as_written(tmp_path):
    subjects = tuple(collect_subjects(BOOKS))
    vectors = np.random.default_rng(31).normal(size=(len(subjects), 8)).astype(np.float32)
    write_subjects(tmp_path, subjects, vectors)
    read, read_vectors = read_subjects(tmp_path)
    assert read == subjects and np.array_equal(read_vectors, vectors)
    older, no_vectors = read_subjects(tmp_path / "older-version")  # a version built before the subject index
    assert older == () and no_vectors.size == 0
    write_subjects(tmp_path, (), np.zeros((0, 8), np.float32))  # a catalog without any heading, tag or class
    none, no_vectors = read_subjects(tmp_path)
    assert none == () and no_vectors.size == 0


def subject(label, books, field="heading", values=None, kind="heading", language="en"):
    return Subject(label, kind, language, books, field, values or (label,))


COOKING = subject("Cooking", 412, kind="part")
JAPANESE = subject("日本文学", 88, "classification", ("clc:I313", "ddc:895.6"), "class", "zh")
JAPANESE_EN = subject("Japanese literature", 88, "classification", ("clc:I313", "ddc:895.6"), "class")


def found(text, role, *matches, head=False):
    topic = TopicPhrase(text, 0, len(text), "wanted", head=head)
    return TopicSubjects(topic, tuple(SubjectMatch(text, s, strength, how) for s, strength, how in matches), role,
                         (tuple(SubjectMatch(text, s, strength, how) for s, strength, how in matches),))


def test_lexical_matches_go_by_words_singular_or_plural_and_a_chinese_term_held_by_a_tag():
    subjects = tuple(collect_subjects(BOOKS))
    vocabulary = SubjectVocabulary(subjects, np.zeros((len(subjects), 4), np.float32))
    assert {m.subject.label for m in vocabulary.lexical("cooking")} == {"Cooking"}
    assert {m.subject.label for m in vocabulary.lexical("french cooking")} == {"Cooking, French"}
    assert {m.subject.label for m in vocabulary.lexical("campaign")} == {"Campaigns"}  # singular and plural
    held = {m.subject.label: m.how for m in vocabulary.lexical("科学幻想")}
    assert held == {"科学幻想小说": "holds"}  # not the whole heading 科学幻想小说—中国—当代: its part says it


def test_a_required_topic_is_any_of_its_headings_or_class_codes():
    query = with_subjects(ThemeQuery((), ("japan",), "q", 0.5, "rules"),
                          [found("Japanese", REQUIRED_ROLE, (JAPANESE, 1.0, "exact"), (COOKING, 0.9, "mapped"),
                                 head=True)])
    assert query.conditions("MUST") == (FilterCondition("topic", ("clc:I313", "ddc:895.6", "Cooking"), "MUST"),)
    held = [b.book_id for b in BOOKS if evaluate(hard_constraints(query.filter_conditions), b)]
    assert held == ["b1", "b4"]  # b1 by its heading, b4 by its class code; b5's "Cooks" is another word


def test_a_preferred_topic_is_a_wish_a_doubtful_one_nothing_and_a_head_noun_without_subject_its_own_word():
    conditions = subject_conditions([
        found("cooking", PREFERRED_ROLE, (COOKING, 1.0, "exact")),
        found("推理", DOUBTFUL_ROLE, (COOKING, 1.0, "exact")),
        TopicSubjects(TopicPhrase("beekeeping", 0, 10, "wanted", head=True), (), REQUIRED_ROLE)])
    assert conditions == (FilterCondition("topic", ("Cooking",), "SHOULD"),
                          FilterCondition("topic", ("beekeeping",), "MUST"))


def test_vector_matches_make_the_condition_only_where_no_word_matched():
    near = subject("Gastronomy", 30)
    assert subject_conditions([found("cooking", PREFERRED_ROLE, (COOKING, 1.0, "exact"), (near, 0.85, "vector"))]
                              ) == (FilterCondition("topic", ("Cooking",), "SHOULD"),)
    # a near heading holding the topic's words joins the words' own ("Social psychology" for "psychology")
    social = subject("Social psychology", 3)
    assert subject_conditions([found("psychology", PREFERRED_ROLE, (subject("Psychology", 1), 1.0, "exact"),
                                     (social, 0.81, "vector"), (subject("Psychologists", 1), 0.87, "vector"))]
                              ) == (FilterCondition("topic", ("Psychology", "Social psychology"), "SHOULD"),)
    assert subject_conditions([found("cuisine", PREFERRED_ROLE, (near, 0.85, "vector"))]
                              ) == (FilterCondition("topic", ("Gastronomy",), "SHOULD"),)


def test_a_book_carries_typed_evidence_of_the_matched_subjects_strongest_first():
    topics = [found("cooking", REQUIRED_ROLE, (COOKING, 1.0, "exact"), head=True),
              found("日本", PREFERRED_ROLE, (JAPANESE, 0.9, "mapped"))]
    evidence = evidence_for(BOOKS[0], topics)
    assert [(e.subject, e.how, e.strength, e.role) for e in evidence] == [("Cooking", "exact", 1.0, "required")]
    assert evidence_for(BOOKS[4], topics) == ()
    japanese = evidence_for(BOOKS[3], topics)
    assert subject_score(japanese) == 0.45 and japanese[0].kind == "class"  # preferred: half a required one


def test_the_sheet_says_each_matched_subject_with_its_count_in_the_briefs_language():
    query = with_subjects(ThemeQuery((), ("x",), "q", 0.5, "rules"), [
        found("cooking", REQUIRED_ROLE, (COOKING, 1.0, "exact"), head=True),
        found("日本", PREFERRED_ROLE, (JAPANESE, 1.0, "exact"), (JAPANESE_EN, 1.0, "exact"))])
    assert conditions_text(query, "en") == ("Must be: subject: Cooking (412 books); "
                                            "preferably: subject: Japanese literature (88 books)")
    assert conditions_text(query, "zh") == "必须：主题：Cooking（412 种）；最好：主题：日本文学（88 种）"
    one = with_subjects(ThemeQuery((), ("x",), "q", 0.5, "rules"),
                        [found("psychology", PREFERRED_ROLE, (subject("Psychology", 1), 1.0, "exact"))])
    assert conditions_text(one, "en") == "Preferably: subject: Psychology (1 book)"


def test_a_doubtful_topic_goes_to_review_with_each_readings_count():
    mystery, logic = subject("推理小说", 30, language="zh"), subject("逻辑", 12, language="zh")
    doubt = TopicSubjects(TopicPhrase("推理", 0, 2, "wanted"), (), DOUBTFUL_ROLE,
                          ((SubjectMatch("推理", mystery, 0.8, "holds"),), (SubjectMatch("逻辑", logic, 1.0, "exact"),)))
    query = ThemeQuery((), ("推理",), "q", 0.5, "rules", subjects=(doubt,))
    verdict = gate(query, 30, ShelfLimits(), [], GatingSettings(min_books=10))
    assert verdict.status == "needs_review" and verdict.question.readings == (("推理小说", 30), ("逻辑", 12))
    assert question_text(verdict.question, "zh") == "「推理」在馆藏里有几种读法：推理小说（30 种）、逻辑（12 种）。本意是哪一个？"
    assert option_texts(verdict.question, "en") == ("about: 推理小说 (30 books)", "about: 逻辑 (12 books)")


TRAVEL_BOOKS = [
    BookRecord("t1", "The Time Machine", subjects=("Time travel -- Fiction", "Science fiction")),
    BookRecord("t2", "The Innocents Abroad", subjects=("Europe -- Description and travel",)),
    BookRecord("t3", "Marco Polo", subjects=("Voyages and travels", "Asia -- Description and travel")),
    BookRecord("t4", "Anthem", subjects=("Men -- Psychology -- Fiction", "Dystopias")),
    BookRecord("t5", "Principles of Psychology", subjects=("Psychology",)),
    BookRecord("t6", "Beyond Good and Evil", subjects=("Philosophy, German",)),
]


def held_by(field, *values):
    return [b.book_id for b in TRAVEL_BOOKS if evaluate(hard_constraints((FilterCondition(field, values, "MUST"),)), b)]


def test_a_topic_finds_whole_headings_and_parts_never_a_word_inside_one():
    assert held_by("topic", "Travel") == ["t2", "t3"]  # "Description and travel" joins it; "Time travel" is another
    assert held_by("subject", "travel") == ["t1", "t2", "t3"]  # a subject word is found in any heading
    assert held_by("topic", "Time travel -- Fiction") == ["t1"] and held_by("topic", "Fiction") == ["t1", "t4"]
    assert held_by("topic", "Psychology") == ["t5"]  # Anthem's heading is a novel's: "Psychology -- Fiction"
    assert held_by("topic", "Philosophy") == ["t6"] and held_by("topic", "German") == []  # its head, not its nation
    assert held_by("topic", "travel") == held_by("topic", "TRAVEL.")  # as a heading is compared: case, stops


def test_a_heading_with_a_form_subdivision_holds_its_parts_with_the_form_and_is_said_without_it():
    assert heading_parts("Men -- Psychology -- Fiction") == ["Men -- Fiction", "Psychology -- Fiction", "Fiction"]
    assert heading_parts("Fiction / Historical") == ["Historical -- Fiction", "Fiction"]  # BISAC writes it first
    assert heading_parts("Fiction -- History and criticism") == [  # criticism of fiction: no novel of anything
        "Fiction", "History and criticism", "History", "Criticism"]
    assert heading_parts("Concertos (Harpsichord and piano)") == []  # a qualifier joins no topics
    subjects = {s.label: s for s in collect_subjects(TRAVEL_BOOKS)}
    assert subjects["Time travel -- Fiction"].aliases == ("Time travel",)  # a brief on time travel says it so
    assert (subjects["Psychology -- Fiction"].kind, subjects["Psychology -- Fiction"].aliases) == ("part", ("Psychology",))
    assert subjects["Travel"].books == 2 and subjects["Psychology"].books == 1


def test_a_brief_asking_no_fiction_takes_a_topics_stories_only_where_the_catalog_holds_it_mostly_in_them():
    stories, plain = subject("Psychology -- Fiction", 2, kind="part"), subject("Psychology", 3)
    matches = [SubjectMatch("psychology", s, 1.0, "exact") for s in (stories, plain)]
    assert allowed_by_kind(matches, BriefKind()) == matches[1:]  # "psychology books": the catalog's own subject
    assert allowed_by_kind(matches, BriefKind("wanted")) == matches  # "novels about psychology"
    pirates = [SubjectMatch("pirates", s, 1.0, "exact") for s in (subject("Pirates -- Fiction", 5, kind="heading"),
                                                                    subject("Pirates", 2))]
    assert allowed_by_kind(pirates, BriefKind()) == pirates  # the catalog's pirates are mostly in stories
    assert allowed_by_kind(pirates, BriefKind("excluded")) == pirates[1:]
    # a near meaning is another topic: the catalog's dystopias are its stories, whatever "Utopias" holds
    dystopias = [SubjectMatch("dystopias", subject("Dystopias -- Fiction", 2, kind="part"), 1.0, "exact"),
                 SubjectMatch("dystopias", subject("Utopias", 4), 0.85, "vector")]
    assert allowed_by_kind(dystopias, BriefKind()) == dystopias
    near = [SubjectMatch("indian", subject("India -- Fiction", 2, kind="part"), 0.8, "vector"),
            SubjectMatch("indian", subject("Indians of North America", 4), 0.8, "vector")]
    assert allowed_by_kind(near, BriefKind()) == near[1:]  # no subject says it: each meaning counts its books
    fiction = ThemeQuery((FilterCondition("form", ("fiction",), "MUST"),), (), "q", 0.5, "rules")
    assert brief_kind(fiction).imaginative == "wanted"
    assert brief_kind(replace(fiction, filter_conditions=(FilterCondition("form", ("nonfiction",), "MUST"),))
                      ).imaginative == "excluded"
