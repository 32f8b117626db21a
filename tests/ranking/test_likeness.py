"""A read-alike's likeness: a book read against the named book's record, on every kind of catalog."""

import numpy as np
import pytest

from tasks.model.books import BookRecord, Facet
from tasks.ranking.relevance import (
    ALIKE,
    ALIKE_GUESSED,
    KINDS,
    SAID_TRUST,
    Admission,
    Calibration,
    Evidence,
    SimilarityDistribution,
    likeness,
    model_nearness,
    probabilities,
    profile,
    profile_counts,
    standing,
)

SURE = 0.6
FICTION = Facet("form", "fiction", 1.0, "source")
ESSAYS = Facet("form", "essays", 1.0, "source")


def novel(book_id: str, *subjects: str, **fields) -> BookRecord:
    return BookRecord(book_id, book_id.title(), subjects=subjects, facets=(FICTION,), **fields)


def gothic_catalog() -> tuple[BookRecord, list[BookRecord]]:
    """A catalog of headings and no tags (Gutenberg's kind): Dracula, a vampire tale, a novel sharing only the
    headings most of the catalog carries, and twenty other English novels."""
    dracula = novel("dracula", "Vampires -- Fiction", "Gothic fiction", "England -- Fiction")
    others = [novel(f"novel{i}", "England -- Fiction", "Love stories") for i in range(20)]
    return dracula, [dracula, novel("carmilla", "Vampires -- Fiction", "Young women -- Fiction"),
                     novel("courtship", "England -- Fiction", "Love stories"), *others]


def test_shared_headings_weigh_by_their_rarity_on_a_catalog_without_tags():
    dracula, catalog = gothic_catalog()
    counts = profile_counts(catalog)
    assert counts[("subject", "vampires fiction")] == 2 and counts[("form", "fiction")] == 23
    alike = likeness([dracula], counts, len(catalog), SURE, {})
    carmilla, courtship = (next(b for b in catalog if b.book_id == i) for i in ("carmilla", "courtship"))
    # sharing 'Vampires -- Fiction', which two books carry, says more than 'England -- Fiction', which most do
    assert alike(carmilla).value > 2 * alike(courtship).value > 0
    # the heading's parts are read too: 'Fiction' alone is shared by every novel, and says nearly nothing
    assert ("subject", "fiction") in profile(courtship)


def test_a_book_of_another_form_and_the_named_books_own_work_are_never_alike():
    dracula, catalog = gothic_catalog()
    essay = BookRecord("vampire-lore", "Vampire Lore", subjects=("Vampires -- Fiction",), facets=(ESSAYS,))
    edition = novel("dracula-e2", "Vampires -- Fiction", "Gothic fiction", "England -- Fiction",
                    work_id="dracula")
    catalog = [*catalog, essay, edition]
    alike = likeness([dracula], profile_counts(catalog), len(catalog), SURE, {})
    assert alike(essay).value == 0.0 and alike(edition).value == 0.0
    assert alike(next(b for b in catalog if b.book_id == "carmilla")).value > 0


def test_a_profile_saying_less_than_one_shared_heading_makes_nothing_alike():
    # a catalog of titles alone: the named book is 'fiction' and nothing more, as every other book is
    bare = [BookRecord(f"b{i}", f"Title {i}", facets=(FICTION,)) for i in range(30)]
    alike = likeness([bare[0]], profile_counts(bare), len(bare), SURE, {"b1": 5.0})
    assert alike(bare[1]).value == 0.0


