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
