"""A brief the catalog cannot fill: the count of books that fit, its topic as the brief named it, and the nearest
topics the catalog holds with their counts, in the brief's language; never "done"."""

import numpy as np
import pytest
import yaml

from config.settings import GatingSettings
from tasks.export.wording import option_texts, question_text
from tasks.model.books import BookRecord
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.review import ThemeReview, option_actions
from tasks.model.subjects import Subject
from tasks.ranking.gating import (
    NEAR_TOPIC,
    Fit,
    ShelfLimits,
    brief_topic,
    evidenced,
    gate,
    letter_shapes,
    nearest_held,
    unread,
)
from tasks.ranking.relevance import Evidence
from tasks.understanding.subjects import SubjectVocabulary

SETTINGS = GatingSettings(min_books=10)
NEAREST = (("genre", "科普", 23), ("subject", "Insects", 4), ("subject", "昆虫", 3), ("subject", "科普", 8),
           ("subject", "Natural history", 6))


def unheld(language: str, likely: int = 0, named: tuple[str, ...] = ("beekeeping",)) -> tuple[ThemeQuery, Fit]:
    # what ranking gives a brief none of whose words the catalog holds: no keyword, no subject, intent unknown
    query = ThemeQuery((), (), "books on beekeeping", 0.35, "rules", language)
    return query, Fit(likely, 0.3, allowed=307, topic=("try",), topics=NEAREST, named=named)


@pytest.mark.parametrize("brief, language, words", [
    ("books on beekeeping", "en", ("beekeeping",)),
    ("关于养蜂的书", "zh", ("养蜂",)),
    ("国际象棋棋谱与战术", "zh", ("国际象棋", "棋谱", "战术")),  # jieba's parts of 国际象棋 said once, in it
    # the reader's level is no topic: "beginners", 入门 and 初学者 (none of its parts 初学, 学者 either)
    ("Chess strategy for beginners, 2 shelves", "en", ("chess", "strategy")),
    ("国际象棋入门", "zh", ("国际象棋",)),
    ("适合初学者的摄影书", "zh", ("摄影",)),
])
def test_the_topic_is_named_by_the_briefs_own_words_held_by_the_catalog_or_not(brief, language, words):
    assert brief_topic(brief, language) == words


def test_a_topic_the_catalog_files_no_book_under_says_so_with_the_count_and_the_nearest_topics():
    query, fit = unheld("en")
    verdict = gate(query, 0, ShelfLimits(), [], SETTINGS, recognised=False, fit=fit)
    assert verdict.status == "needs_review" and verdict.question.kind == "unheld"
    assert verdict.question.count == 0 and verdict.question.content == ("beekeeping",)
    assert verdict.reasons[0].startswith("the catalog files no book under the brief's topic (beekeeping)")
    assert question_text(verdict.question, "en").startswith("No book in this catalog is filed under 'beekeeping'")
    # headings in the brief's language first, each wording once, three at most; then the lower floor
    assert option_texts(verdict.question, "en") == (
        "about: popular science (23 books)", "about: 'Insects' (4 books)", "about: 'Natural history' (6 books)",
        "lower the relevance floor (shelve books less sure to fit)")
    # what the workbook offers, the review can do: wish for the topic, or lower the floor
    actions = option_actions(verdict.question)
    assert len(actions) == len(option_texts(verdict.question, "en"))
    assert actions[1] == {"kind": "wish", "field": "subject", "value": "Insects"}
    assert ThemeReview(action=actions[-1]).floor(0.4) == pytest.approx(0.2)
    assert ThemeReview(action=actions[0]).floor(0.4) == 0.4


def test_a_chinese_brief_is_asked_in_chinese_with_the_chinese_headings_and_the_books_tied_to_it():
    query, fit = unheld("zh", likely=2, named=("养蜂",))
    verdict = gate(query, 2, ShelfLimits(), [], SETTINGS, recognised=False, fit=fit)
    assert question_text(verdict.question, "zh") == ("本馆没有归在「养蜂」主题下的书（馆藏的主题和文字里都没有它），"
                                                     "记录与它相关的只有 2 种，要围绕相近的主题，还是降低相关度门槛？")
    # the heading 科普 is the genre 科普 already offered: said once
    assert option_texts(verdict.question, "zh") == ("围绕：科普（23 种）", "围绕：「昆虫」（3 种）",
                                                    "降低相关度门槛（放入不太确定是否符合的书）")


def test_an_unheld_topic_is_never_done_even_on_a_full_shelf_of_books_close_in_meaning():
    query, fit = unheld("en", likely=30)
    verdict = gate(query, 30, ShelfLimits(), [], SETTINGS, recognised=False, fit=fit)
    assert verdict.status == "needs_review" and verdict.question.kind == "unheld"


