"""Relevance: the calibration fit, the floor, language as a tie-breaker, and the why's words."""

from dataclasses import replace

import numpy as np
import pytest

from config.settings import GatingSettings
from config.vocabulary import get_vocabulary
from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.export.wording import option_texts, question_text
from tasks.model.books import BookRecord, Facet
from tasks.model.query import Candidate, ThemeQuery
from tasks.ranking.gating import Fit, ShelfLimits, gate, likely_fitting
from tasks.ranking.language import LanguageChoice, prefer_language
from tasks.ranking.relevance import (
    AGREEING,
    FEATURES,
    HEADING,
    NAMED,
    SAID_FULL,
    VECTOR,
    WORDS,
    Admission,
    admitted,
    read_admission,
    standing,
    HEADLESS_FIT,
    KINDS,
    SAID_TRUST,
    Calibration,
    Evidence,
    SimilarityDistribution,
    brief_values,
    conditions_define,
    content_words,
    expected_fit_share,
    fit_logistic,
    fitting,
    gather_evidence,
    head_missing,
    probabilities,
    read_calibration,
    subject_features,
    token_cover,
    topic_vector,
)
from tasks.model.subjects import REQUIRED_ROLE, Subject, SubjectEvidence, SubjectMatch, TopicPhrase, TopicSubjects


def test_the_fit_recovers_the_weights_that_made_the_labels():
    rng = np.random.default_rng(29)
    x = rng.normal(size=(4000, 3))
    truth, intercept = np.array([2.0, -1.0, 0.0]), -0.5
    y = (rng.random(4000) < 1 / (1 + np.exp(-(x @ truth + intercept)))).astype(float)
    weights, fitted = fit_logistic(x, y, l2=0.1)
    assert np.allclose(weights, truth, atol=0.2) and abs(fitted - intercept) < 0.2
    # the penalty pulls weights toward 0, never the intercept
    heavy, _ = fit_logistic(x, y, l2=5000.0)
    assert np.all(np.abs(heavy) < np.abs(weights))