def test_a_book_near_the_named_book_in_meaning_is_more_alike_than_one_far(embedder):
    texts = {"stoner": "Stoner: the quiet life of a farm boy who becomes a professor of English, his cold "
                       "marriage and his love of literature.",
             "quiet": "A small-town teacher's uneventful life, his friendships and his marriage, remembered.",
             "space": "A starship crew fights an alien armada at the edge of the galaxy.",
             **{f"other{i}": t for i, t in enumerate([
                 "A cookbook of Sicilian family recipes.", "The history of the Roman navy.",
                 "A field guide to the birds of Britain.", "A thriller about a bank heist in Lyon.",
                 "Poems about the sea and the seasons.", "A children's picture book about a lost bear."])}}
    vectors = dict(zip(texts, embedder.embed_documents(list(texts.values()))))
    index = type("Index", (), {"book_vectors": lambda self, ids: {b: vectors[b] for b in ids if b in vectors}})()
    distribution = SimilarityDistribution.of(np.vstack(list(vectors.values())))
    shared = ("Men -- Fiction", "Married people -- Fiction")
    books = {b: novel(b, *shared) if b in ("stoner", "quiet", "space") else novel(b, "Fiction") for b in texts}
    near = model_nearness([books["stoner"]], ["quiet", "space", "gone"], index, distribution)
    assert set(near) == {"quiet", "space"} and near["quiet"] > near["space"]
    # the same profile, told apart by the vector's nearness to the named book's
    alike = likeness([books["stoner"]], profile_counts(list(books.values())), len(books), SURE, near)
    assert alike(books["quiet"]).value > alike(books["space"]).value > 0


def test_a_likeness_lifts_a_book_as_much_as_a_brief_s_values_do_and_no_more():
    weak = Calibration({k: {} for k in KINDS}, {k: -5.0 for k in KINDS})
    assert probabilities(weak, [Evidence(alike=1.0)], "tag_blind")[0] == pytest.approx(SAID_TRUST)


def guessed_catalog() -> tuple[BookRecord, BookRecord, BookRecord, list[BookRecord]]:
    """A tag-blind catalog of essays (its form sure, from the class): a travel book whose record says 'Travel' in a
    heading and whose mood a guess gives it (above SURE, as a sure guess); a book sharing the heading, one sharing only
    the guessed mood, each of the two held by as many books; and essays holding neither."""
    mood = Facet("reading_context", "on a journey", 0.7, "neighbours")
    travel = BookRecord("sahara", "Sahara", subjects=("Travel",), facets=(ESSAYS, mood))
    walking = BookRecord("walking", "Walking", subjects=("Travel",), facets=(ESSAYS,))
    moody = BookRecord("moody", "Moody", facets=(ESSAYS, mood))
    others = [BookRecord(f"essay{i}", f"Essay {i}", subjects=("Essays",), facets=(ESSAYS,)) for i in range(20)]
    return travel, walking, moody, [travel, walking, moody, *others]


def test_a_value_both_books_hold_by_a_guess_weighs_less_than_one_both_hold_surely():
    travel, walking, moody, catalog = guessed_catalog()
    counts = profile_counts(catalog)
    assert counts[("subject", "travel")] == counts[("reading_context", "on a journey")] * 2 / 1.4
    alike = likeness([travel], counts, len(catalog), SURE, {})
    # a guess at 0.7 held by two books is as rare as a heading two books carry, and says half as much as it
    assert alike(walking).value > 1.5 * alike(moody).value > 0
    assert profile(moody)[("reading_context", "on a journey")] == pytest.approx(0.7)


def test_a_likeness_resting_on_guesses_asks_its_own_support():
    travel, walking, moody, catalog = guessed_catalog()
    guess = Facet("reading_context", "on a journey", 0.5, "neighbours")  # under SURE for the book, not for the model
    unsure = BookRecord("unsure", "Unsure", facets=(ESSAYS, guess))
    catalog = [*catalog, unsure]
    alike = likeness([travel], profile_counts(catalog), len(catalog), SURE, {})
    assert not alike(walking).guessed and alike(unsure).guessed and not alike(moody).guessed
    sure_one, guessed_one = (Evidence(alike=alike(b).value, alike_guessed=alike(b).guessed) for b in (walking, unsure))
    assert standing(sure_one, 0.0) == ALIKE and standing(guessed_one, 0.0) == ALIKE_GUESSED
    # both lifted above the weights' 0.12, the guessed likeness asks more of the weights than the sure one
    admission = Admission(supports={ALIKE: 0.1, ALIKE_GUESSED: 0.2})
    assert admission.admits(sure_one, 0.12, 0.5, 0.4) and not admission.admits(guessed_one, 0.12, 0.5, 0.4)
