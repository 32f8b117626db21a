"""Hard conditions a librarian would not set (issues 29 and 30): kinds joined as a list are one-of."""

import pytest

from tasks.model.themes import Theme
from tasks.understanding.reading import read_brief
from tasks.understanding.translate.rules import RulesTranslator


def hard(vocabulary, brief: str) -> set[tuple[str, str, str]]:
    theme = Theme("b", "t", theme_name=brief)
    query = RulesTranslator(vocabulary).translate(theme, read_brief(theme.brief, vocabulary))
    return {(c.field, v, c.operator) for c in query.filter_conditions if c.operator != "SHOULD" for v in c.values}


@pytest.mark.parametrize("brief", ["Novels and story collections about immigrants",
                                   "Story collections and novels about immigrants",
                                   "长篇小说和短篇小说集，写移民的", "短篇小说集和长篇小说，写移民的"])
def test_a_form_and_a_genre_of_it_joined_by_and_require_the_form_only(vocabulary, brief):
    # before: MUST genre 短篇小说集 as well, so no novel could be shelved
    assert hard(vocabulary, brief) == {("form", "fiction", "MUST")}


@pytest.mark.parametrize("brief", ["Story collections or novels about immigrants", "短篇小说集或小说，写移民的"])
def test_a_choice_between_them_stays_one_of(vocabulary, brief):
    assert hard(vocabulary, brief) == {("form", "fiction", "MUST")}


@pytest.mark.parametrize("brief", ["科幻小说", "science fiction short stories"])
def test_kinds_side_by_side_still_describe_one_book(vocabulary, brief):
    assert ("genre", "科幻", "MUST") in hard(vocabulary, brief)
