"""A curator's review applied to a ranked list: kept books in place, removed ones never back, the same answers
giving the same shelf however often they are applied."""

from hypothesis import given
from hypothesis import strategies as st

from tasks.model.books import BookRecord
from tasks.model.query import Candidate, ThemeQuery
from tasks.model.review import ThemeReview, option_actions
from tasks.model.shelf import Question
from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.ranking.shelf import select_shelf

QUERY = ThemeQuery((), (), "q", 1.0, "rules")


def reshelve(ranked: list[str], review: ThemeReview, size: int) -> list[str]:
    """What ranking does with a review: select around the kept and removed books, then place them."""
    books = {b: BookRecord(b, b.upper(), authors=(f"author of {b}",)) for b in ranked}
    candidates = [Candidate(b) for b in ranked]
    pinned = frozenset(b for b in review.pinned if b in books)
    chosen = select_shelf(candidates, books, review.removed | pinned, QUERY, max(size - len(pinned), 0), 2)
    placed = review.place(chosen.entries, {c.book_id: c for c in candidates}, books, size)
    assert [e.rank for e in placed] == list(range(1, len(placed) + 1))
    return [e.book.book_id for e in placed]


@st.composite
def reviews(draw):
    ranked = [f"b{i}" for i in draw(st.permutations(range(draw(st.integers(0, 30)))))]
    size = draw(st.integers(1, 12))
    previous = ranked[:size]
    verdicts = draw(st.lists(st.sampled_from(["keep", "drop", "replace", None]), min_size=len(previous),
                             max_size=len(previous)))
    marked = {v: {b: i for i, (b, w) in enumerate(zip(previous, verdicts), start=1) if w == v}
              for v in ("keep", "drop", "replace")}
    review = ThemeReview(marked["keep"], frozenset(marked["drop"]), frozenset(marked["replace"]),
                         previous=tuple(previous))
    return draw(st.permutations(ranked)), review, size


@given(reviews())
def test_the_same_answers_applied_twice_give_the_same_shelf(case):
    ranked, review, size = case
    first = reshelve(ranked, review, size)
    assert reshelve(list(ranked), review, size) == first
    assert not set(first) & review.removed
    for book, rank in review.pinned.items():  # in its place, unless too few books are left to reach it
        assert first[rank - 1] == book if rank <= len(first) else book in first
    assert len(first) == min(size, len(ranked) - len(review.removed))
    assert len(set(first)) == len(first)


def test_a_replaced_books_place_goes_to_the_best_new_book_and_a_dropped_ones_closes_up():
    review = ThemeReview({"a": 1}, frozenset({"b"}), frozenset({"d"}), previous=("a", "b", "c", "d", "e"))
    shelf = reshelve(["a", "b", "c", "d", "e", "f", "g"], review, 5)
    assert shelf == ["a", "c", "e", "f", "g"]  # f, new, takes d's place 4; b's closes up: c, e move up
    assert ThemeReview().changes([]) == {}


def test_each_offered_option_has_its_action_in_the_same_order():
    pages = NumericCondition("pages", "<=", 300)
    tone = FilterCondition("emotional_tone", ("温暖治愈",), "MUST_NOT")
    actions = option_actions(Question("conditions", relax=(pages, tone)))
    assert actions == ({"kind": "drop", "conditions": [pages.to_dict()]},
                       {"kind": "drop", "conditions": [tone.to_dict()]})
    query = ThemeQuery((tone,), (), "q", 1.0, "rules", numeric_conditions=(pages,))
    assert ThemeReview(action=actions[0]).amend(query).numeric_conditions == ()
    assert ThemeReview(action=actions[1]).amend(query).filter_conditions == ()
    assert option_actions(Question("unchecked", relax=(tone,)))[0] == {"kind": "accept"}


def test_a_subject_question_offers_each_reading_as_a_wish_it_can_act_on():
    # "推理": mystery novels (a tag) or logic (a class range of several codes): every offered reading has its action
    mystery = FilterCondition("genre", ("推理",), "SHOULD")
    logic = FilterCondition("classification", ("clc:B81", "clc:B812"), "SHOULD")
    question = Question("subject", topic="推理", readings=(("推理小说", 12), ("逻辑", 3)), wishes=(mystery, logic))
    actions = option_actions(question)
    assert len(actions) == len(question.readings)
    assert [ThemeReview(action=a).amend(QUERY).filter_conditions for a in actions] == [(mystery,), (logic,)]
