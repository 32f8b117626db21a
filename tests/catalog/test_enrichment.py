"""Facets with origin and confidence: crosswalk, calibrated neighbour and zero-shot guesses, forms."""

import numpy as np
import pytest

from config.settings import EnrichmentSettings
from tasks.catalog.crosswalk import default_crosswalk
from tasks.catalog.enrich import REFERENCE_CAP, Calibration, Reference, _holds, derive_facets, known_facets
from tasks.catalog.works import work_key
from tasks.model.books import BookRecord


def test_a_calibration_is_monotone_and_precise_at_every_threshold():
    scores = [0.9, 0.8, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    correct = [True, True, False, True, True, False, False, False]
    calibrate = Calibration.fit(scores, correct)
    confidences = [calibrate(s) for s in sorted(scores)]
    assert confidences == sorted(confidences) and calibrate(0.1) == 0.0
    for threshold in (0.5, 0.6, 0.7):
        chosen = [c for s, c in zip(scores, correct) if calibrate(s) >= threshold]
        assert not chosen or sum(chosen) / len(chosen) >= threshold


def test_a_catalog_with_subjects_and_classes_but_no_tags_gets_crosswalk_facets_with_their_origin(vocabulary):
    book = BookRecord("b", "三体", subjects=("科幻小说", "长篇小说—中国—当代"), classification=("clc:I247.55",))
    facets = {(f.dimension, f.value): f for f in known_facets(book, default_crosswalk(vocabulary))}
    assert facets[("genre", "科幻")].origin == "crosswalk" and facets[("genre", "科幻")].confidence >= 0.85
    assert any("clc I247.55" in f.because for f in facets.values())
    assert facets[("form", "fiction")].confidence >= 0.85


def unit(vectors) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_sure_books_teach_their_neighbours_and_forms_follow_from_genre(vocabulary):
    # 40 science-fiction books and 40 poetry books, each group around its own direction; sure tags on
    # all but the last two, which are left to their neighbours
    rng = np.random.default_rng(7)
    directions = {"科幻": np.eye(16)[0], "诗歌": np.eye(16)[1]}
    books, vectors = [], []
    for genre, direction in directions.items():
        for i in range(40):
            tags = {"genre": (genre,)} if i < 38 else {}
            books.append(BookRecord(f"{genre}-{i}", f"{genre} {i}", tags=tags))
            vectors.append(direction + 0.1 * rng.standard_normal(16))
    value_vectors = {d: unit(rng.standard_normal((len(vocabulary.dimension(d).values), 16)))
                     for d in vocabulary.dimension_names}
    settings = EnrichmentSettings(min_calibration_books=30)
    facets = derive_facets(books, unit(vectors), value_vectors, vocabulary, default_crosswalk(vocabulary), settings)
    guessed = {(f.dimension, f.value): f for f in facets["科幻-39"]}
    assert guessed[("genre", "科幻")].origin == "neighbours" and guessed[("genre", "科幻")].confidence >= 0.85
    assert guessed[("form", "fiction")].confidence == guessed[("genre", "科幻")].confidence
    assert ("genre", "诗歌") not in guessed or guessed[("genre", "诗歌")].confidence < 0.5
    assert {(f.dimension, f.value) for f in facets["诗歌-39"] if f.confidence >= 0.85} >= {("genre", "诗歌"),
                                                                                          ("form", "poetry")}
    # a dimension with no sure book at all is only guessed, never sure enough to filter
    moods = [f for fs in facets.values() for f in fs if f.dimension == "emotional_tone"]
    assert moods and max(f.confidence for f in moods) <= 0.5 and {f.origin for f in moods} == {"zero-shot"}


def test_neighbours_do_not_make_a_novel_of_a_book_its_record_calls_non_fiction(vocabulary):
    # 40 novels around one direction; among them a book of letters whose classification (Z473) says
    # non-fiction, and an untagged novel with no form on record: both have only novels for neighbours
    rng = np.random.default_rng(3)
    books = [BookRecord(f"n{i}", f"novel {i}", tags={"genre": ("小说",)}) for i in range(40)]
    books += [BookRecord("letters", "84, Charing Cross Road", classification=("lcc:Z473.H25",)),
              BookRecord("novel", "an untagged novel")]
    vectors = unit(np.eye(16)[0] + 0.1 * rng.standard_normal((len(books), 16)))
    value_vectors = {d: unit(rng.standard_normal((len(vocabulary.dimension(d).values), 16)))
                     for d in vocabulary.dimension_names}
    settings = EnrichmentSettings(min_calibration_books=30)
    facets = derive_facets(books, vectors, value_vectors, vocabulary, default_crosswalk(vocabulary), settings)

    def sure(book_id):
        return {(f.dimension, f.value) for f in facets[book_id] if f.confidence >= 0.85}
    assert ("form", "nonfiction") in sure("letters")
    assert not sure("letters") & {("genre", "小说"), ("form", "fiction")}
    assert {("genre", "小说"), ("form", "fiction")} <= sure("novel")
    capped = next(f for f in facets["letters"] if (f.dimension, f.value) == ("genre", "小说"))
    assert capped.origin == "neighbours" and capped.confidence <= 0.5  # still a wish for ranking


@pytest.mark.parametrize("book, form, genre, loser", [
    (BookRecord("b", "百年孤独", subjects=("长篇小说—哥伦比亚—现代", "拉美文学"), classification=("clc:I775.45",)),
     "fiction", "小说", "essays"),
    (BookRecord("b", "A Moveable Feast", subjects=("Authors, American -- 20th century -- Biography",),
                classification=("ddc:813.52",)), "nonfiction", "传记回忆", "fiction"),
])
def test_of_two_forms_a_record_gives_the_surer_stands(vocabulary, book, form, genre, loser):
    facets = derive_facets([book], unit(np.ones((1, 4))), {d: unit(np.ones((len(vocabulary.dimension(d).values), 4)))
                                                            for d in vocabulary.dimension_names},
                           vocabulary, default_crosswalk(vocabulary), EnrichmentSettings())
    sure = {(f.dimension, f.value) for f in facets["b"] if f.confidence >= 0.85}
    assert {("form", form), ("genre", genre)} <= sure
    assert ("form", loser) not in sure and not {g for d, g in sure if d == "genre"} - {genre}


def test_a_region_s_literature_is_no_form(vocabulary):
    for heading in ("拉美文学", "欧美文学"):
        assert not [f for f in known_facets(BookRecord("b", "t", subjects=(heading,)), default_crosswalk(vocabulary))
                    if f.dimension in ("form", "genre")]


def test_a_general_genre_gives_way_to_a_narrower_derived_one(vocabulary):
    book = BookRecord("b", "球状闪电", subjects=("长篇小说—中国—当代",), classification=("clc:I247.55",))
    facets = derive_facets([book], unit(np.ones((1, 4))), {d: unit(np.ones((len(vocabulary.dimension(d).values), 4)))
                                                            for d in vocabulary.dimension_names},
                           vocabulary, default_crosswalk(vocabulary), EnrichmentSettings())
    genres = {f.value for f in facets["b"] if f.dimension == "genre" and f.confidence >= 0.85}
    assert genres == {"科幻"}


@pytest.mark.parametrize("code, value", [("clc:I22", "诗歌"), ("clc:K825.6", "传记回忆"), ("ddc:813.54", "小说"),
                                         ("lcc:QB43.2", "科普")])
def test_crosswalk_classes_give_genres(vocabulary, code, value):
    facets = known_facets(BookRecord("b", "t", classification=(code,)), default_crosswalk(vocabulary))
    assert value in {f.value for f in facets if f.dimension == "genre"}


def test_a_dimension_no_book_is_sure_of_borrows_the_reference_catalogs_guesses_never_its_own_work(vocabulary):
    # The reference: 40 calm books and 40 heavy ones around their own directions, tagged by hand. The catalog:
    # untagged books near each group, one of them the reference's own "Lonely House" with a vector of its own.
    rng = np.random.default_rng(11)
    calm, heavy = np.eye(16)[2], np.eye(16)[3]
    ref_books = [BookRecord(f"r{i}", f"Ref {i}", authors=("A",),
                            tags={"emotional_tone": ("平静淡然",) if i < 40 else ("沉重压抑",)}) for i in range(80)]
    ref_books[0] = BookRecord("r0", "Lonely House", authors=("B",), tags={"emotional_tone": ("孤独疏离",)})
    ref_vectors = unit([(calm if i < 40 else heavy) + 0.1 * rng.standard_normal(16) for i in range(80)])
    reference = Reference(ref_vectors, tuple(b.tags for b in ref_books), tuple(work_key(b) for b in ref_books))
    books = [BookRecord("c1", "Quiet days"), BookRecord("h1", "Dark years"),
             BookRecord("own", "Lonely House (2nd ed.)", authors=("B",))]
    vectors = unit([calm + 0.05 * rng.standard_normal(16), heavy + 0.05 * rng.standard_normal(16), ref_vectors[0]])
    value_vectors = {d: unit(rng.standard_normal((len(vocabulary.dimension(d).values), 16)))
                     for d in vocabulary.dimension_names}
    settings = EnrichmentSettings(min_calibration_books=30)
    facets = derive_facets(books, vectors, value_vectors, vocabulary, default_crosswalk(vocabulary), settings,
                           lambda: reference)

    def borrowed(book_id):
        return {f.value: f for f in facets[book_id] if f.dimension == "emotional_tone" and f.origin == "reference"}
    assert set(borrowed("c1")) == {"平静淡然"} and set(borrowed("h1")) == {"沉重压抑"}
    assert 0.5 < borrowed("c1")["平静淡然"].confidence <= REFERENCE_CAP  # ranks and demotes, never filters
    assert "孤独疏离" not in borrowed("own")  # its own work's hand tag is not learnt by the probe that guesses it
    # without a reference the same catalog guesses moods uncalibrated, as before
    alone = derive_facets(books, vectors, value_vectors, vocabulary, default_crosswalk(vocabulary), settings)
    assert {f.origin for fs in alone.values() for f in fs if f.dimension == "emotional_tone"} == {"zero-shot"}


def test_a_books_third_likeliest_borrowed_mood_is_kept_for_an_exclusion_to_weigh(vocabulary):
    # 40 reference books calm, sad and lonely at once, 40 heavy: a book near the first holds all three likely
    rng = np.random.default_rng(5)
    quiet, heavy = np.eye(16)[2], np.eye(16)[3]
    ref_tags = [{"emotional_tone": ("平静淡然", "忧伤怅惘", "孤独疏离") if i < 40 else ("沉重压抑",)}
                for i in range(80)]
    ref_vectors = unit([(quiet if i < 40 else heavy) + 0.1 * rng.standard_normal(16) for i in range(80)])
    reference = Reference(ref_vectors, tuple(ref_tags), tuple(f"w{i}" for i in range(80)))
    value_vectors = {d: unit(rng.standard_normal((len(vocabulary.dimension(d).values), 16)))
                     for d in vocabulary.dimension_names}
    facets = derive_facets([BookRecord("q", "Quiet")], unit([quiet + 0.05 * rng.standard_normal(16)]), value_vectors,
                           vocabulary, default_crosswalk(vocabulary), EnrichmentSettings(), lambda: reference)
    borrowed = {f.value for f in facets["q"] if f.dimension == "emotional_tone" and f.origin == "reference"}
    # all three: with two kept, nothing would say how likely the third is to a brief that excludes it
    assert borrowed == {"平静淡然", "忧伤怅惘", "孤独疏离"}


def test_classification_and_a_subject_heading_that_agree_make_a_value_surer_than_either(vocabulary):
    crosswalk = default_crosswalk(vocabulary)
    alone = {(f.dimension, f.value): f for f in known_facets(
        BookRecord("a", "A Brief History of Time", subjects=("Cosmology -- Popular works",)), crosswalk)}
    both = {(f.dimension, f.value): f for f in known_facets(
        BookRecord("b", "A Brief History of Time", subjects=("Cosmology -- Popular works",),
                   classification=("lcc:QB981.H377", "ddc:523.1")), crosswalk)}
    heading = alone[("genre", "科普")].confidence
    assert heading < 0.85  # "-- Popular works" alone: not sure enough to filter on
    by_class = max((f.confidence for f in known_facets(BookRecord("c", "C", classification=("lcc:QB981.H377",
                                                                                            "ddc:523.1")), crosswalk)
                    if (f.dimension, f.value) == ("genre", "科普")), default=0.0)
    assert both[("genre", "科普")].confidence == pytest.approx(1 - (1 - heading) * (1 - by_class))
    assert "subject Cosmology -- Popular works" in both[("genre", "科普")].because
    # two headings saying the same thing are one reading of the book: the surer counts, nothing adds up
    twice = {(f.dimension, f.value): f for f in known_facets(
        BookRecord("d", "D", subjects=("Cosmology -- Popular works", "Astronomy -- Popular works")), crosswalk)}
    assert twice[("genre", "科普")].confidence == heading


def test_holds_marks_each_books_values_and_ignores_values_of_no_column():
    holds = _holds(["科幻", "历史", "诗歌"], [{"历史"}, set(), ("科幻", "诗歌", "not a value")])
    assert holds.tolist() == [[0, 1, 0], [0, 0, 0], [1, 0, 1]]
    assert _holds(["科幻"], [set(), set()]).tolist() == [[0], [0]]


def test_the_probes_fitted_from_fold_sums_score_as_probes_fitted_on_each_fold_apart():
    from tasks.catalog.enrich import PROBE_FOLDS, PROBE_RIDGE, _probe_scores

    rng = np.random.default_rng(7)
    pool, queries = unit(rng.normal(size=(60, 8))), unit(rng.normal(size=(9, 8)))
    holds = (rng.random((60, 3)) < 0.4).astype(np.float32)
    pool_folds, query_folds = rng.integers(0, PROBE_FOLDS, 60), rng.integers(0, PROBE_FOLDS, 9)
    held_out, scores = _probe_scores(pool, holds, pool_folds, queries, query_folds)
    for fold in range(PROBE_FOLDS):
        train = pool_folds != fold
        x, mean = pool[train].astype(np.float64), holds[train].mean(axis=0)
        weights = np.linalg.solve(x.T @ x + PROBE_RIDGE * np.eye(8), x.T @ (holds[train] - mean))
        np.testing.assert_allclose(held_out[~train], pool[~train] @ weights + mean, atol=1e-6)
        np.testing.assert_allclose(scores[query_folds == fold], queries[query_folds == fold] @ weights + mean,
                                   atol=1e-6)