def test_an_unrecognised_brief_without_words_or_a_relevance_model_still_asks_what_it_is_about():
    query, fit = unheld("en", named=())
    for without in (fit, None):
        verdict = gate(query, 3, ShelfLimits(), [], SETTINGS, recognised=False, fit=without)
        assert verdict.question.kind == "unrecognised"


def subjects(*rows: tuple[str, str, int, str, float]) -> SubjectVocabulary:
    """Subjects (label, kind, books, field) whose vectors stand at the given similarity to the topic vector [1, 0]."""
    made = tuple(Subject(label, kind, "en", books, field, (label,)) for label, kind, books, field, _ in rows)
    vectors = np.array([[sim, np.sqrt(1 - sim * sim)] for *_, sim in rows], dtype=np.float32)
    return SubjectVocabulary(made, vectors)


TOPIC = np.array([1.0, 0.0], dtype=np.float32)


def test_the_nearest_topics_are_the_catalogs_subjects_near_the_topic_and_broader_than_what_fits():
    held = subjects(("Bee culture", "heading", 2, "heading", 0.9),  # what fits itself: no wider
                    ("Insects", "part", 6, "heading", 0.7),
                    ("小说", "tag", 123, "genre", 0.6),  # the catalog's bulk (over a quarter of 328)
                    ("科普", "tag", 23, "genre", 0.55),
                    ("calm", "tag", 40, "emotional_tone", 0.55),  # a mood is no topic
                    ("American literature", "class", 69, "classification", 0.55),
                    ("Natural history", "part", 9, "heading", 0.52),
                    ("Encyclopedias and dictionaries", "heading", 28, "heading", NEAR_TOPIC - 0.05))  # not near
    assert nearest_held(TOPIC, held, fitting=2, catalog=328) == (
        ("subject", "Insects", 6), ("genre", "科普", 23), ("subject", "Natural history", 9))
    # a topic nothing of the catalog is near: none offered, never its largest genre
    assert nearest_held(TOPIC, subjects(("小说", "tag", 60, "genre", 0.3)), fitting=0, catalog=328) == ()


def test_the_nearest_topics_are_looked_for_among_the_nearest_subjects_only():
    # ten near subjects no wider than what fits, then a wide one just as near: a neighbour's neighbour, not offered
    # ("Chinese fiction" had been offered for Russian novels when the Russian headings held fewer books than fit)
    narrow = [(f"Russian fiction {i}", "heading", 5, "heading", 0.7 - i / 100) for i in range(10)]
    held = subjects(*narrow, ("Chinese fiction", "heading", 14, "heading", 0.55))
    assert nearest_held(TOPIC, held, fitting=9, catalog=923) == ()
    assert nearest_held(TOPIC, subjects(*narrow[:9], ("Chinese fiction", "heading", 14, "heading", 0.55)),
                        fitting=9, catalog=923) == (("subject", "Chinese fiction", 14),)


def test_a_broader_topic_the_fitting_books_are_filed_under_is_offered_where_every_nearer_one_is_theirs_alone():
    # whales on the demo: Moby-Dick alone fits, every heading near whales is its own; "Sea stories" it is filed under
    # holds more books, and stands near enough; "Adventure stories" does not
    held = subjects(("Whales -- Fiction", "heading", 1, "heading", 0.91),
                    ("Whaling -- Fiction", "heading", 1, "heading", 0.58),
                    ("Sea stories", "heading", 3, "heading", 0.36),
                    ("Adventure stories", "heading", 5, "heading", 0.18),
                    ("Ghost stories", "heading", 4, "heading", 0.4))  # as near, but no fitting book's
    filed = {("subject", "Whales -- Fiction"), ("subject", "Sea stories"), ("subject", "Adventure stories")}
    assert nearest_held(TOPIC, held, fitting=1, catalog=328, filed=filed) == (("subject", "Sea stories", 3),)
    assert nearest_held(TOPIC, held, fitting=1, catalog=328) == ()


def test_beside_an_unheld_topic_only_books_their_records_tie_to_the_brief_stay():
    candidates = [Candidate("near"), Candidate("said"), Candidate("filed")]
    evidence = [Evidence(vector_z=3.0, sentence=0.8), Evidence(vector_z=1.0, cover=0.6),
                Evidence(vector_z=1.0, heading=1.0)]
    kept = evidenced(candidates, candidates, evidence, [0.7, 0.6, 0.8])
    assert [c.book_id for c in kept] == ["said", "filed"]
    # only the admissible ones are read: a book the floor left out does not come back
    assert [c.book_id for c in evidenced(candidates[:2], candidates, evidence, [0.7, 0.6, 0.8])] == ["said"]


RECORDS = [BookRecord("a", "The beekeeper's week", summary="A keeper of bees spends the spring sleeping in the "
                                                             "orchard; knitting patterns of the village."),
           BookRecord("b", "Chess for the young", summary="Strategy and photographs", subjects=("Chess -- Fiction",))]