def test_a_calibration_gives_probabilities_per_catalog_kind(tmp_path):
    calibration = Calibration({"tagged": {"cover": 4.0}, "tag_blind": {"cover": 1.0}},
                              {"tagged": -2.0, "tag_blind": -2.0})
    covered, bare = Evidence(cover=1.0), Evidence(cover=0.0)
    tagged = calibration.probability([covered, bare], "tagged")
    blind = calibration.probability([covered, bare], "tag_blind")
    assert tagged[0] == pytest.approx(1 / (1 + np.exp(-2.0))) and tagged[1] == pytest.approx(1 / (1 + np.exp(2.0)))
    assert blind[0] < tagged[0]  # the same evidence is weaker where the tags are guesses
    missing = tmp_path / "relevance.yaml"
    missing.write_text("kinds:\n  tagged: {intercept: 0, weights: {}}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="tag_blind"):
        read_calibration(missing)


def test_the_shipped_calibration_weighs_every_feature_for_both_kinds():
    from tasks.ranking.relevance import RELEVANCE_FILE

    calibration = read_calibration(RELEVANCE_FILE)
    for kind in KINDS:
        assert set(calibration.weights[kind]) == set(FEATURES)


def test_a_similarity_is_read_against_the_briefs_distribution_over_the_catalog():
    rng = np.random.default_rng(7)
    books = rng.normal(size=(500, 16))
    books /= np.linalg.norm(books, axis=1, keepdims=True)
    query = books[0] + 0.1 * rng.normal(size=16)
    query /= np.linalg.norm(query)
    similarities = books @ query
    z = SimilarityDistribution.of(books).z(query, similarities)
    assert z.mean() == pytest.approx(0.0, abs=1e-6) and z.std() == pytest.approx(1.0, abs=1e-6)
    assert int(np.argmax(z)) == 0


def test_one_stray_word_of_a_long_brief_covers_little():
    weights = {"beekeeping": 5.0, "bees": 4.0, "honey": 4.0, "crowd": 1.0}
    assert token_cover(list(weights), weights, {"crowd"}) == pytest.approx(1 / 14)
    assert token_cover(list(weights), weights, {"beekeeping", "bees", "honey"}) == pytest.approx(13 / 14)


def test_a_books_subject_evidence_says_its_role_its_kind_of_match_and_how_few_books_share_it():
    rare = SubjectEvidence("b", "beekeeping", "Bee culture", "heading", "exact", 1.0, "required", books=3)
    common = SubjectEvidence("b", "nature", "Nature", "part", "vector", 0.82, "preferred", books=300)
    both = subject_features([rare, common], matched=True, catalog=1000)
    assert (both.required, both.preferred, both.lexical, both.absent) == (1.0, 0.82, 1.0, 0.0)
    near = subject_features([common], matched=True, catalog=1000)
    assert near.lexical == 0.0 and near.required == 0.0  # a match by meaning alone
    assert both.specific > near.specific > 0.0  # a heading of 3 books says more than one of 300
    # the brief's topics matched subjects and the book carries none; where they matched none, nothing is missing
    assert subject_features([], matched=True, catalog=1000).absent == 1.0
    assert subject_features([], matched=False, catalog=1000) == subject_features([], matched=False, catalog=5)


def test_a_book_tied_to_the_brief_by_its_vector_alone_is_untied_where_the_catalog_files_the_topic():
    bees = Subject("Bee culture", "heading", "en", 3, "subject", ("Bee culture",))
    topic = TopicSubjects(TopicPhrase("beekeeping", 0, 10, "wanted"), (SubjectMatch("beekeeping", bees, 1.0, "exact"),),
                          REQUIRED_ROLE)
    books = {b: BookRecord(b, b.title()) for b in ("hive", "honey", "meadow")}
    carried = {"hive": (SubjectEvidence("hive", "beekeeping", "Bee culture", "heading", "exact", 1.0, REQUIRED_ROLE, 3),)}
    candidates = [Candidate(b) for b in books]
    query = ThemeQuery((), ("beekeeping",), "beekeeping", 1.0, "rules", "en")

    def untied(q, cover, theme_shelf=True, rule="untied"):
        return [getattr(e, rule) for e in gather_evidence(candidates, q, books, ["beekeep"], {"beekeep": 3.0}, cover,
                                                          {}, {}, {}, True, subjects=carried, theme_shelf=theme_shelf)]

    filed = replace(query, subjects=(topic,))
    # the hive carries the matched heading, the honey book's text holds the brief's word: only the meadow is untied
    assert untied(filed, {"honey": 0.5}) == [False, False, True]
    # both the honey book and the meadow lack the heading the catalog files the topic under (by meaning too)
    assert untied(filed, {"honey": 0.5}, rule="unfiled") == [False, True, True]
    # where the brief's topics matched no subject of the catalog, or matched one by meaning alone (not how the
    # catalog files the topic), or the brief names a book whose readers' books need not carry its subjects, a book
    # found by meaning alone is not untied
    by_meaning = replace(topic, matches=(SubjectMatch("beekeeping", bees, 0.86, "vector"),))
    assert untied(query, {}) == untied(replace(query, subjects=(by_meaning,)), {}) == [False] * 3
    assert untied(replace(query, subjects=(by_meaning,)), {"honey": 0.5}, rule="unfiled") == [False, True, True]
    assert untied(query, {"honey": 0.5}, rule="unfiled") == [False] * 3  # a topic the catalog files nowhere
    assert untied(filed, {"honey": 0.5}, theme_shelf=False) == [False] * 3
    # nor where the brief's hard conditions leave a tenth of the catalog or less: they say what the books are
    few = gather_evidence(candidates, filed, books, ["beekeep"], {"beekeep": 3.0}, {}, {}, {}, {}, True, narrowed=1.0,
                          subjects=carried)
    assert not any(e.untied for e in few)
    # ...unless those few carry the topic's subject often enough (FILED_AMONG) to say the catalog files it among them
    hives = {**carried, "honey": (replace(carried["hive"][0], book_id="honey"),)}
    among = gather_evidence(candidates, filed, books, ["beekeep"], {"beekeep": 3.0}, {}, {}, {}, {}, True,
                            narrowed=1.0, subjects=hives)
    assert [e.untied for e in among] == [False, False, True]
    # the narrowing counts for a book carrying the topic's subject, not for one the catalog files apart from it
    # ("Seafaring adventures for kids": a children's book under no sea heading had stood at 0.76 on the narrowing)
    assert [e.narrowed for e in few] == [1.0, 0.0, 0.0]


def test_only_the_topics_own_words_tie_a_book_to_a_topic_the_catalog_files():
    bees = Subject("Bee culture", "heading", "en", 3, "subject", ("Bee culture",))
    topic = TopicSubjects(TopicPhrase("beekeeping", 0, 10, "wanted"), (SubjectMatch("beekeeping", bees, 1.0, "exact"),),
                          REQUIRED_ROLE)
    books = {"hive": BookRecord("hive", "Hive", subjects=("Bee culture",)),
             "club": BookRecord("club", "The Garden Club"), "apiary": BookRecord("apiary", "Apiary days")}
    carried = {"hive": (SubjectEvidence("hive", "beekeeping", "Bee culture", "heading", "exact", 1.0, REQUIRED_ROLE, 3),)}
    query = ThemeQuery((), ("club", "beekeeping"), "our club wants beekeeping", 1.0, "rules", "en", subjects=(topic,))
    tokens, weights = ["club", "beekeep"], {"club": 1.0, "beekeep": 3.0}
    cover = {"club": 0.25, "apiary": 0.75}  # the brief's words in each book's text: "club" alone, or "beekeeping"
    topical = {"apiary": 1.0}  # the topic's words alone ("beekeeping")

    def untied(topic_cover):
        return [e.untied for e in gather_evidence([Candidate(b) for b in books], query, books, tokens, weights, cover,
                                                  {}, {}, {}, True, subjects=carried, topical=topic_cover)]

    # "club" of "our club wants ..." ties nothing to bee culture; the apiary's text says the topic's own word
    assert untied(topical) == [False, True, False]
    assert untied(None) == [False, False, False]  # read by every content word, the club's one word had tied it
    # a value the brief wishes for, held surely by the record, ties a book as its words do: no vector alone
    wishing = replace(query, filter_conditions=(FilterCondition("genre", ("科普",), "SHOULD"),))
    books["club"] = replace(books["club"], facets=(Facet("genre", "科普", 0.95, "source", "tag"),))
    assert [e.untied for e in gather_evidence([Candidate(b) for b in books], wishing, books, tokens, weights, cover,
                                              {}, {}, {}, True, subjects=carried, topical=topical)] == [False] * 3


def test_an_untied_book_does_not_fit_and_a_named_one_does_whatever_the_weights_say():
    sure = Calibration({k: {"vector_z": 1.0} for k in KINDS}, {k: 0.0 for k in KINDS})
    near = Evidence(vector_z=4.0)
    p = probabilities(sure, [near, replace(near, untied=True), Evidence(vector_z=-4.0, named=1.0)], "tagged")
    assert p[0] > 0.9 and p[1] == 0.0 and p[2] == 1.0


def test_a_brief_its_hard_conditions_say_whole_is_fitted_by_every_book_meeting_them():
    vocabulary = get_vocabulary()
    fiction = FilterCondition("form", ("fiction",), "MUST")
    since_2000 = NumericCondition("pub_year", ">=", 2000)
    # "Contemporary fiction only: nothing published before 2000": no word beyond the conditions
    bare = ThemeQuery((fiction,), (), "q", 0.8, "rules", "en", (since_2000,))
    assert conditions_define(bare, [], True, vocabulary, stem=True)
    # "科幻小说，别放刘慈欣": its one content word names the genre it requires
    scifi = ThemeQuery((FilterCondition("genre", ("科幻",), "MUST"),
                        FilterCondition("author", ("刘慈欣",), "MUST_NOT")), ("科幻小说",), "q", 0.8, "rules", "zh")
    assert conditions_define(scifi, ["科幻小说"], True, vocabulary, stem=False)
    # "Books in French": its one content word names the language it requires (the packs' words for fr)
    french = ThemeQuery((FilterCondition("language", ("fr",), "MUST"),), ("French",), "q", 0.8, "rules", "en")
    assert conditions_define(french, ["French"], True, vocabulary, stem=True)
    # a topic beyond the conditions, a wish, a brief that names a book, or one that requires nothing: no
    assert not conditions_define(bare, ["towns"], True, vocabulary, stem=True)
    wished = replace(bare, filter_conditions=(fiction, FilterCondition("emotional_tone", ("平静淡然",), "SHOULD")))
    assert not conditions_define(wished, [], True, vocabulary, stem=True)
    assert not conditions_define(bare, [], False, vocabulary, stem=True)
    assert not conditions_define(ThemeQuery((), (), "q", 0.8, "rules", "en"), [], True, vocabulary, stem=True)
    # such a brief's books fit whatever the weights say of them
    doubtful = Calibration({k: {"vector_z": 1.0} for k in KINDS}, {k: 0.0 for k in KINDS})
    assert probabilities(doubtful, [Evidence(vector_z=-4.0, defined=True)], "tagged")[0] == 1.0


def test_a_genre_mood_or_setting_brief_is_said_by_the_values_its_words_name():
    vocabulary = get_vocabulary()
    # "Quiet novels for a rainy night, alone": 'quiet' names a tone wished, 'rainy' a reading context, 'novels' the
    # form required; 'alone' names nothing the brief asks for
    query = ThemeQuery((FilterCondition("form", ("fiction",), "MUST"),
                        FilterCondition("emotional_tone", ("平静淡然", "忧伤怅惘"), "SHOULD"),
                        FilterCondition("reading_context", ("雨天窗前",), "SHOULD"),
                        FilterCondition("emotional_tone", ("温暖治愈",), "MUST_NOT")), (), "q", 0.8, "rules", "en")
    weights = {"quiet": 2.0, "novel": 1.0, "raini": 3.0, "alon": 2.0}
    said = brief_values(query, ["quiet", "novels", "rainy", "alone"], weights, vocabulary, stem=True, sure=0.6)
    tagged = lambda **tags: BookRecord("b", "B", tags=tags)  # noqa: E731
    # a novel holding the quiet tone and the rainy context surely: all but 'alone' ('novels', which every candidate
    # meets, says nothing of one over another)
    assert said.share(tagged(emotional_tone=("平静淡然",), reading_context=("雨天窗前",)), ()) == pytest.approx(5 / 7)
    # the tone wished is 'quiet' or 'melancholy': a melancholy book holds what 'quiet' says too
    assert said.share(tagged(emotional_tone=("忧伤怅惘",)), ()) == pytest.approx(2 / 7)
    # how many distinct things agree: the quiet tone and the rainy context two, the melancholy tone alone one, and a
    # book holding both tones wished for 'quiet' still says one word by two values of one wish
    assert said.agreeing(tagged(emotional_tone=("平静淡然",), reading_context=("雨天窗前",)), ()) == 2
    assert said.agreeing(tagged(emotional_tone=("忧伤怅惘",)), ()) == 1
    assert said.agreeing(tagged(emotional_tone=("平静淡然", "忧伤怅惘"), reading_context=("雨天窗前",)), ()) == 3
    # a guess under `sure` is no value held; one at it is
    guessed = replace(tagged(), facets=(Facet("reading_context", "雨天窗前", 0.5, "rules"),))
    assert said.share(guessed, ()) == 0.0
    assert said.share(replace(guessed, facets=(replace(guessed.facets[0], confidence=0.7),)), ()) == pytest.approx(3 / 7)
    # the heart-warming tone the brief excludes names nothing it says
    assert said.share(tagged(emotional_tone=("温暖治愈",)), ()) == 0.0
    # a topic matched by its words is said by the subject a book carries for it, not by one found by meaning alone
    sea = Subject("Sea stories", "heading", "en", 3, "heading", ("Sea stories",))
    topic = TopicSubjects(TopicPhrase("sea", 4, 7, "wanted"), (SubjectMatch("sea", sea, 0.8, "holds"),), "preferred")
    sea_query = replace(query, filter_conditions=(), subjects=(topic,))
    of_sea = brief_values(sea_query, ["sea", "salt"], {"sea": 1.0, "salt": 1.0}, vocabulary, stem=True, sure=0.6)
    carried = SubjectEvidence("b", "sea", "Sea stories", "heading", "holds", 0.8, "preferred", 3)
    assert of_sea.share(BookRecord("b", "B"), (carried,)) == pytest.approx(0.5)
    assert of_sea.share(BookRecord("b", "B"), (replace(carried, how="vector"),)) == 0.0
    # what the values say is the least a book's probability is: above the weights, above untied, below a named book
    doubtful = Calibration({k: {"vector_z": 1.0} for k in KINDS}, {k: 0.0 for k in KINDS})
    # (the probability is the share times how often a book holding all of it fits)
    p = probabilities(doubtful, [Evidence(vector_z=-4.0, said=1.0), Evidence(vector_z=-4.0, said=0.5, untied=True),
                                 Evidence(vector_z=4.0, said=0.1), Evidence(named=1.0, said=0.2)], "tagged")
    assert p[0] == SAID_TRUST and p[1] == pytest.approx(SAID_TRUST / 2) and p[2] > 0.9 and p[3] == 1.0
    # a book the order doubts (a children's book on a brief for grown-ups) is not lifted by its values: the weights'
    # probability stands
    lifted = probabilities(doubtful, [Evidence(vector_z=-4.0, said=1.0, doubtful=1.0),
                                      Evidence(vector_z=-4.0, alike=1.0, doubtful=1.0)], "tagged")
    assert np.all(lifted < 0.1)


def test_a_book_that_says_none_of_the_titles_filed_topic_is_unlikely_to_fit():
    vocabulary = get_vocabulary()
    # "Life and Drama at Sea" over a description of adventure and voyages: 'sea' and 'adventure' both matched
    # headings of the catalog by their words; the title says 'sea', so the sea is the shelf's topic
    sea = Subject("Sea stories", "heading", "en", 8, "subject", ("Sea stories",))
    adventure = Subject("Adventure stories", "heading", "en", 20, "subject", ("Adventure stories",))
    topics = (TopicSubjects(TopicPhrase("sea", 0, 3, "wanted"), (SubjectMatch("sea", sea, 0.8, "holds"),), "preferred"),
              TopicSubjects(TopicPhrase("adventure", 9, 18, "wanted"),
                            (SubjectMatch("adventure", adventure, 0.8, "holds"),), "preferred"))
    query = ThemeQuery((), ("sea", "adventure", "life"), "q", 0.8, "rules", "en", subjects=topics)
    weights = {"sea": 1.0, "adventur": 1.0, "life": 1.0}
    values = brief_values(query, ["sea", "adventure", "life"], weights, vocabulary, stem=True, sure=0.6,
                          title="Life and Drama at Sea")
    # 'life' is in the title too, but names no topic the catalog files: no test of a book
    assert [w.tokens for w in values.head_words()] == [("sea",)]
    books = {"island": BookRecord("island", "Treasure Island", summary="Pirates and a map.", language="en"),
             "sailor": BookRecord("sailor", "A Voyage", summary="Life at sea on a whaler.", language="en"),
             "land": BookRecord("land", "The Three Musketeers", summary="Swordsmen in Paris.", language="en"),
             "zh": BookRecord("zh", "海底两万里", summary="潜艇航行。", language="zh")}
    carried = {"island": (SubjectEvidence("island", "sea", "Sea stories", "heading", "holds", 0.8, "preferred", 8),),
               "land": (SubjectEvidence("land", "adventure", "Adventure stories", "heading", "holds", 0.8,
                                        "preferred", 20),)}
    candidates = [Candidate(b) for b in books]
    # the island carries the sea's heading, the whaler says 'sea'; the musketeers' adventure says nothing of the sea;
    # a book in the other language cannot say the brief's words and is not read so
    assert head_missing(candidates, query, books, values, carried, stem=True, tagged=False) == {"land"}
    # no candidate says the head's words: no test
    assert head_missing(candidates[2:], query, books, values, carried, stem=True, tagged=False) == set()
    # a brief without a description has no title apart from its words
    untitled = brief_values(query, ["sea", "adventure"], weights, vocabulary, stem=True, sure=0.6)
    assert head_missing(candidates, query, books, untitled, carried, stem=True, tagged=False) == set()
    # the weights' probability, and what the values say, stop at HEADLESS_FIT; a named book is not capped
    doubtful = Calibration({k: {"vector_z": 1.0} for k in KINDS}, {k: 0.0 for k in KINDS})
    p = probabilities(doubtful, [Evidence(vector_z=4.0, headless=True), Evidence(said=1.0, headless=True),
                                 Evidence(named=1.0, headless=True), Evidence(vector_z=4.0)], "tagged")
    assert p[0] == p[1] == HEADLESS_FIT and p[2] == 1.0 and p[3] > 0.9


def test_a_book_the_order_marked_doubtful_says_so_in_its_evidence():
    books = {b: BookRecord(b, b.title()) for b in ("novel", "picture-book")}
    candidates = [Candidate("novel"), Candidate("picture-book", doubtful=True)]
    query = ThemeQuery((), (), "", 1.0, "rules", "en")
    found = gather_evidence(candidates, query, books, [], {}, {}, {}, {}, {}, True)
    assert [e.doubtful for e in found] == [0.0, 1.0]


class BookVectors:
    """What topic_vector reads of an index version: the stored vectors of the books it names."""

    def __init__(self, vectors: dict[str, np.ndarray]):
        self.vectors = vectors

    def book_vectors(self, book_ids):
        return {b: self.vectors[b] for b in book_ids if b in self.vectors}


def test_a_read_alikes_closeness_is_read_against_its_book_as_much_as_its_words(embedder):
    stoner, quiet, space = embedder.embed_documents([
        "Stoner: the quiet life of a farm boy who becomes an assistant professor of English, his unhappy marriage "
        "and his love of literature, told as he looks back.",
        "A small-town teacher's uneventful life, his friendships and his marriage, remembered in old age.",
        "A starship crew fights an alien armada at the edge of the galaxy."])
    brief = embedder.embed_queries(["Books like Stoner"])[0]
    index = BookVectors({"stoner": stoner})
    topic = topic_vector(brief, ["stoner", "stoner"], index)
    assert np.linalg.norm(topic) == pytest.approx(1.0)
    unit = lambda v: v / np.linalg.norm(v)  # noqa: E731
    assert float(topic @ unit(brief)) == pytest.approx(float(topic @ unit(stoner)))  # both weigh as much
    # the quiet novel stands further ahead of the space opera against the book than against the brief's few words
    assert float(topic @ quiet - topic @ space) > float(brief @ quiet - brief @ space)
    # a brief naming no book, or books the version lacks, is read against its own vector
    assert np.array_equal(topic_vector(brief, [], index), brief)
    assert np.array_equal(topic_vector(brief, ["gone"], index), brief)


def test_the_floor_keeps_only_books_likely_to_fit():
    scored = [Candidate("a", relevance=0.9), Candidate("b", relevance=0.1), Candidate("c", relevance=0.3)]
    assert [c.book_id for c in fitting(scored, 0.2)] == ["a", "c"]
    assert expected_fit_share([0.9, 0.3]) == pytest.approx(0.6)


def test_what_a_probability_stands_on_decides_the_floor_a_book_must_clear(tmp_path):
    heading, words, vector = Evidence(subject_lexical=1.0), Evidence(cover=0.3), Evidence(vector_z=2.0)
    mood = Evidence(said=1.0, said_values=1)  # one value says all of the brief, its record nothing else
    moods = Evidence(said=0.75, said_values=2)  # two values of different kinds say most of it
    assert [standing(e, 0.5) for e in (heading, words, vector, Evidence(named=1.0))] == [HEADING, WORDS, VECTOR, NAMED]
    assert standing(mood, 0.1) == SAID_FULL and standing(mood, 0.9) == VECTOR  # lifted only above the weights
    assert standing(moods, 0.1) == AGREEING and standing(Evidence(alike=0.6, said_values=2), 0.1) == AGREEING
    admission = Admission({HEADING: 0.6, WORDS: 0.6}, {SAID_FULL: 0.3})
    scored = [(Candidate("h", relevance=0.5), heading, 0.5), (Candidate("h2", relevance=0.65), heading, 0.65),
              (Candidate("w", relevance=0.45), words, 0.45), (Candidate("v", relevance=0.45), vector, 0.45),
              (Candidate("m", relevance=SAID_TRUST), mood, 0.1), (Candidate("m2", relevance=SAID_TRUST), mood, 0.35),
              (Candidate("a", relevance=0.56), moods, 0.1), (Candidate("u"), vector, 0.0)]
    kept = admitted(*map(list, zip(*scored)), 0.4, admission)
    # a heading or the brief's words alone at 0.4-0.6 wait for 0.6, a vector-only book the floor; a book one value
    # lifts needs the weights' own support, one that values agreeing lift the support of its kind (none here); one
    # never scored counts as fitting
    assert [c.book_id for c in kept] == ["h2", "v", "m2", "a", "u"]
    # without evidence (nothing calibrated) the floor alone holds; an empty admission is the floor alone
    assert [c.book_id for c in admitted([c for c, _, _ in scored], [], [], 0.4, admission)] == \
        ["h", "h2", "w", "v", "m", "m2", "a", "u"]
    assert len(admitted(*map(list, zip(*scored)), 0.4, Admission())) == 8
    bad = tmp_path / "relevance.yaml"
    bad.write_text("admission:\n  kinds:\n    tagged:\n      floors:\n        headings: 0.6\n", encoding="utf-8")
    with pytest.raises(ValueError, match="headings"):
        read_admission(bad, "tagged")
    bad.write_text("admission:\n  kinds:\n    tagged:\n      supports:\n        heading match: 0.3\n",
                   encoding="utf-8")
    with pytest.raises(ValueError, match="heading match"):  # a support is asked only of a book its values lift
        read_admission(bad, "tagged")


ZH = BookRecord("zh-1", "某书", language="zh")
ZH_OFF = BookRecord("zh-2", "别的书", language="zh")
EN = BookRecord("en-1", "A Book", language="en")
EN_TOO = BookRecord("en-2", "Another Book", language="en")
BOOKS = {b.book_id: b for b in (ZH, ZH_OFF, EN, EN_TOO)}


def test_language_breaks_ties_among_fitting_books_and_never_shelves_one_that_does_not_fit():
    chinese_first = LanguageChoice("zh", "first")
    ranked = [Candidate("en-1", relevance=0.95), Candidate("zh-1", relevance=0.91),
              Candidate("en-2", relevance=0.62), Candidate("zh-2", relevance=0.05)]
    ordered = prefer_language(fitting(ranked, 0.2), BOOKS, chinese_first, by_relevance=True)
    # within one band (0.9-1.0) the brief's language first; a likelier English book before a less likely Chinese
    # one; the off-topic Chinese book is on no shelf
    assert [c.book_id for c in ordered] == ["zh-1", "en-1", "en-2"]
    # without relevance the preference orders as it always did
    assert [c.book_id for c in prefer_language(ranked, BOOKS, chinese_first)] == ["zh-1", "zh-2", "en-1", "en-2"]


def test_the_why_cites_content_words_never_a_filler_or_a_count():
    # "something" and "day" are no BM25 token of the brief (a stopword, a word most books hold); 三本 and 2024 count
    words = content_words(["beekeeping", "something", "三本", "2024", "honey", "day"], ["beekeep", "honey"], "en",
                          stem=True)
    assert words == ["beekeeping", "honey"]


def short_fit(share: float, likely: int = 4) -> Fit:
    return Fit(likely, share, allowed=300, topic=("whales", "sea"),
               topics=(("genre", "科普", 23), ("subject", "Whaling -- Fiction", 5)))


def test_done_promises_the_set_share_of_the_shelf_fits():
    query = ThemeQuery((), ("whales", "sea"), "q", 0.8, "rules", "en")
    settings = GatingSettings(done_fit_share=0.9)
    assert gate(query, 30, ShelfLimits(), [], settings, fit=short_fit(0.95)).status == "done"
    verdict = gate(query, 30, ShelfLimits(), [], settings, fit=short_fit(0.6))
    assert verdict.status == "needs_review" and verdict.question.kind == "few_fit"
    # the reason says how many of the shelf's books are likely to fit, and the share a done shelf asks
    assert verdict.reasons == ("about 18 of its 30 books are likely to fit (60%; a shelf is done from 90%)",)
    # a short shelf whose catalog holds enough books meeting its conditions: too few fit, said with the count
    short = gate(query, 4, ShelfLimits(), [], settings, fit=short_fit(0.7))
    assert short.limited_by == "few_fit"
    assert short.reasons == ("only 4 books likely enough to fit the brief (fewer than 10), of 300 meeting its "
                             "conditions",)
    assert question_text(short.question, "en") == ("Only 4 books in this catalog are about 'whales', 'sea': widen to "
                                                   "a nearby topic, or lower the relevance floor?")
    assert question_text(short.question, "zh") == "本馆只有 4 种关于「whales」、「sea」的书，要围绕相近的主题，还是降低相关度门槛？"
    options = option_texts(short.question, "en")
    assert options[:2] == ("about: popular science (23 books)", "about: 'Whaling -- Fiction' (5 books)")
    assert options[-1].startswith("lower the relevance floor")


def test_books_without_a_copy_limit_a_shelf_only_as_far_as_they_are_likely_to_fit():
    query = ThemeQuery((FilterCondition("form", ("fiction",), "MUST"),), ("towns",), "q", 0.8, "rules", "en",
                       (NumericCondition("pub_year", ">=", 1950),))
    # 12 novels after 1950 have no copy, but 9 of the 114 with one fit small towns: about 1 of the 12 does
    fit = Fit(9, 0.8, allowed=114, topic=("towns",))
    assert likely_fitting(12, fit) == 1 and likely_fitting(12, None) == 12
    # 60 without a copy, of which about 5 fit, are what limits a shelf of 9; 12 are not: too few fit the topic
    assert gate(query, 9, ShelfLimits(unavailable=likely_fitting(60, fit)), [], GatingSettings(),
                fit=fit).limited_by == "availability"
    assert gate(query, 4, ShelfLimits(unavailable=likely_fitting(12, fit)), [], GatingSettings(),
                fit=replace(fit, likely=4)).limited_by == "few_fit"


def test_a_topic_no_book_of_the_catalog_fits_says_none_and_offers_the_nearest_topics():
    query = ThemeQuery((), ("whales", "sea"), "q", 0.8, "rules", "en")
    verdict = gate(query, 3, ShelfLimits(), [], GatingSettings(), fit=short_fit(0.1, likely=0))
    assert verdict.question.kind == "few_fit" and verdict.question.count == 0
    assert question_text(verdict.question, "en").startswith("No book in this catalog is about 'whales', 'sea'")
    assert question_text(verdict.question, "zh").startswith("本馆没有关于「whales」、「sea」的书")
    assert option_texts(verdict.question, "en")[0] == "about: popular science (23 books)"
