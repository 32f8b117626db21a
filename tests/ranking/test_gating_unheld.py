"""A brief the catalog cannot fill: the count of books that fit, its topic as the brief named it, and the nearest
topics the catalog holds with their counts, in the brief's language; never "done"."""

import pytest
import yaml

from config.settings import GatingSettings
from tasks.export.wording import option_texts, question_text
from tasks.model.query import ThemeQuery
from tasks.model.review import ThemeReview, option_actions
from tasks.ranking.gating import Fit, ShelfLimits, brief_topic, gate

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
    ("Chess strategy for beginners, 2 shelves", "en", ("chess", "strategy", "beginners")),
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


def test_a_chinese_brief_is_asked_in_chinese_with_the_chinese_headings_and_the_books_close_in_meaning():
    query, fit = unheld("zh", likely=2, named=("养蜂",))
    verdict = gate(query, 2, ShelfLimits(), [], SETTINGS, recognised=False, fit=fit)
    assert question_text(verdict.question, "zh") == ("本馆没有归在「养蜂」主题下的书（馆藏的主题和文字里都没有它），"
                                                     "意思相近的有 2 种，要围绕相近的主题，还是降低相关度门槛？")
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


@pytest.mark.slow
@pytest.mark.parametrize("brief, said, counted", [("books on beekeeping", "'beekeeping'", " books)"),
                                                  ("关于养蜂的书", "「养蜂」", " 种）")])
def test_shelfwise_try_on_the_demo_says_the_catalog_files_nothing_under_beekeeping(demo_workspace, capsys, brief, said,
                                                                                   counted):
    from flows.cli import main as shelfwise

    capsys.readouterr()
    assert shelfwise(["try", "--yaml", brief]) == 0
    gating = yaml.safe_load(capsys.readouterr().out)["gating"]
    assert gating["status"] == "needs_review" and said in gating["question"]
    # the nearest topics the demo holds, each with its count, and the lower floor: never an empty question
    topics, floor = gating["options"][:-1], gating["options"][-1]
    assert topics and all(o.endswith(counted) for o in topics)
    assert floor.startswith(("降低相关度门槛", "lower the relevance floor"))


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
