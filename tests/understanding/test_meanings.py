"""The open classes by meaning (tasks/understanding/meanings.py): a span of the brief near a feeling's or a
setting's own words, with the real embedder, beside the packs' exact words."""

from config.vocabulary import get_vocabulary
from tasks.understanding.cues import load_cues
from tasks.understanding.meanings import with_meanings
from tasks.understanding.reading import WANTED, read_brief


def meant(brief: str, embedder) -> set[tuple[str, str, str]]:
    vocabulary = get_vocabulary()
    reading = with_meanings(read_brief(brief, vocabulary), embedder, vocabulary, load_cues())
    return {(m.field, m.value, m.polarity) for m in reading.mentions}


def test_a_span_in_no_list_names_the_value_it_means(embedder):
    # worded apart from the packs' lists and the fragment batches
    assert ("reading_context", "雨天窗前", WANTED) in meant("Stories for rainy-day afternoons indoors", embedder)
    assert ("text_texture", "幽默诙谐", WANTED) in meant("Essays with real humor about family life", embedder)


def test_what_is_read_already_or_excluded_is_not_read_again(embedder):
    # a dimension the brief names by its words keeps that value alone
    found = meant("Cozy mysteries, heartwarming and full of humor", embedder)
    assert {v for f, v, _ in found if f == "emotional_tone"} == {"温暖治愈"}
    # an excluded span names no wish
    assert not any(f == "text_texture" for f, _, _ in meant("Biographies, no humor please", embedder))
    # a plain brief gains no feeling
    assert not any(f in ("emotional_tone", "text_texture", "reading_context")
                   for f, _, _ in meant("Books about the history of Rome, 2000 and later", embedder))