def test_a_word_of_no_words_shape_is_unread_and_a_word_the_catalog_lacks_is_not():
    shapes = letter_shapes(RECORDS)
    assert unread(("beekeeping", "xqzv", "kwempf", "养蜂", "photography"), shapes) == ("xqzv", "kwempf")
    assert unread(("xqzv",), frozenset()) == ()  # a catalog with no word written in letters judges none


@pytest.mark.parametrize("language, asked", [
    ("en", "The brief's 'xqzv', 'kwempf' could not be read as words: what should this shelf be about?"),
    ("zh", "没能读懂简介里的「xqzv」、「kwempf」（不像是词），这个书架想围绕什么？"),
])
def test_a_brief_not_read_is_asked_what_it_is_about_naming_the_words_it_could_not_read(language, asked):
    query = ThemeQuery((), (), "xqzv blorpt kwempf", 0.35, "rules", language)
    fit = Fit(0, 0.0, allowed=307, topic=("blorpt",), topics=NEAREST, named=("blorpt",), unread=("xqzv", "kwempf"))
    verdict = gate(query, 0, ShelfLimits(), [], SETTINGS, recognised=False, fit=fit)
    assert verdict.status == "needs_review" and verdict.question.kind == "unread"
    assert question_text(verdict.question, language) == asked
    assert option_texts(verdict.question, language) == () and option_actions(verdict.question) == ()
    # a word read beside one not: the word read is the topic, asked about as one the catalog does not hold
    fewer = gate(query, 0, ShelfLimits(), [], SETTINGS, recognised=False,
                 fit=Fit(0, 0.0, allowed=307, topics=NEAREST, named=("beekeeping", "hives"), unread=("xqzv",)))
    assert fewer.question.kind == "unheld" and fewer.question.content == ("beekeeping", "hives")


def test_a_topic_held_by_one_book_is_offered_as_one_book():
    query, fit = unheld("en")
    verdict = gate(query, 0, ShelfLimits(), [], SETTINGS, recognised=False,
                   fit=Fit(0, 0.0, allowed=307, topics=(("subject", "Insects", 1),), named=("beekeeping",)))
    assert option_texts(verdict.question, "en")[0] == "about: 'Insects' (1 book)"


@pytest.mark.slow
@pytest.mark.parametrize("brief, said, counted", [("books on beekeeping", "'beekeeping'", (" books)", " book)")),
                                                  ("关于养蜂的书", "「养蜂」", (" 种）",))])
def test_shelfwise_try_on_the_demo_says_the_catalog_files_nothing_under_beekeeping(demo_workspace, capsys, brief, said,
                                                                                   counted):
    from flows.cli import main as shelfwise

    capsys.readouterr()
    assert shelfwise(["try", "--yaml", brief]) == 0
    report = yaml.safe_load(capsys.readouterr().out)
    gating = report["gating"]
    assert gating["status"] == "needs_review" and said in gating["question"]
    # the demo's subjects near bees (昆虫, Insects), each with its count, and the lower floor
    topics, floor = gating["options"][:-1], gating["options"][-1]
    assert topics and all(o.endswith(counted) for o in topics)
    assert floor.startswith(("降低相关度门槛", "lower the relevance floor"))
    # no book beside the question: none of the demo's is about bees, its books near them in meaning are not shelved
    assert report["shelf"] == []


@pytest.mark.slow
def test_shelfwise_try_on_the_demo_asks_about_a_brief_of_keys_naming_what_it_could_not_read(demo_workspace, capsys):
    from flows.cli import main as shelfwise

    capsys.readouterr()
    assert shelfwise(["try", "--yaml", "xqzv blorpt kwempf"]) == 0
    report = yaml.safe_load(capsys.readouterr().out)
    assert report["gating"]["question"].startswith("The brief's 'xqzv', 'kwempf' could not be read as words")
    assert report["shelf"] == []


@pytest.mark.slow
def test_answering_lower_the_floor_shelves_more_books_close_to_an_unheld_topic_still_under_review(demo_workspace):
    from config.vocabulary import get_vocabulary
    from tasks.model.themes import Theme
    from tasks.shelving import build_context, shelve

    ctx = build_context(demo_workspace, get_vocabulary())
    theme = Theme("bees", "bees", "books on beekeeping")
    asked = shelve(theme, [], ctx)
    lowered = shelve(theme, [], ctx, ThemeReview(action=option_actions(asked.verdict.question)[-1]))
    assert len(lowered.entries) > len(asked.entries)
    # books less sure to fit do not make a shelf on a topic the catalog files nothing under "done"
    assert lowered.status == "needs_review" and lowered.verdict.question.kind == "unheld"
