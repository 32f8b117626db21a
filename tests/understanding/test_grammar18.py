"""Reader round eighteen: a verb of wanting after who wants it (`wanting` after `person`, cues.yaml) is neither a value,
a keyword nor a meaning. Each test fails without its mechanism (its pack rows or its rule)."""

import pytest

from config.vocabulary import get_vocabulary
from tasks.understanding.cues import load_cues
from tasks.understanding.meanings import with_meanings
from tasks.understanding.reading import WANTED, read_brief
from tasks.understanding.topics import brief_keywords

ROMANTIC = ("emotional_tone", "浪漫深情", WANTED)


def read(brief: str, embedder):
    vocabulary = get_vocabulary()
    return with_meanings(read_brief(brief, vocabulary), embedder, vocabulary, load_cues())


@pytest.mark.parametrize("brief, topic", [
    ("Tales for an eight-year-old who loves ponies", "ponies"),
    ("Our teen volunteers picked these for anyone who adores trains", "trains"),
    ("Mysteries for a grandmother who enjoys gardening", "gardening"),
])
def test_who_loves_a_thing_asks_for_the_thing_not_for_love(brief, topic, embedder):
    """The verb's object is the topic; the verb had read as a love story ('loves' a keyword matching the heading
    'Love stories', the clause's meaning near 浪漫深情)."""
    reading = read(brief, embedder)
    assert ROMANTIC not in {(m.field, m.value, m.polarity) for m in reading.mentions}, reading.mentions
    keywords = brief_keywords([(brief, False)], "en", load_cues())
    assert topic in keywords and not {"love", "loves", "adores", "enjoys"} & set(keywords), keywords


@pytest.mark.parametrize("brief", ["Love stories to read on Valentine's Day", "A weekend of romance: she loves him"])
def test_love_as_the_brief_s_own_topic_stays_romantic(brief, embedder):
    # "she" wants nothing of the library: only who asks (who, we, I, you) makes the verb a wish
    assert ROMANTIC in {(m.field, m.value, m.polarity) for m in read(brief, embedder).mentions}


def conditions(brief: str):
    from tasks.understanding.translate.rules import conditions_of

    vocabulary = get_vocabulary()
    return conditions_of(read_brief(brief, vocabulary), vocabulary)


@pytest.mark.parametrize("brief", [
    "Novels about kids who run away to the city",
    "A few true stories concerning children in wartime",
    "关于乡村儿童的长篇小说",
    "讲述孩子们在战争中长大的小说",
])
def test_readers_words_after_an_about_word_are_what_the_books_are_about(brief):
    """readings.yaml `people_about` and rules._people_as_topics: the people a book is about are no audience (the
    shelf had been children's books whatever their topic)."""
    assert not any(c.field == "audience" for c in conditions(brief)), conditions(brief)


@pytest.mark.parametrize("brief", ["Picture books about trains for toddlers", "写给孩子的童话", "Poems for kids about kids",
                                   "给孩子讲历史的书"])
def test_readers_named_for_whom_stay_readers(brief):
    # a for-whom word between the about-word and the readers gives them back (and none before: only readers)
    assert any(c.field == "audience" and c.operator == "MUST" for c in conditions(brief)), conditions(brief)


@pytest.mark.parametrize("brief, nation", [
    ("Family sagas and other Japanese wartime novels", "japanese"),
    ("Some German crime-scene thrillers for the long weekend", "german"),
    ("Cheerful Russian winter novels for a long evening", "russian"),
])
def test_a_nations_literature_reads_past_one_or_two_modifiers_before_its_kind(brief, nation):
    """analysis._kind_after_words: "Korean healing fiction" is Korean literature; the qualifier had had to stand
    right before the kind."""
    assert any(c.field == "literature" and nation in c.values and c.operator == "SHOULD"
               for c in conditions(brief)), conditions(brief)


def test_a_capitalised_word_between_names_a_topic_of_its_own():
    # "American Civil War fiction" is about the war, whoever wrote it
    assert not any(c.field == "literature" and "american" in c.values and c.operator != "MUST_NOT"
                   for c in conditions("American Civil War fiction for the history club"))


@pytest.mark.parametrize("brief", ["这个月的展架围绕沈从文，小说散文都要", "A display built around Kazuo Ishiguro for the book club"])
def test_a_spotlight_word_before_an_authors_name_makes_the_shelf_theirs(brief):
    """readings.yaml `spotlight_before` in entities._featured: the author named after it is what the shelf is about;
    the name alone beside other words had been a theme shelf."""
    from tasks.model.intent import Intent
    from tasks.understanding.entities import EntityIndex, understand_reading
    from tasks.model.books import BookRecord

    index = EntityIndex.build([BookRecord("a", "边城", authors=("沈从文",)), BookRecord("b", "长河", authors=("沈从文",)),
                               BookRecord("c", "Never Let Me Go", authors=("Kazuo Ishiguro",)),
                               BookRecord("d", "Klara and the Sun", authors=("Kazuo Ishiguro",))], {})
    reading = read_brief(brief, get_vocabulary(), index)
    assert understand_reading(reading, index).intent is Intent.AUTHOR_SPOTLIGHT


@pytest.mark.parametrize("brief, field, value", [
    ("Nonfiction for the reading room, biographies especially", "genre", "传记回忆"),
    ("Books for the commute, mainly short stories", "genre", "短篇小说集"),
    ("适合假期读的书，尤其是科幻小说", "genre", "科幻"),
    ("新书推荐，特别是推理小说", "genre", "推理悬疑"),
])
def test_a_kind_said_to_be_mostly_or_especially_wanted_is_a_wish(brief, field, value):
    """cues.yaml preference_before / preference_after ('especially', 'mostly', 尤其是, 为主): the kind leans the
    shelf, it does not make every book that kind."""
    found = [(c.field, c.operator) for c in conditions(brief) if value in c.values]
    assert (field, "SHOULD") in found and (field, "MUST") not in found, conditions(brief)
